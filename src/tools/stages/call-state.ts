import type { AuditEvent, CallStatus } from "../../observe/events.js";
import type { ApprovalBook } from "../../policy/approvals.js";
import type { PolicyDecision, PolicyTable } from "../../policy/decide.js";
import type { GrantStore } from "../../policy/grants.js";
import type { BeforeToolVerdict, CallHooks } from "../call-hooks.js";
import type { AnyTool, CallSubject } from "../tool.js";
import type { Approver, CallOptions, CallScope } from "./call-types.js";

/**
 * One call as it moves through the broker's stages (prepare, hooks, decide, narrow, ask,
 * execute, after-hooks; see docs/tools.md). Each stage reads this state and returns the
 * next one, or ends the call. Nothing in it is mutated: a stage returns a new object.
 */
export interface CallState {
  readonly requestId: string;
  readonly scope: CallScope;
  readonly tool: AnyTool;
  /** The model's input exactly as it came. */
  readonly raw: unknown;
  readonly options: CallOptions;
  /** What the call is about, as the latest `prepare` said. */
  readonly subject: CallSubject;
  /** The prepared input (after normalisation and validation); set by the prepare stage. */
  readonly input?: unknown;
  /** The arguments hooks see: the model's object, or a hook's replacement. */
  readonly args: Readonly<Record<string, unknown>>;
  /** What the `before_tool` hooks said (empty without hooks). */
  readonly verdict: BeforeToolVerdict;
  /** The grant an "always" answer stores: `skill:NAME@HASH8`, when the subject names both. */
  readonly grant?: string;
  /** The rules' decision; set by the decide stage and reported with the result. */
  readonly decision?: PolicyDecision;
  /** The decision after hooks and the approval policy narrowed it; set by the narrow stage. */
  readonly narrowed?: PolicyDecision;
  /** The tool's output once it ran; set by the execute stage. */
  readonly output?: { readonly text: string; readonly status: CallStatus };
}

/** How a call ended early or late: what the model is shown and what the audit records. */
export interface CallEnd {
  readonly text: string;
  readonly status: CallStatus;
  readonly decision?: PolicyDecision;
  /** The audit's name for a failure (`invalid_input`, a stable error code, a class name). */
  readonly errorKind?: string;
  /** For `awaiting_approval`: the request the owner answers. */
  readonly approvalId?: string;
}

/**
 * What a stage returns: the state to go on with, and `end` when the call ends here (the
 * finished event is then recorded about that state's subject).
 */
export interface StageResult {
  readonly state: CallState;
  readonly end?: CallEnd;
}

/** A stage of the call: it may record audit events, never throws into the model's turn. */
export type CallStage = (state: CallState, context: CallContext) => Promise<StageResult>;

/** The broker's collaborators as the stages see them. */
export interface CallContext {
  /** The rule table in force now (read when the decide stage runs). */
  readonly policy: () => PolicyTable;
  readonly grants: GrantStore;
  readonly approvals: ApprovalBook;
  /** Without an approver, every ask is declined. */
  readonly approve?: Approver;
  readonly hooks?: CallHooks;
  /** Records one audit event of this call about `subject`. */
  record(type: AuditEvent["type"], subject: CallSubject, extra?: Partial<AuditEvent>): void;
}

/** The subject of a call whose input says nothing about itself: a change, so the policy asks. */
export function unknownSubject(tool: AnyTool): CallSubject {
  return { tier: "change", summary: `call ${tool.name}` };
}

/** A call's first state, before the prepare stage. */
export function initialState(
  requestId: string,
  scope: CallScope,
  tool: AnyTool,
  raw: unknown,
  options: CallOptions,
): CallState {
  return {
    requestId,
    scope,
    tool,
    raw,
    options,
    subject: unknownSubject(tool),
    args: plainArguments(raw),
    verdict: {},
  };
}

/** Continues with `state`. */
export function next(state: CallState): StageResult {
  return { state };
}

/** Ends the call in `state`. */
export function end(state: CallState, call: CallEnd): StageResult & { readonly end: CallEnd } {
  return { state, end: call };
}

/** The scope as hooks and the audit see it (without the mode). */
export function scopeOf(scope: CallScope): { kind: "chat" | "job"; id: string } {
  return { kind: scope.kind, id: scope.id };
}

/** The subject as hooks see it: the tier and the skill, never the hash or the summary. */
export function hookSubject(subject: CallSubject): { tier: CallSubject["tier"]; skill?: string } {
  return { tier: subject.tier, ...(subject.skill !== undefined ? { skill: subject.skill } : {}) };
}

/** The model's input as hooks see it: the object it sent (or an empty one for anything else). */
export function plainArguments(raw: unknown): Readonly<Record<string, unknown>> {
  return raw !== null && typeof raw === "object" && !Array.isArray(raw)
    ? (raw as Record<string, unknown>)
    : {};
}

/**
 * The rules' decision of a call past the decide stage. The stages run in order, so a state
 * without one is a broker bug, thrown rather than run undecided.
 */
export function requireDecision(state: CallState): PolicyDecision {
  if (state.decision === undefined)
    throw new Error(`${state.tool.name}: a stage ran before the decide stage`);
  return state.decision;
}
