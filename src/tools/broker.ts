import { randomUUID } from "node:crypto";
import { type Clock, systemClock } from "../core/clock.js";
import { describeError } from "../core/errors.js";
import { canonicalJson, sha256Hex } from "../core/hashing.js";
import type { AuditEvent, AuditSink, CallStatus } from "../observe/events.js";
import { type ApprovalAnswer, ApprovalBook, type ApprovalRequest } from "../policy/approvals.js";
import { type PolicyDecision, PolicyTable } from "../policy/decide.js";
import { type GrantScope, type GrantStore, MemoryGrantStore } from "../policy/grants.js";
import type { TurnMode } from "../policy/tiers.js";
import { grant as grantKey } from "../skill/content-hash.js";
import { type BeforeToolVerdict, type CallHooks, narrowByHooks } from "./call-hooks.js";
import { awaitingText, denialText, errorKind, hostText, splitOutput } from "./call-texts.js";
import type { AnyTool, CallSubject } from "./tool.js";

/**
 * Asks a person about a call. Resolves with their answer, `expired` when nobody answered in
 * time, or `deferred` when the answer will come out of band (the owner runs
 * `skillgate approve ID`): the call then does not run and the model is told to make the same
 * call again once approved. `{ deferred: id }` defers to a request already waiting under
 * another id (the model retried before the owner answered), so the model is told that id.
 */
export type Approver = (
  request: ApprovalRequest,
  call: CallOptions,
) => Promise<ApprovalAnswer | "expired" | "deferred" | { readonly deferred: string }>;

/** What a surface passes with one call. */
export interface CallOptions {
  /** Stops the call's run (and an ask the approver can cancel). */
  readonly signal?: AbortSignal;
  /**
   * Handed to the approver untouched, for a surface that asks in its own way: the MCP
   * surface passes the protocol request the call answers, so an elicitation travels with it.
   */
  readonly caller?: unknown;
}

/** Counts a chat's or job's calls that ended badly (the chat log implements it). */
export interface OutcomeRecorder {
  recordOutcome(scope: GrantScope, status: CallStatus): void;
}

/** Where a call is made: a chat or a job, in a mode. */
export interface CallScope extends GrantScope {
  readonly mode: TurnMode;
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

/** The outcome of one call: what the model is shown and how the call ended. */
export interface ToolCallResult {
  readonly requestId: string;
  readonly text: string;
  readonly status: CallStatus;
  readonly decision?: PolicyDecision;
  /** For `awaiting_approval`: the approval request the owner answers (`skillgate approve ID`). */
  readonly approvalId?: string;
}

/** Statuses the chat log counts (seed 000, "Chat issues"). */
const COUNTED: ReadonlySet<CallStatus> = new Set(["declined", "expired", "failed", "timed_out"]);

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

  /** Calls `tool` with the model's raw input in `scope`. */
  async call(
    scope: CallScope,
    tool: AnyTool,
    raw: unknown,
    options: CallOptions = {},
  ): Promise<ToolCallResult> {
    const requestId = randomUUID();
    const started = this.#clock.now();
    const event = (type: AuditEvent["type"], subject: CallSubject, extra: Partial<AuditEvent> = {}): void =>
      this.#record({
        type,
        time: new Date(this.#clock.now()).toISOString(),
        requestId,
        scope: { kind: scope.kind, id: scope.id },
        tool: tool.name,
        tier: subject.tier,
        ...skillFields(subject),
        ...extra,
      });
    const finish = (
      subject: CallSubject,
      text: string,
      status: CallStatus,
      decision?: PolicyDecision,
      errorKind?: string,
    ): ToolCallResult => {
      event("tool-call-finished", subject, {
        status,
        latencyMs: this.#clock.now() - started,
        ...(decision ? { rule: decision.rule, decision: decision.effect } : {}),
        ...(errorKind ? { errorKind } : {}),
      });
      if (COUNTED.has(status)) this.#options.outcomes?.recordOutcome(scope, status);
      return { requestId, text, status, ...(decision ? { decision } : {}) };
    };

