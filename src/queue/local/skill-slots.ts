import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { FOLDER_MODE } from "../../core/durable-fs.js";
import { type HeldLock, tryLock } from "../../core/file-lock.js";
import type { QueueLayout } from "./layout.js";

/**
 * Per-skill concurrency across every worker of the local queue: a skill limited to N runs at
 * once has N slot locks, `queue/slots/<skill>/<0..N-1>`. A worker takes a free slot before
 * it claims a request of that skill and holds it (refreshed with its heartbeat) until the
 * answer is written; a dead worker's slot is free again once its lock is stale.
 */
export class SkillSlots {
  readonly #layout: QueueLayout;
  readonly #staleMs: number;
  readonly #held = new Set<HeldLock>();

  constructor(layout: QueueLayout, staleMs: number) {
    this.#layout = layout;
    this.#staleMs = staleMs;
  }

  /** A free slot of `skill` out of `limit`, or undefined when all are taken. */
  take(skill: string, limit: number): HeldLock | undefined {
    const folder = join(this.#layout.slots, skill);
    mkdirSync(folder, { recursive: true, mode: FOLDER_MODE });
    for (let index = 0; index < limit; index += 1) {
      const lock = tryLock(join(folder, String(index)), { staleMs: this.#staleMs });
      if (lock !== undefined) {
        this.#held.add(lock);
        return lock;
      }
    }
    return undefined;
  }

  /** Gives a slot back. */
  release(lock: HeldLock): void {
    this.#held.delete(lock);
    lock.release();
  }

  /** Marks every held slot as still in use (the worker's heartbeat). */
  refresh(): void {
    for (const lock of this.#held) lock.refresh();
  }
}
