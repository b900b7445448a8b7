import { isAbsolute, resolve } from "node:path";
import type { CapabilityPipeline } from "../capabilities/pipeline/invoke.js";
import type { RuntimeMode } from "../capabilities/types.js";
import type { DiscoveryResult } from "../catalog/discover.js";
import { InvalidArgumentError } from "../core/errors.js";
import { DEFAULT_INDEX_BUDGET } from "../core/limits.js";
import type { ExtensionTool } from "../extensions/types.js";
import type { TurnMode } from "../policy/tiers.js";
import type { RunLimits, Runner } from "../runners/contract.js";
import type { PackageEnvironments } from "../runners/environments/package-environments.js";
import type { ArgumentRepair } from "./arguments.js";
import type { Broker, CallOptions, CallScope, ToolCallResult } from "./broker.js";
import { unknownToolText } from "./call-texts.js";
import { type CapabilityToolEnvironment, invokeCapabilityTool } from "./capability-tool.js";
import { extensionTools } from "./extension-tools.js";
import { runScriptTool } from "./run-script-tool.js";
import { skillTools, turnIndex } from "./skill-tools.js";
import { type SkillScope, SkillView } from "./skill-view.js";
import type { AnyTool } from "./tool.js";

/** Options of {@link createTurn}: who is asking, in which mode, with which skills. */
export interface TurnOptions {
  /** A chat's id; exactly one of `chatId` and `jobId`. */
  readonly chatId?: string;
  /** A job's id. */
  readonly jobId?: string;
  /** Default `chat` for chats and `job` for jobs; `plan` allows reads only. */
  readonly mode?: TurnMode;
  /** A job's skills field: `null` or `[]` none, `"*"` every enabled skill, or names. Built-ins always. Chats offer every enabled skill. */
  readonly skills?: SkillScope;
  /** The skill index's character budget. */
  readonly indexBudget?: number;
  readonly signal?: AbortSignal;
  /**
   * The project folder of the turn, an absolute path: scripts run in it, read-only or
   * writable by their skill's tier and `skillgate.workspace` (docs/running-scripts.md,
   * "The workspace"). Left out, runs have no workspace. A function is asked at each call, for
   * a surface that learns its root later (an MCP client's roots); its answer must be absolute
   * or `undefined`.
   */
  readonly workspace?: string | (() => string | undefined);
  /**
   * The capability runtime the turn's calls run in (docs/capabilities.md, "Runtime gates").
   * Default from the mode: `chat` → `normal`, `plan` → `plan`, `job` → `job`; `team` only when
   * an orchestrating host says so.
   */
  readonly runtimeMode?: RuntimeMode;
}

/** What a turn is built from: the catalog, the broker, a runner and optional extra tools. */
export interface TurnDependencies {
  readonly discover: () => DiscoveryResult;
  readonly broker: Broker;
  readonly runner: Runner;
  readonly runLimits?: RunLimits;
  /** Skills' package environments (docs/running-scripts.md, "Packages"); without it declarations are not read. */
  readonly packages?: PackageEnvironments;
  readonly onArgumentRepair?: (call: {
    skill: string;
    script: string;
    repairs: readonly ArgumentRepair[];
  }) => void;
  /** More tools over the same view (the store's, the chat log's), built per turn. */
  readonly extraTools?: (view: SkillView) => readonly AnyTool[];
  /** Extensions' tools, read when the turn is built; a name skillgate's tools use is left out. */
  readonly extensionTools?: () => readonly ExtensionTool[];
  /** Told about an extension tool left out because its name is taken. */
  readonly onToolClash?: (name: string) => void;
  /** The capability pipeline: with registered capabilities, the turn offers `invoke_capability`. */
  readonly capabilities?: CapabilityPipeline;
  /** Fires a lifecycle event at the extensions (`before_turn`, `after_turn`, `stop`). */
  readonly fire?: (
    event: "before_turn" | "after_turn" | "stop",
    payload: TurnEventPayload,
  ) => Promise<unknown>;
}

/** What the turn's lifecycle events carry. */
export interface TurnEventPayload {
  readonly scope: { readonly kind: "chat" | "job"; readonly id: string };
  readonly prompt?: string;
  readonly text?: string;
  readonly reason?: string;
}

/** One turn of a chat or job: its tools, its skill index, and the one way to call a tool. */
export interface Turn {
  readonly scope: CallScope;
  readonly tools: readonly AnyTool[];
  /** The skills this turn offers, as of now. */
  readonly view: SkillView;
  /** The skill index block for the system prompt. */
  skillIndex(): string;
  /** The turn's door to the capability pipeline, when it has one (MCP lists each capability as its own tool over it). */
  readonly capabilities?: CapabilityToolEnvironment;
  /** Calls a tool by name; unknown names and bad input come back as `HOST:` text. */
  call(name: string, input: unknown, options?: CallOptions): Promise<ToolCallResult>;
  /** Tells extensions a prompt is about to go to the model (`before_turn`). */
  begin(prompt?: string): Promise<void>;
  /** Tells extensions the model finished answering (`after_turn`). */
  end(text?: string): Promise<void>;
  /** Tells extensions the chat or job stopped (`stop`). */
  stop(reason?: string): Promise<void>;
}