    let prepared: Awaited<ReturnType<AnyTool["prepare"]>>;
    try {
      prepared = await tool.prepare(raw);
    } catch (error) {
      const subject: CallSubject = { tier: "change", summary: `call ${tool.name}` };
      return finish(
        subject,
        `HOST: ${tool.name} could not read its input (${describeError(error)}).`,
        "failed",
        undefined,
        errorKind(error),
      );
    }
    let subject = prepared.subject ?? { tier: "change" as const, summary: `call ${tool.name}` };
    event("tool-call-classified", subject);
    if (!prepared.ok) return finish(subject, prepared.message, "refused", undefined, "invalid_input");

    const hooks = this.#hooks();
    let args = plainArguments(raw);
    let verdict: BeforeToolVerdict = {};
    if (hooks !== undefined) {
      verdict = await hooks.beforeTool({
        scope: scopeOf(scope),
        tool: tool.name,
        args,
        ...hookSubject(subject),
      });
      if (verdict.args !== undefined && verdict.deny === undefined) {
        // Replaced arguments are read exactly as the model's were: normalised, validated, classified.
        args = verdict.args;
        try {
          prepared = await tool.prepare(verdict.args);
        } catch (error) {
          return finish(subject, hostText(error), "refused", undefined, errorKind(error));
        }
        subject = prepared.subject ?? subject;
        event("tool-call-classified", subject);
        if (!prepared.ok) return finish(subject, prepared.message, "refused", undefined, "invalid_input");
      }
    }

    const grant =
      subject.skill !== undefined && subject.hash !== undefined
        ? grantKey(subject.skill, subject.hash)
        : undefined;
    const decision = this.policy().decide(
      {
        tool: tool.name,
        tier: subject.tier,
        mode: scope.mode,
        ...(subject.skill !== undefined ? { skill: subject.skill } : {}),
        ...(grant !== undefined ? { grant } : {}),
        ...(subject.skillRunnable !== undefined ? { skillRunnable: subject.skillRunnable } : {}),
        ...(subject.draftTargetLocked !== undefined ? { draftTargetLocked: subject.draftTargetLocked } : {}),
      },
      lazyGrants(this.grants, scope),
    );
    event("policy-decided", subject, { rule: decision.rule, decision: decision.effect });
    if (decision.effect === "deny") return finish(subject, denialText(decision, subject), "denied", decision);

    const narrowed = await narrowByHooks(decision, verdict, hooks, {
      tool: tool.name,
      tier: subject.tier,
      args,
      scope: scopeOf(scope),
      ...(subject.skill !== undefined ? { skill: subject.skill } : {}),
    });
    if (narrowed !== decision)
      event("policy-narrowed", subject, { rule: narrowed.rule, decision: narrowed.effect });
    if (narrowed.effect === "deny")
      return finish(subject, `HOST: not allowed: ${narrowed.description}.`, "denied", narrowed);

