import { randomUUID } from "node:crypto";
import { type Clock, systemClock } from "../core/clock.js";
import type { AuditEvent, AuditSink, CallStatus } from "../observe/events.js";
import { traceToolCall } from "../observe/telemetry.js";
import { ApprovalBook } from "../policy/approvals.js";
import { PolicyTable } from "../policy/decide.js";
import { type GrantScope, type GrantStore, MemoryGrantStore } from "../policy/grants.js";
import type { CallHooks } from "./call-hooks.js";
import { afterHooksStage } from "./stages/after-hooks.js";
import { askStage } from "./stages/ask.js";
import { beforeHooksStage } from "./stages/before-hooks.js";
import {
  type CallContext,
  type CallEnd,
  type CallStage,
  type CallState,
  initialState,
} from "./stages/call-state.js";
import type { Approver, CallOptions, CallScope, ToolCallResult } from "./stages/call-types.js";
import { decideStage } from "./stages/decide.js";
import { executeStage } from "./stages/execute.js";
import { narrowStage } from "./stages/narrow.js";
import { prepareStage } from "./stages/prepare.js";
import type { AnyTool, CallSubject } from "./tool.js";

export type {
  Approver,
  CallOptions,
  CallScope,
  DeferredAnswer,
  RetryFrom,
  ToolCallResult,
} from "./stages/call-types.js";

/** Counts a chat's or job's calls that ended badly (the chat log implements it). */
export interface OutcomeRecorder {
  recordOutcome(scope: GrantScope, status: CallStatus): void;
}

/** The broker's collaborators. Only the policy is needed; the rest have safe defaults. */
export interface BrokerOptions {
  /** The rule table, or a function giving the current one (the configuration may change). */
  readonly policy?: PolicyTable | (() => PolicyTable);
  readonly grants?: GrantStore;
  readonly approvals?: ApprovalBook;
  /** Without an approver, every ask is declined: nobody is there to say yes. */
  readonly approve?: Approver;
  readonly audit?: AuditSink;
  readonly outcomes?: OutcomeRecorder;
  /** Extensions' and shell hooks' say on each call; they can only narrow the rules' decision. */
  readonly hooks?: CallHooks | (() => CallHooks | undefined);
  readonly clock?: Clock;
}

/** Statuses the chat log counts as issues (docs/audit.md). */
const COUNTED: ReadonlySet<CallStatus> = new Set(["declined", "expired", "failed", "timed_out"]);

/**
 * The stages every call goes through, in order (docs/tools.md, "The call path"): each may
 * end the call; the after-hooks stage always does.
 */
export const CALL_STAGES: readonly CallStage[] = [
  prepareStage,
  beforeHooksStage,
  decideStage,
  narrowStage,
  askStage,
  executeStage,
];

/**
 * Every tool call goes through here: read the input once, classify it, let the policy
 * decide, ask a person when the policy says ask, run, and record each step in the audit
 * log. Nothing throws into the model's turn: every refusal is text starting with `HOST:`.
 */
export class Broker {
  readonly grants: GrantStore;
  readonly approvals: ApprovalBook;
  readonly #options: BrokerOptions;
  readonly #clock: Clock;
  readonly #policy: () => PolicyTable;

