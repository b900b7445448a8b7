import { describeError } from "../../core/errors.js";
import { parseRelativePath } from "../../core/safe-paths.js";
import type { Logger } from "../../observe/logger.js";
import type { Runner, RunRequest, RunResult } from "../../runners/contract.js";
import { refusal } from "../../runners/refusal.js";
import { DEFAULT_GOVERNANCE, type Governance } from "../../skill/governance.js";
import { loadSkillFolder } from "../../skill/load-skill.js";
import { scriptLanguage } from "../../skill/scripts.js";
import type { AgentMessage, NodeRunMessage, NodeRunOutcome } from "../protocol.js";
import { isRequestId, MAX_REQUEST_ID_LENGTH, SeenRequests } from "./seen-requests.js";

/** The longest run the agent accepts, whatever the controller asks for: one hour. */
export const MAX_AGENT_TIMEOUT_MS = 60 * 60 * 1000;
/** The most output bytes per stream the agent keeps, whatever the controller asks for: 4 MiB. */
export const MAX_AGENT_OUTPUT_BYTES = 4 * 1024 * 1024;

/** What the agent holds: its own verified copies, by name and full hash. */
export interface HeldSkills {
  /** The folder of the agent's copy of `name@hash`, or undefined when it holds no such copy. */
  folderOf(name: string, hash: string): string | undefined;
  /**
   * Drops the held copy of `name@hash` (it no longer hashes to `hash`), so the next sync
   * downloads it again; false when it was not held. Absent: nothing is dropped.
   */
  discard?(name: string, hash: string): boolean;
}

/** How scripts run on this node: in the sandbox (the default), or on the host as the agent's user. */
export type AgentRunMode = "sandbox" | "local";

/** Options of {@link RunExecutor}. */
export interface RunExecutorOptions {
  /** `<data>/node-agent`: the seen request ids are kept there. */
  readonly agentFolder: string;
  readonly skills: HeldSkills;
  /** One SkillSync attempt, for a run of a hash the agent does not hold yet; it never throws. */
  readonly sync: () => Promise<void>;
  /** The agent's router over its own snapshots, with a runner for `sandbox` and `local`. */
  readonly runner: Runner;
  /** Sends a message up the run channel (dropped while it is down). */
  readonly send: (message: AgentMessage) => void;
  readonly logger: Logger;
  /** Default `sandbox`. A `.cs` script always runs on the host through `dotnet run`. */
  readonly mode?: AgentRunMode;
  /** Told whenever the set of runs in flight changes (the heartbeat reports it). */
  readonly onRunsChanged?: () => void;
  /** How many request ids are remembered (default SEEN_REQUESTS_KEPT). */
  readonly seenKept?: number;
  /** Told when a run found a held copy changed and it was dropped (the agent beats and syncs again). */
  readonly onCopyDropped?: (skill: string, hash: string) => void;
}

/**
 * Runs what the controller sends down the channel, from the agent's own copies only
 * (docs/nodes.md, "What a compromised node can and cannot do"). For each `run` message: a
 * request id seen before (even before a restart) is refused; a `name@hash` the agent does not
 * hold after one sync attempt is refused (`skill_not_held`); otherwise the run goes through
 * the agent's router, which hashes the copy again and runs it from a verified snapshot, with
 * the sandbox policy read from the governance keys of the copy's own SKILL.md (never from the
 * message). Output is streamed up as `run-output`, and `run-ended` carries the outcome. A copy
 * the router finds changed (`skill_changed`) is dropped from the held set, so the next sync
 * downloads it again instead of every later run being refused.
 */
export class RunExecutor {
  readonly #options: RunExecutorOptions;
  readonly #seen: SeenRequests;
  readonly #running = new Map<string, AbortController>();
  readonly #finished = new Set<Promise<void>>();

  constructor(options: RunExecutorOptions) {
    this.#options = options;
    this.#seen = new SeenRequests(options.agentFolder, options.seenKept);
  }

