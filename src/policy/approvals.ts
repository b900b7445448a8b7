import { randomUUID } from "node:crypto";
import { type Clock, systemClock } from "../core/clock.js";
import { canonicalJson } from "../core/hashing.js";
import type { ToolTier } from "./tiers.js";

/** How a person may answer an approval request. */
export type ApprovalAnswer = "once" | "always-chat" | "always-job" | "decline";

/** What a person is asked to approve. */
export interface ApprovalRequest {
  readonly id: string;
  readonly tool: string;
  readonly tier: ToolTier;
  /** Who asked: the chat or job the call was made in. */
  readonly scope: { readonly kind: "chat" | "job"; readonly id: string };
  /**
   * What will run, in words: the skill and script, and a script's `argv` (its command line),
   * never the rest of the arguments' content.
   */
  readonly summary: string;
  readonly skill?: string;
  /** The skill's full content hash at the time of asking. */
  readonly hash?: string;
  /** The grant an "always" answer stores. */
  readonly grant?: string;
  /** A warning shown for destructive calls. */
  readonly warning?: string;
  /** What exactly is approved, when there is more than the summary (an edit plan's diff). */
  readonly detail?: string;
  /** An id of what is approved (an edit plan's id), for approving it elsewhere. */
  readonly reference?: string;
  /**
   * SHA-256 of the call's normalised input as canonical JSON: an answer given out of band
   * applies to a later call only when its input has the same digest.
   */
  readonly inputDigest?: string;
  /** The policy rule whose ask this is (after hooks and the approval policy narrowed the decision). */
  readonly rule?: string;
  /**
   * The call's arguments as canonical JSON text, for the owner who answers (the web UI's asks
   * page): at most {@link MAX_APPROVAL_ARGUMENTS_CHARS} characters, longer ones cut and ending
   * in `…`. Never part of the summary, which chat channels show.
   */
  readonly arguments?: string;
  /** The answers offered: `edit_skill` is never offered "always". */
  readonly options: readonly ApprovalAnswer[];
  readonly createdAt: number;
  readonly expiresAt: number;
}

/** The longest arguments text an approval request keeps (16 KiB of characters). */
export const MAX_APPROVAL_ARGUMENTS_CHARS = 16 * 1024;

/** `value` as canonical JSON, cut to {@link MAX_APPROVAL_ARGUMENTS_CHARS} with a final `…`. */
export function approvalArgumentsText(value: unknown): string {
  const text = canonicalJson(value ?? null);
  return text.length <= MAX_APPROVAL_ARGUMENTS_CHARS
    ? text
    : `${text.slice(0, MAX_APPROVAL_ARGUMENTS_CHARS - 1)}…`;
}

/** Default life of an approval request: 10 minutes. */
export const DEFAULT_APPROVAL_TTL_MS = 10 * 60 * 1000;

/** The answers offered for a call: "always" needs a grant and is never offered for `edit_skill`. */
export function approvalOptions(
  tool: string,
  grant: string | undefined,
  scope: "chat" | "job",
): ApprovalAnswer[] {
  if (tool === "edit_skill" || grant === undefined) return ["once", "decline"];
  return ["once", scope === "chat" ? "always-chat" : "always-job", "decline"];
}

/** The warning text a destructive call carries. */
export function destructiveWarning(summary: string): string {
  return `This is a destructive action: ${summary}. It may delete or overwrite data and cannot be undone by skillgate.`;
}

/** Everything needed to make a request, before it gets an id and times. */
export type ApprovalRequestInit = Omit<
  ApprovalRequest,
  "id" | "createdAt" | "expiresAt" | "options" | "warning"
>;

/**
 * Approval requests waiting for an answer, with expiry. A request answered after it
 * expired counts as `expired`, never as approved.
 */
export class ApprovalBook {
  readonly #pending = new Map<string, ApprovalRequest>();
  readonly #clock: Clock;
  readonly #ttl: number;

  constructor(options: { clock?: Clock; ttlMs?: number } = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#ttl = options.ttlMs ?? DEFAULT_APPROVAL_TTL_MS;
  }

  /** Opens a request. */
  open(init: ApprovalRequestInit): ApprovalRequest {
    const now = this.#clock.now();
    const request: ApprovalRequest = {
      ...init,
      id: randomUUID(),
      options: approvalOptions(init.tool, init.grant, init.scope.kind),
      ...(init.tier === "destructive" ? { warning: destructiveWarning(init.summary) } : {}),
      createdAt: now,
      expiresAt: now + this.#ttl,
    };
    this.#pending.set(request.id, request);
    return request;
  }

  /** Requests still open, oldest first; expired ones are dropped. */
  pending(): ApprovalRequest[] {
    this.#dropExpired();
    return [...this.#pending.values()].sort((left, right) => left.createdAt - right.createdAt);
  }

  /** A request by id, if it is still open. */
  get(id: string): ApprovalRequest | undefined {
    this.#dropExpired();
    return this.#pending.get(id);
  }

  /**
   * Records an answer. Returns `expired` when the request is gone or past its time,
   * `invalid` when the answer was not offered, else the answer.
   */
  answer(id: string, answer: ApprovalAnswer): ApprovalAnswer | "expired" | "invalid" {
    const request = this.#pending.get(id);
    if (request === undefined) return "expired";
    if (this.#clock.now() >= request.expiresAt) {
      this.#pending.delete(id);
      return "expired";
    }
    if (!request.options.includes(answer)) return "invalid";
    this.#pending.delete(id);
    return answer;
  }

  #dropExpired(): void {
    const now = this.#clock.now();
    for (const [id, request] of this.#pending) if (now >= request.expiresAt) this.#pending.delete(id);
  }
}
