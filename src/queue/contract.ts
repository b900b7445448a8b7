import type { JsonValue } from "../core/safe-json.js";
import type { NetworkMode } from "../skill/governance.js";

/**
 * The worker pool's one contract (docs/queue.md), kept by both backends: the embedded file
 * queue in the data folder (`local`) and BullMQ on Redis (`redis`). A request runs at most
 * once (DESIGN.md invariant 8): a request claimed and not answered before its worker died
 * is answered `interrupted` and never handed out again.
 */

/** What a queued run carries: no folder, no command, nothing a worker must trust beyond its own verified copy. */
export interface QueueRequest {
  readonly requestId: string;
  readonly skill: string;
  /** The full content hash the call was approved against. */
  readonly hash: string;
  /** Relative to the skill folder. */
  readonly script: string;
  readonly arguments: { readonly [key: string]: JsonValue };
  readonly argv?: readonly string[];
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  /** `none`: no network at all; `bridge`: only {@link allowedDomains}, through skillgate's filtering proxy. */
  readonly network: NetworkMode;
  readonly allowedDomains: readonly string[];
  /** When the controller accepted it (ISO 8601). */
  readonly submittedAt: string;
}

/** How a queued request ended. `interrupted`: claimed, then its worker (or the queue) went away; it never runs again. */
export type QueueOutcomeStatus = "ok" | "failed" | "timed_out" | "interrupted" | "refused" | "cancelled";

/** The one answer to a request. */
export interface QueueResponse {
  readonly requestId: string;
  readonly status: QueueOutcomeStatus;
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly stdoutTruncated: boolean;
  readonly stderrTruncated: boolean;
  readonly durationMs: number;
  /** For `refused` and `interrupted`: a stable code and the `HOST:` text a model is shown. */
  readonly code?: string;
  readonly message?: string;
  /** The worker that answered, when one did. */
  readonly worker?: { readonly name: string; readonly host: string };
  readonly finishedAt: string;
}

/** Counts and workers, for `skillgate queue status`, `/api/queue` and the UI. */
export interface QueueStatus {
  readonly backend: "local" | "redis";
  readonly counts: {
    readonly waiting: number;
    readonly active: number;
    readonly done: number;
    readonly interrupted: number;
    readonly failed: number;
  };
  readonly workers: readonly QueueWorkerInfo[];
  /** The bound on waiting requests; a submit beyond it is refused (`queue_full`). */
  readonly capacity: number;
}

/** One worker as the queue knows it. */
export interface QueueWorkerInfo {
  readonly name: string;
  readonly host: string;
  readonly pid?: number;
  readonly concurrency: number;
  readonly running: number;
  readonly lastSeen: string;
  /** True while it finishes its running jobs and takes no new ones. */
  readonly stopping: boolean;
  /** How often it says it is alive; it is judged dead after 3 of these in silence. */
  readonly heartbeatMs?: number;
}

/** The controller's side of a backend. */
export interface QueueClient {
  /**
   * Accepts a request or throws a `SkillgateError`: `queue_full` past the bound,
   * `queue_unavailable` when the backend cannot be reached (never hangs past a short timeout).
   */
  submit(request: QueueRequest): Promise<void>;
  /**
   * Resolves with the request's one answer; the signal cancels the request (the worker stops
   * the run). `options.stopWaiting` only stops this wait (it rejects with an `AbortError`) and
   * leaves the request alone: a controller shutting down, an answer collected later.
   */
  waitFor(requestId: string, signal?: AbortSignal, options?: QueueWaitOptions): Promise<QueueResponse>;
  status(): Promise<QueueStatus>;
  /**
   * Optional, cheap: whether any worker is alive and taking requests now. The controller refuses
   * a run at once (`queue_no_worker`) when it says false, instead of waiting for nobody.
   */
  hasLiveWorker?(): Promise<boolean>;
  close(): Promise<void>;
}

/** How a {@link QueueClient.waitFor} may end early without cancelling. */
export interface QueueWaitOptions {
  readonly stopWaiting?: AbortSignal;
}

/** A claimed request as a worker holds it. */
export interface ClaimedRequest {
  readonly request: QueueRequest;
  /** Aborts when the controller cancels the request or the worker stops hard. */
  readonly signal: AbortSignal;
  /** Answers the request, exactly once; a second answer is ignored. */
  answer(response: QueueResponse): Promise<void>;
}

/** The worker's side of a backend. */
export interface QueueWorkerSource {
  /** Calls `handle` for each claimed request, up to `concurrency` at once, until {@link stop}. */
  start(handle: (claimed: ClaimedRequest) => Promise<void>, concurrency: number): Promise<void>;
  /** Takes no new requests; resolves when the running ones were answered. */
  stop(): Promise<void>;
}
