import type { QueueRequest } from "../contract.js";
import type { RequestSeal } from "../local/request-seal.js";

/** The BullMQ job name of every run. */
export const WORK_JOB_NAME = "run";

/**
 * The controller's mark on a request, the same on both backends: an HMAC-SHA256 of the
 * request's canonical JSON with the controller's key (`<data>/queue/seal.key`). A worker on
 * another host is given a copy of that key; anyone who can write to Redis but lacks it cannot
 * make a changed job's mark match.
 */
export type RequestSealer = Pick<RequestSeal, "seal" | "verify">;

/**
 * A job's data: the request, the controller's mark over it and, when the owner set one, the
 * skill's pool-wide concurrency limit (not under the mark: changing it changes only how many
 * run at once). A worker trusts none of it before the mark checks out.
 */
export interface RedisJobData {
  readonly request: QueueRequest;
  readonly seal: string;
  readonly skillConcurrency?: number;
}
