import type { QueueRequest } from "../contract.js";

/** The BullMQ job name of every run. */
export const WORK_JOB_NAME = "run";

/**
 * A job's data: the request, the controller's mark over it (request-seal.ts) and, when the
 * owner set one, the skill's pool-wide concurrency limit. A worker trusts none of it before
 * the mark checks out.
 */
export interface RedisJobData {
  readonly request: QueueRequest;
  readonly seal: string;
  readonly skillConcurrency?: number;
}