  constructor(options: BrokerOptions = {}) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    const policy = options.policy ?? new PolicyTable();
    this.#policy = typeof policy === "function" ? policy : () => policy;
    this.grants = options.grants ?? new MemoryGrantStore();
    this.approvals = options.approvals ?? new ApprovalBook({ clock: this.#clock });
  }

  /** The rule table in force now. */
  policy(): PolicyTable {
    return this.#policy();
  }

  /**
   * Calls `tool` with the model's raw input in `scope`: the stages in order, then the finished
   * event, inside one OpenTelemetry `execute_tool` span (a no-op unless an SDK is registered).
   */
  call(scope: CallScope, tool: AnyTool, raw: unknown, options: CallOptions = {}): Promise<ToolCallResult> {
    const requestId = randomUUID();
    return traceToolCall(
      { name: tool.name, callId: requestId, attributes: skillSpanAttributes(tool.name, raw) },
      () => this.#call(requestId, scope, tool, raw, options),
      (result) => ({ status: result.status }),
    );
  }

  async #call(
    requestId: string,
    scope: CallScope,
    tool: AnyTool,
    raw: unknown,
    options: CallOptions,
  ): Promise<ToolCallResult> {
    const started = this.#clock.now();
    const context = this.#context(requestId, scope, tool);
    let state = initialState(requestId, scope, tool, raw, options);
    for (const stage of CALL_STAGES) {
      const result = await stage(state, context);
      state = result.state;
      if (result.end !== undefined) return this.#finish(state, result.end, started, context);
    }
    const last = await afterHooksStage(state, context);
    return this.#finish(last.state, last.end, started, context);
  }

  /** The stages' view of this broker for one call: its collaborators and an audit recorder. */
  #context(requestId: string, scope: CallScope, tool: AnyTool): CallContext {
    const hooks = this.#hooks();
    return {
      policy: this.#policy,
      grants: this.grants,
      approvals: this.approvals,
      ...(this.#options.approve !== undefined ? { approve: this.#options.approve } : {}),
      ...(hooks !== undefined ? { hooks } : {}),
      record: (type, subject, extra = {}) =>
        this.#record({
          type,
          time: new Date(this.#clock.now()).toISOString(),
          requestId,
          scope: { kind: scope.kind, id: scope.id },
          tool: tool.name,
          tier: subject.tier,
          ...skillFields(subject),
          ...(type === "tool-call-classified" && subject.argv !== undefined ? { argv: subject.argv } : {}),
          ...extra,
        }),
    };
  }

  /** Records how the call ended, counts a bad outcome for the chat log, and makes the result. */
  #finish(state: CallState, ending: CallEnd, started: number, context: CallContext): ToolCallResult {
    const { decision, errorKind, status, text, approvalId } = ending;
    context.record("tool-call-finished", state.subject, {
      status,
      latencyMs: this.#clock.now() - started,
      ...(decision ? { rule: decision.rule, decision: decision.effect } : {}),
      ...(errorKind ? { errorKind } : {}),
    });
    if (COUNTED.has(status)) this.#options.outcomes?.recordOutcome(state.scope, status);
    return {
      requestId: state.requestId,
      text,
      status,
      ...(decision ? { decision } : {}),
      ...(approvalId !== undefined ? { approvalId } : {}),
    };
  }

  #hooks(): CallHooks | undefined {
    const hooks = this.#options.hooks;
    return typeof hooks === "function" ? hooks() : hooks;
  }

  #record(event: AuditEvent): void {
    try {
      this.#options.audit?.record(event);
    } catch {
      // The audit sink reports its own failures; a call is never stopped by one.
    }
  }
}

/**
 * The agent-skill attributes of the spans of loading a skill and reading a skill resource
 * (the GenAI conventions' specialised `execute_tool` spans): the skill's name and the
 * resource's path as the model named them, cut to 256 characters.
 */
function skillSpanAttributes(tool: string, raw: unknown): Record<string, string> {
  if ((tool !== "load_skill" && tool !== "read_skill_resource") || typeof raw !== "object" || raw === null)
    return {};
  const input = raw as { skill?: unknown; path?: unknown };
  return {
    ...(typeof input.skill === "string" ? { "gen_ai.skill.name": input.skill.slice(0, 256) } : {}),
    ...(tool === "read_skill_resource" && typeof input.path === "string"
      ? { "gen_ai.skill.resource.name": input.path.slice(0, 256) }
      : {}),
  };
}

function skillFields(subject: CallSubject): Partial<AuditEvent> {
  return {
    ...(subject.skill !== undefined ? { skill: subject.skill } : {}),
    ...(subject.hash !== undefined ? { hash8: subject.hash.slice(0, 8) } : {}),
  };
}