  /** Request ids running now. */
  get inFlight(): readonly string[] {
    return [...this.#running.keys()];
  }

  /** Starts a run; resolves when its `run-ended` was sent. Never throws. */
  handle(message: NodeRunMessage): Promise<void> {
    const done = this.#handle(message).catch((error: unknown) => {
      this.#options.logger.warn("run failed inside the agent", {
        requestId: safeId(message.requestId),
        error: describeError(error),
      });
    });
    this.#finished.add(done);
    void done.finally(() => this.#finished.delete(done));
    return done;
  }

  /** Stops a run in flight (its `run-ended` follows); an unknown id is ignored. */
  cancel(requestId: string): void {
    this.#running.get(requestId)?.abort();
  }

  /** Aborts every run in flight and waits until each has ended. */
  async close(): Promise<void> {
    for (const controller of this.#running.values()) controller.abort();
    await Promise.all([...this.#finished]);
    this.#seen.close();
  }

  async #handle(message: NodeRunMessage): Promise<void> {
    const { requestId } = message;
    const logger = this.#options.logger;
    if (typeof requestId !== "string" || !isRequestId(requestId)) {
      logger.warn("run refused: its request id is not valid");
      return;
    }
    let first: boolean;
    try {
      first = this.#seen.record(requestId);
    } catch (error) {
      // Not on disk, not run: a restart could not tell it ran.
      logger.warn("run refused: its request id could not be recorded", {
        requestId,
        error: describeError(error),
      });
      this.#end(
        requestId,
        refusal(
          "request_not_recorded",
          `this node could not record request ${requestId} before running it, so it did not run; tell the node's owner (its data folder may be full or read-only).`,
        ),
      );
      return;
    }
    if (!first) {
      logger.warn("run refused: its request id was seen before", { requestId });
      this.#end(
        requestId,
        refusal(
          "request_replayed",
          `this node was sent request ${requestId} before, and a request runs at most once; it did not run again.`,
        ),
      );
      return;
    }
    const controller = new AbortController();
    this.#running.set(requestId, controller);
    this.#options.onRunsChanged?.();
    try {
      this.#options.send({ type: "run-started", requestId });
      logger.info("run started", { requestId, skill: message.skill, script: message.script });
      const result = await this.#run(message, controller.signal);
      if (result.code === "skill_changed") this.#drop(message);
      logger.info("run ended", {
        requestId,
        status: result.status,
        ...(result.exitCode !== null ? { exitCode: result.exitCode } : {}),
        ...(result.code !== undefined ? { code: result.code } : {}),
      });
      this.#end(requestId, result);
    } finally {
      this.#running.delete(requestId);
      this.#options.onRunsChanged?.();
    }
  }

  async #run(message: NodeRunMessage, signal: AbortSignal): Promise<RunResult> {
    const shape = checkShape(message);
    if (shape !== undefined) return shape;
    let folder = this.#options.skills.folderOf(message.skill, message.hash);
    if (folder === undefined) {
      await this.#options.sync();
      folder = this.#options.skills.folderOf(message.skill, message.hash);
    }
    if (folder === undefined) return notHeld(message);
    const language = scriptLanguage(message.script);
    if (language === undefined)
      return refusal(
        "invalid_script",
        `${message.script} of ${message.skill} is not a script this node knows how to run; it did not run.`,
      );
    const governance = ownGovernance(folder);
    const execution = language === "csharp" ? "local" : (this.#options.mode ?? "sandbox");
    const request: RunRequest = {
      skill: message.skill,
      hash: message.hash,
      folder,
      execution,
      script: message.script,
      language,
      arguments: message.arguments,
      ...(message.argv !== undefined ? { argv: message.argv } : {}),
      limits: {
        timeoutMs: Math.min(message.timeoutMs, MAX_AGENT_TIMEOUT_MS),
        maxOutputBytes: Math.min(message.maxOutputBytes, MAX_AGENT_OUTPUT_BYTES),
      },
      signal,
      allowedDomains: governance.allowedDomains,
      network: governance.network,
      onOutput: (stream, chunk) =>
        this.#options.send({ type: "run-output", requestId: message.requestId, stream, chunk }),
    };
    return await this.#options.runner.run(request);
  }

  /** Drops a held copy the router found changed on disk. */
  #drop(message: NodeRunMessage): void {
    const { skill, hash } = message;
    if (this.#options.skills.discard?.(skill, hash) !== true) return;
    this.#options.logger.warn(
      "a held copy changed on disk and was dropped; the next sync downloads it again",
      {
        skill,
        hash: hash.slice(0, 8),
      },
    );
    this.#options.onCopyDropped?.(skill, hash);
  }

  #end(requestId: string, result: RunResult): void {
    this.#options.send({ type: "run-ended", requestId, outcome: outcomeOf(result) });
  }
}

/** The outcome the controller is sent for a runner's result. */
export function outcomeOf(result: RunResult): NodeRunOutcome {
  return {
    status: result.status,
    exitCode: result.exitCode,
    stdout: result.stdout,
    stderr: result.stderr,
    stdoutTruncated: result.stdoutTruncated,
    stderrTruncated: result.stderrTruncated,
    durationMs: result.durationMs,
    ...(result.code !== undefined ? { code: result.code } : {}),
    ...(result.message !== undefined ? { message: result.message } : {}),
    ...(result.signal !== undefined ? { signal: result.signal } : {}),
  };
}

/**
 * The governance of the agent's own copy: its allowed domains and network decide the
 * sandbox's policy. A copy whose keys cannot be read runs with the defaults (no network).
 */
function ownGovernance(folder: string): Governance {
  try {
    return loadSkillFolder(folder, { source: "node-agent" }).skill?.governance ?? DEFAULT_GOVERNANCE;
  } catch {
    return DEFAULT_GOVERNANCE;
  }
}

/** A message whose fields are not what the protocol says is refused before anything is looked up. */
function checkShape(message: NodeRunMessage): RunResult | undefined {
  const wrong = (what: string): RunResult =>
    refusal("invalid_run_request", `the run request's ${what} is not valid, so nothing ran on this node.`);
  if (typeof message.skill !== "string" || message.skill === "" || message.skill.length > 200)
    return wrong("skill");
  if (typeof message.hash !== "string" || !/^[0-9a-f]{64}$/.test(message.hash)) return wrong("hash");
  if (typeof message.script !== "string" || !parseRelativePath(message.script).ok) return wrong("script");
  if (typeof message.arguments !== "object" || message.arguments === null || Array.isArray(message.arguments))
    return wrong("arguments");
  if (message.argv !== undefined && (!Array.isArray(message.argv) || !message.argv.every(isText)))
    return wrong("argv");
  if (!positive(message.timeoutMs)) return wrong("timeout");
  if (!positive(message.maxOutputBytes)) return wrong("output limit");
  return undefined;
}

function notHeld(message: NodeRunMessage): RunResult {
  return refusal(
    "skill_not_held",
    `this node holds no copy of ${message.skill}@${message.hash.slice(0, 8)}, even after syncing its skills, so ${message.script} did not run. The skill may have changed or been disabled on the controller since the call was approved.`,
  );
}

function isText(value: unknown): value is string {
  return typeof value === "string";
}

function positive(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value) && value > 0;
}

function safeId(value: unknown): string {
  return typeof value === "string" ? value.slice(0, MAX_REQUEST_ID_LENGTH) : "";
}