/**
 * Builds a turn. Each call looks the catalog up again before it runs (cheap when nothing
 * changed), so a store edit, a disabled skill or a changed file is seen by the next call:
 * a skill disabled mid-turn answers `HOST: that skill is no longer enabled.`
 */
export function createTurn(dependencies: TurnDependencies, options: TurnOptions): Turn {
  const scope = turnScope(options);
  const view = new SkillView(
    dependencies.discover,
    scope.kind === "chat" ? undefined : (options.skills ?? null),
  );
  const tools: AnyTool[] = [
    ...skillTools({ view }),
    runScriptTool({
      view,
      runner: dependencies.runner,
      ...(dependencies.runLimits ? { limits: dependencies.runLimits } : {}),
      ...(options.workspace !== undefined ? { workspace: turnWorkspace(options.workspace) } : {}),
      ...(dependencies.packages ? { packages: dependencies.packages } : {}),
      ...(dependencies.onArgumentRepair ? { onArgumentRepair: dependencies.onArgumentRepair } : {}),
    }),
    ...(dependencies.extraTools?.(view) ?? []),
  ];
  const capabilities = capabilityEnvironment(dependencies.capabilities, scope, options);
  // Offered only where something is registered: a turn without capabilities keeps its tool list.
  if (
    capabilities !== undefined &&
    capabilities.pipeline.index().capabilities(capabilities.caller().runtimeMode).length > 0
  )
    tools.push(invokeCapabilityTool(capabilities));
  tools.push(
    ...extensionTools(
      dependencies.extensionTools?.() ?? [],
      new Set(tools.map((tool) => tool.name)),
      dependencies.onToolClash ?? (() => {}),
    ),
  );
  const fire = async (
    event: "before_turn" | "after_turn" | "stop",
    extra: Omit<TurnEventPayload, "scope">,
  ) => {
    await dependencies.fire?.(event, { scope: { kind: scope.kind, id: scope.id }, ...extra });
  };
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  return {
    scope,
    tools,
    view,
    ...(capabilities !== undefined ? { capabilities } : {}),
    skillIndex: () => turnIndex({ view }, options.indexBudget ?? DEFAULT_INDEX_BUDGET),
    call: async (name, input, callOptions = {}) => {
      const tool = byName.get(name);
      if (tool === undefined) {
        return {
          requestId: "",
          status: "refused",
          text: unknownToolText(name, [...byName.keys()]),
        };
      }
      // The turn's signal and the call's: either one stops the call's run.
      const signals = [options.signal, callOptions.signal].filter((signal) => signal !== undefined);
      const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
      return dependencies.broker.call(scope, tool, input, {
        ...(signal !== undefined ? { signal } : {}),
        ...(callOptions.caller !== undefined ? { caller: callOptions.caller } : {}),
        ...(callOptions.sample !== undefined ? { sample: callOptions.sample } : {}),
      });
    },
    begin: (prompt) => fire("before_turn", prompt !== undefined ? { prompt } : {}),
    end: (text) => fire("after_turn", text !== undefined ? { text } : {}),
    stop: (reason) => fire("stop", reason !== undefined ? { reason } : {}),
  };
}

/** The turn's caller of the capability pipeline: its scope, runtime mode and workspace. */
function capabilityEnvironment(
  pipeline: CapabilityPipeline | undefined,
  scope: CallScope,
  options: TurnOptions,
): CapabilityToolEnvironment | undefined {
  if (pipeline === undefined) return undefined;
  const runtimeMode: RuntimeMode =
    options.runtimeMode ?? (scope.mode === "chat" ? "normal" : scope.mode === "plan" ? "plan" : "job");
  const workspace = options.workspace !== undefined ? turnWorkspace(options.workspace) : undefined;
  return {
    pipeline,
    caller: () => {
      const path = workspace?.();
      return {
        kind: "turn",
        agentId: scope.id,
        runtimeMode,
        interactive: scope.kind === "chat",
        scope: { kind: scope.kind, id: scope.id },
        ...(path !== undefined ? { workspace: path } : {}),
      };
    },
  };
}

/** The turn's workspace, normalised; a relative one is the caller's mistake. */
function turnWorkspace(workspace: string | (() => string | undefined)): () => string | undefined {
  if (typeof workspace === "function")
    return () => {
      const path = workspace();
      return path !== undefined && isAbsolute(path) && !path.includes("\0") ? resolve(path) : undefined;
    };
  if (!isAbsolute(workspace) || workspace.includes("\0"))
    throw new InvalidArgumentError("workspace", "a turn's workspace must be an absolute path");
  const path = resolve(workspace);
  return () => path;
}

function turnScope(options: TurnOptions): CallScope {
  if ((options.chatId === undefined) === (options.jobId === undefined)) {
    throw new InvalidArgumentError("chatId", "a turn needs exactly one of chatId and jobId");
  }
  if (options.chatId !== undefined) return { kind: "chat", id: options.chatId, mode: options.mode ?? "chat" };
  return { kind: "job", id: options.jobId as string, mode: options.mode ?? "job" };
}
