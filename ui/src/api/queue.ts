import { apiRequest } from "./client.js";

/** One live worker of the pool. */
export interface QueueWorker {
  readonly name: string;
  readonly host: string;
  readonly pid?: number;
  readonly concurrency: number;
  readonly running: number;
  readonly lastSeen: string;
  readonly stopping: boolean;
}

/** The worker pool's counts and workers (`GET /api/queue`). */
export interface QueueStatus {
  readonly backend: "local" | "redis";
  readonly counts: {
    readonly waiting: number;
    readonly active: number;
    readonly done: number;
    readonly interrupted: number;
    readonly failed: number;
  };
  readonly workers: readonly QueueWorker[];
  readonly capacity: number;
}

/** The worker pool's status. */
export function getQueueStatus(): Promise<QueueStatus> {
  return apiRequest("/queue");
}
