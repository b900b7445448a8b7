import { refuse, type StepResult } from "./invocation.js";

/**
 * Step 4, the timeout and concurrency guard. Each call takes one slot of its capability and
 * one of its provider before it runs; a call over either limit is refused at once with
 * `capability_busy` (never queued: a caller retries, and a slow provider cannot pile calls up).
 * A call that outlives its timeout answers `capability_timeout` and its provider's signal is
 * aborted; the slots are given back only when the provider's promise settles, so a provider that
 * ignores its signal keeps counting against the limits until it really stops. The caller's own
 * signal aborting ends the call as `capability_interrupted`.
 */

/** Per-capability slots when the owner set none: 16. */
export const DEFAULT_CAPABILITY_CONCURRENCY = 16;

/** Options of {@link ConcurrencyGuard}. */
export interface ConcurrencyGuardOptions {
  /** The most calls of one capability at once, over all its providers (default {@link DEFAULT_CAPABILITY_CONCURRENCY}). */
  readonly capabilityLimit?: (capability: string) => number;
}

/** What one guarded call is: its keys, limits and timeout. */
export interface GuardedCall {
  readonly capability: string;
  readonly provider: string;
  /** The provider's `limits.maxConcurrency`. */
  readonly providerLimit: number;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

/** The reason a guarded call's signal is aborted with on timeout. */
export class CapabilityTimeoutSignal extends Error {
  constructor(timeoutMs: number) {
    super(`the capability call timed out after ${timeoutMs} ms`);
    this.name = "CapabilityTimeoutSignal";
  }
}

/** Counts running calls per capability and per provider, and runs each within its timeout. */
export class ConcurrencyGuard {
  readonly #capabilityLimit: (capability: string) => number;
  readonly #running = new Map<string, number>();

  constructor(options: ConcurrencyGuardOptions = {}) {
    this.#capabilityLimit = options.capabilityLimit ?? (() => DEFAULT_CAPABILITY_CONCURRENCY);
  }

  /** Calls running now of a capability (`capability:NAME`) or a provider (`provider:ID`). */
  running(key: string): number {
    return this.#running.get(key) ?? 0;
  }

  /**
   * Runs `task` in a slot, with a signal aborted on timeout or when the caller's aborts.
   * `task` may throw: the throw is passed back as `failed` with the error.
   */
  async run<Value>(
    call: GuardedCall,
    task: (signal: AbortSignal) => Promise<Value>,
  ): Promise<StepResult<Value> | { readonly ok: "thrown"; readonly error: unknown }> {
    const capabilityKey = `capability:${call.capability}`;
    const providerKey = `provider:${call.provider}`;
    if (call.signal?.aborted) return interrupted();
    if (this.running(capabilityKey) >= this.#capabilityLimit(call.capability))
      return refuse(
        "capability_busy",
        `HOST: ${JSON.stringify(call.capability)} is busy (too many calls at once); try again shortly.`,
      );
    if (this.running(providerKey) >= Math.max(1, call.providerLimit))
      return refuse(
        "capability_busy",
        `HOST: provider ${JSON.stringify(call.provider)} is busy (${call.providerLimit} at once); try again shortly.`,
      );
    this.#add(capabilityKey, 1);
    this.#add(providerKey, 1);
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    // Set before the provider's signal is aborted, so the provider's reaction to it (a throw)
    // never decides how the call ended: the timeout or the interruption does.
    let ended: StepResult<Value> | undefined;
    const stopped = new Promise<StepResult<Value>>((settle) => {
      timer = setTimeout(() => {
        ended = refuse(
          "capability_timeout",
          `HOST: ${JSON.stringify(call.capability)} did not answer within ${call.timeoutMs} ms; it was stopped.`,
        );
        settle(ended);
        controller.abort(new CapabilityTimeoutSignal(call.timeoutMs));
      }, call.timeoutMs);
      onAbort = () => {
        ended = interrupted();
        settle(ended);
        controller.abort(call.signal?.reason);
      };
      call.signal?.addEventListener("abort", onAbort, { once: true });
    });
    const work = (async () => task(controller.signal))();
    // The slots are held until the provider really stops, whatever the caller was answered.
    void work
      .catch(() => undefined)
      .finally(() => {
        this.#add(capabilityKey, -1);
        this.#add(providerKey, -1);
      });
    try {
      return await Promise.race([
        work.then(
          (value): StepResult<Value> => ended ?? { ok: true, value },
          (error: unknown) => ended ?? { ok: "thrown" as const, error },
        ),
        stopped,
      ]);
    } finally {
      clearTimeout(timer);
      if (onAbort !== undefined) call.signal?.removeEventListener("abort", onAbort);
    }
  }

  #add(key: string, step: number): void {
    const count = (this.#running.get(key) ?? 0) + step;
    if (count <= 0) this.#running.delete(key);
    else this.#running.set(key, count);
  }
}

function interrupted<Value>(): StepResult<Value> {
  return refuse("capability_interrupted", "HOST: the call was stopped before the capability answered.");
}
