import type { Sampler } from "../../capabilities/types.js";
import type { CallStatus } from "../../observe/events.js";
import type { ApprovalAnswer, ApprovalRequest } from "../../policy/approvals.js";
import type { PolicyDecision } from "../../policy/decide.js";
import type { GrantScope } from "../../policy/grants.js";
import type { TurnMode } from "../../policy/tiers.js";

/**
 * Where the model must make its retry of a deferred call for the owner's answer to apply:
 * `same-chat` (the default) or `same-mcp-session` (an MCP session is a chat of its own, so a
 * new session or a reconnect asks again). The words are in `call-texts.ts`.
 */
export type RetryFrom = "same-chat" | "same-mcp-session";

/**
 * A deferred call: the answer comes out of band (`skillgate approve ID`). `deferred` names a
 * request already waiting under another id (the model retried before the owner answered);
 * without it the request just opened waits. `retryFrom` says where the retry must come from.
 */
export interface DeferredAnswer {
  readonly deferred?: string;
  readonly retryFrom?: RetryFrom;
}

/**
 * Asks a person about a call. Resolves with their answer, `expired` when nobody answered in
 * time, or `deferred` when the answer will come out of band (the owner runs
 * `skillgate approve ID`): the call then does not run and the model is told to make the same
 * call again once approved. A {@link DeferredAnswer} defers to a request already waiting
 * under another id, or says where the retry must come from.
 */
export type Approver = (
  request: ApprovalRequest,
  call: CallOptions,
) => Promise<ApprovalAnswer | "expired" | "deferred" | DeferredAnswer>;

/** What a surface passes with one call. */
export interface CallOptions {
  /** Stops the call's run (and an ask the approver can cancel). */
  readonly signal?: AbortSignal;
  /**
   * Handed to the approver untouched, for a surface that asks in its own way: the MCP
   * surface passes the protocol request the call answers, so an elicitation travels with it.
   */
  readonly caller?: unknown;
  /** MCP sampling with the calling client, handed to the tool's execute (a capability's `sampling` entry). */
  readonly sample?: Sampler;
}

/** Where a call is made: a chat or a job, in a mode. */
export interface CallScope extends GrantScope {
  readonly mode: TurnMode;
}

/** The outcome of one call: what the model is shown and how the call ended. */
export interface ToolCallResult {
  readonly requestId: string;
  readonly text: string;
  readonly status: CallStatus;
  readonly decision?: PolicyDecision;
  /** For `awaiting_approval`: the approval request the owner answers (`skillgate approve ID`). */
  readonly approvalId?: string;
}
