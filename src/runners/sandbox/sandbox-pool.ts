import { onProcessExit } from "../../core/process-groups.js";
import { type LaunchShape, type PreparedLaunch, prepareLaunch } from "./prepared-launch.js";

/** Options of {@link SandboxPool}. */
export interface SandboxPoolOptions {
  /** How many shapes may each keep one sandbox started ahead (default 2); the least recently used goes first. */
  readonly shapes?: number;
}

// Launches kept ahead or being cleaned up, across every pool: when this process exits, their
// chains are killed and their cgroups removed (briefly waiting for the kernel), so an idle
// sandbox never outlives skillgate. A process killed outright leaves at most empty cgroups,
// which the next skillgate's detection sweeps.
const held = new Set<PreparedLaunch>();
let exitActionRegistered = false;

function installExitHook(): void {
  if (exitActionRegistered) return;
  exitActionRegistered = true;
  // One action for them all: every chain is killed before any cgroup is waited for.
  onProcessExit(() => {
    for (const launch of held) launch.chain.kill();
    for (const launch of held) launch.disposeNow();
  });
}

/**
 * Sandboxes started ahead of their runs, to take the host's side of a start off each run's
 * path: the spawn of the launch chain (setpriv and bubblewrap), the run's cgroups made and
 * the chain moved into them (the kernel makes a move wait several milliseconds), the
 * descriptor scan. bubblewrap waits reading its run's arguments on a pipe before it does
 * anything, so a chain kept ahead has no namespaces, mounts or script yet: it is one process
 * (uid 65534 when skillgate is root) holding its own, empty cgroups.
 *
 * Each launch serves one run: {@link take} hands it out once and forgets it; its cgroups
 * bear its own run id, and nothing else is ever moved into them. After a run answered, the
 * next launch of its shape is started ({@link refill}); runs that find none ready start one
 * of their own at once (as without a pool). The chains do not keep this process alive and
 * die with it; {@link close} kills them and waits until every cgroup is removed.
 */
export class SandboxPool {
  readonly #ready = new Map<string, PreparedLaunch>();
  readonly #scheduled = new Set<string>();
  readonly #cleanups = new Set<Promise<void>>();
  readonly #shapes: number;
  #closed = false;

  constructor(options: SandboxPoolOptions = {}) {
    this.#shapes = Math.max(1, Math.floor(options.shapes ?? 2));
  }

  /** True once {@link close} was called: nothing is started ahead any more. */
  get closed(): boolean {
    return this.#closed;
  }

  /** How many launches are kept ahead right now (for tests and doctor). */
  get size(): number {
    return this.#ready.size;
  }

  /**
   * The launch kept for this shape, if one is ready and alive. It leaves the pool for good:
   * the caller runs it or disposes of it. Wait for its `joined` before writing its arguments.
   */
  take(key: string): PreparedLaunch | undefined {
    const launch = this.#ready.get(key);
    if (launch === undefined) return undefined;
    this.#ready.delete(key);
    if (!launch.chain.alive()) {
      this.retire(launch);
      return undefined;
    }
    launch.chain.hold(true);
    return launch;
  }

  /**
   * Starts the next launch of this shape ahead, after the current turn of the event loop (so
   * the run that calls it answers first), unless one is ready or scheduled, or the pool is
   * closed. A launch that cannot be made, or put in its cgroups, is dropped; runs then start
   * their own.
   */
  refill(shape: LaunchShape): void {
    if (this.#closed || this.#ready.has(shape.key) || this.#scheduled.has(shape.key)) return;
    this.#scheduled.add(shape.key);
    setImmediate(() => {
      this.#scheduled.delete(shape.key);
      if (this.#closed || this.#ready.has(shape.key)) return;
      const launch = prepareLaunch(shape);
      if ("error" in launch) return;
      installExitHook();
      held.add(launch);
      launch.chain.hold(false);
      this.#ready.set(shape.key, launch);
      void launch.joined.then((joined) => {
        if (joined || this.#ready.get(shape.key) !== launch) return;
        this.#ready.delete(shape.key);
        this.retire(launch);
      });
      for (const [key, oldest] of this.#ready) {
        if (this.#ready.size <= this.#shapes) break;
        this.#ready.delete(key);
        this.retire(oldest);
      }
    });
  }

  /**
   * Kills a launch if it still runs and removes its cgroups in the background: a finished
   * run's cleanup, after it answered. {@link close} waits for it.
   */
  retire(launch: PreparedLaunch): void {
    installExitHook();
    held.add(launch);
    const cleanup = launch.dispose().finally(() => {
      held.delete(launch);
      this.#cleanups.delete(cleanup);
    });
    this.#cleanups.add(cleanup);
  }

  /**
   * Stops starting launches ahead, kills the ones kept, and resolves once every launch the
   * pool handled is gone with its cgroups. Runs still going keep running (and are cleaned up
   * before this resolves only if they finished first); later runs start their own.
   */
  async close(): Promise<void> {
    this.#closed = true;
    for (const launch of this.#ready.values()) this.retire(launch);
    this.#ready.clear();
    while (this.#cleanups.size > 0) await Promise.allSettled([...this.#cleanups]);
  }
}