    if (narrowed.effect === "ask") {
      let approval: { detail: string; reference: string } | undefined;
      try {
        approval = await subject.prepareApproval?.();
      } catch (error) {
        return finish(subject, hostText(error), "refused", decision, errorKind(error));
      }
      const answer = await this.#ask(
        scope,
        tool.name,
        subject,
        grant,
        approval,
        prepared.input,
        event,
        hooks,
        options,
      );
      if (typeof answer === "object")
        return {
          ...finish(subject, awaitingText(answer.deferred), "awaiting_approval", decision),
          approvalId: answer.deferred,
        };
      if (answer === "expired")
        return finish(
          subject,
          "HOST: the approval request expired before anyone answered; the call did not run.",
          "expired",
          decision,
        );
      if (answer === "decline")
        return finish(
          subject,
          "HOST: the person declined this call; it did not run. Do not retry it unless they ask.",
          "declined",
          decision,
        );
      if ((answer === "always-chat" || answer === "always-job") && grant !== undefined)
        this.grants.addGrant(scope, grant);
    }

    try {
      const output = await tool.execute(prepared.input, {
        requestId,
        scope: { kind: scope.kind, id: scope.id },
        ...(options.signal ? { signal: options.signal } : {}),
      });
      const { text, status } = splitOutput(output);
      const rewritten = await hooks?.afterTool({
        scope: scopeOf(scope),
        tool: tool.name,
        args,
        ...hookSubject(subject),
        result: text,
        status,
      });
      return finish(subject, rewritten ?? text, status, decision);
    } catch (error) {
      return finish(
        subject,
        `HOST: ${tool.name} failed: ${describeError(error)}`,
        "failed",
        decision,
        errorKind(error),
      );
    }
  }

  async #ask(
    scope: CallScope,
    tool: string,
    subject: CallSubject,
    grant: string | undefined,
    approval: { detail: string; reference: string } | undefined,
    input: unknown,
    event: (type: AuditEvent["type"], subject: CallSubject, extra?: Partial<AuditEvent>) => void,
    hooks: CallHooks | undefined,
    call: CallOptions,
  ): Promise<ApprovalAnswer | "expired" | { deferred: string }> {
    const request = this.approvals.open({
      tool,
      tier: subject.tier,
      scope: { kind: scope.kind, id: scope.id },
      summary: subject.summary,
      ...(subject.skill !== undefined ? { skill: subject.skill } : {}),
      ...(subject.hash !== undefined ? { hash: subject.hash } : {}),
      ...(grant !== undefined ? { grant } : {}),
      ...(approval !== undefined ? { detail: approval.detail, reference: approval.reference } : {}),
      inputDigest: sha256Hex(canonicalJson(input ?? null)),
    });
    event("approval-requested", subject);
    await hooks?.approvalAsked({ scope: scopeOf(scope), request });
    let answer: ApprovalAnswer | "expired" | "invalid";
    try {
      const given = this.#options.approve
        ? await withDeadline(this.#options.approve(request, call), request.expiresAt - request.createdAt)
        : "decline";
      if (given === "deferred" || typeof given === "object") {
        event("approval-answered", subject, { answer: "deferred" });
        await hooks?.approvalAsked({ scope: scopeOf(scope), request, answer: "deferred" });
        return { deferred: typeof given === "object" ? given.deferred : request.id };
      }
      answer = given === "expired" ? "expired" : this.approvals.answer(request.id, given);
    } catch {
      answer = "decline";
    }
    // An answer that was not offered (say "always" for edit_skill) counts as a decline.
    const final = answer === "invalid" ? "decline" : answer;
    event("approval-answered", subject, { answer: final });
    await hooks?.approvalAsked({ scope: scopeOf(scope), request, answer: final });
    return final;
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

/** The approver's answer, or `expired` once the request's life has run out in real time. */
async function withDeadline<Answer>(answer: Promise<Answer>, lifeMs: number): Promise<Answer | "expired"> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<"expired">((resolve) => {
    timer = setTimeout(() => resolve("expired"), Math.max(0, lifeMs));
    timer.unref();
  });
  try {
    return await Promise.race([answer, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

function scopeOf(scope: CallScope): { kind: "chat" | "job"; id: string } {
  return { kind: scope.kind, id: scope.id };
}

function hookSubject(subject: CallSubject): { tier: CallSubject["tier"]; skill?: string } {
  return { tier: subject.tier, ...(subject.skill !== undefined ? { skill: subject.skill } : {}) };
}

/** The model's input as hooks see it: the object it sent (or an empty one for anything else). */
function plainArguments(raw: unknown): Readonly<Record<string, unknown>> {
  return raw !== null && typeof raw === "object" && !Array.isArray(raw)
    ? (raw as Record<string, unknown>)
    : {};
}

function skillFields(subject: CallSubject): Partial<AuditEvent> {
  return {
    ...(subject.skill !== undefined ? { skill: subject.skill } : {}),
    ...(subject.hash !== undefined ? { hash8: subject.hash.slice(0, 8) } : {}),
  };
}

/**
 * The policy's context with the scope's grants read only when a rule asks for them (only
 * change and destructive calls can be allowed by a grant): a read costs no grants query.
 */
function lazyGrants(store: GrantStore, scope: GrantScope): { readonly grants: ReadonlySet<string> } {
  let grants: ReadonlySet<string> | undefined;
  return {
    get grants() {
      grants ??= store.grants(scope);
      return grants;
    },
  };
}
