import type { Sampler } from "../capabilities/types.js";
import type { JsonValue } from "../core/safe-json.js";
import type { CallStatus } from "../observe/events.js";
import type { ToolTier } from "../policy/tiers.js";
import type { JsonSchema } from "../skill/parameters-schema.js";

/** What a tool call is about, for the policy and the audit log. */
export interface CallSubject {
  readonly tier: ToolTier;
  /** The skill the call names, when it names one the turn knows. */
  readonly skill?: string;
  /** The skill's full content hash. */
  readonly hash?: string;
  readonly skillRunnable?: boolean;
  readonly draftTargetLocked?: boolean;
  /**
   * Why this call must be put to a person even where the rules allow it (a package
   * environment is built before the run: docs/running-scripts.md, "Packages"). The narrow
   * stage turns an allow into an ask with this reason; it never widens a deny.
   */
  readonly mustAsk?: string;
  /**
   * What will happen, in words for an approval request: never the JSON arguments' contents;
   * a script's argv, being its command line, is part of what runs and is shown.
   */
  readonly summary: string;
  /** The command-line arguments a script run passes, for the audit (`argv` on its events). */
  readonly argv?: readonly string[];
  /**
   * Made only when a person is about to be asked: what exactly they approve (edit_skill's
   * plan and its diff). A failure refuses the call with its message.
   */
  readonly prepareApproval?: () => Promise<ApprovalDetail>;
}

/** What exactly a person approves, made just before they are asked (an edit plan). */
export interface ApprovalDetail {
  /** Shown with the request (an edit plan's diff). */
  readonly detail: string;
  /** The id of what is approved (the plan's id), which approving it elsewhere settles. */
  readonly reference: string;
  /** The content hash what is approved was made against (the plan's base hash), when the subject has none. */
  readonly hash?: string;
  /**
   * Throws away what was made when nobody will approve it: the person declined, the request
   * expired, or the call waits on an earlier request that has its own.
   */
  readonly discard?: () => Promise<void>;
}

/** A prepared call: the input after normalisation and validation, and what it is about. */
export type PreparedCall<Input> =
  | { readonly ok: true; readonly input: Input; readonly subject: CallSubject }
  | {
      readonly ok: false;
      readonly message: string;
      readonly subject?: CallSubject;
      /** A stable code for the refusal (the audit's `errorKind`); default `invalid_input`. */
      readonly code?: string;
    };

/**
 * A tool a model can call. `prepare` reads the raw input once (normalising and
 * validating it) and says what the call is about; `execute` runs it after the policy
 * allowed it. Neither throws into the model's turn: refusals are text starting with `HOST:`.
 */
export interface ToolDefinition<Input = Record<string, JsonValue>> {
  readonly name: string;
  /**
   * The tier of every call of this tool, or `by-skill` when a call takes the tier of the
   * skill it names (`run_skill_script`). Surfaces derive hints from it (MCP's `readOnlyHint`);
   * the policy always decides on each call's own subject.
   */
  readonly tier: ToolTier | "by-skill";
  /** Written for small models: what to send, exactly, with an example. */
  readonly description: string;
  /** The JSON Schema a client validates the input with (MCP, the AI SDK). */
  readonly inputSchema: JsonSchema;
  /**
   * The schema `prepare` accepts before it repairs or reads parts itself, when that is
   * looser than `inputSchema` (`run_skill_script` takes `arguments` as JSON text; the store's
   * tools take their whole input as JSON text). A client that validates must use this one,
   * or it would refuse what skillgate can repair. Absent: `inputSchema`.
   */
  readonly acceptedSchema?: JsonSchema;
  /** The JSON Schema of the tool's structured answer, when it has one (a capability's own tool over MCP). */
  readonly outputSchema?: JsonSchema;
  prepare(raw: unknown): PreparedCall<Input> | Promise<PreparedCall<Input>>;
  execute(input: Input, context: ExecuteContext): Promise<ToolOutput>;
}

/** What a tool returns: text, or text with how the call ended when that is not simply `ok`. */
export type ToolOutput = string | { readonly text: string; readonly status: CallStatus };

/** What a tool's `execute` gets besides its input. */
export interface ExecuteContext {
  readonly requestId: string;
  /** The chat or job the call is made in. */
  readonly scope?: { readonly kind: "chat" | "job"; readonly id: string };
  readonly signal?: AbortSignal;
  /** MCP sampling with the calling client, when the surface has one (a capability's `sampling` entry). */
  readonly sample?: Sampler;
}

/**
 * A tool with its input type erased, as tool lists hold them (methods are bivariant in
 * their parameters, so every ToolDefinition<Input> is one).
 */
export type AnyTool = ToolDefinition<unknown>;
