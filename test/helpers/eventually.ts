import { setTimeout as sleep } from "node:timers/promises";
import { inspect } from "node:util";

/** How long {@link eventually} keeps trying, and how often. */
export interface EventuallyOptions {
  /** Give up after this long (default 10 s: the machine running the suite may be loaded). */
  readonly timeoutMs?: number;
  /** Pause between tries (default 20 ms). */
  readonly intervalMs?: number;
}

/**
 * Waits for something another process or a timer brings about, instead of sleeping a fixed
 * time and hoping: calls `check` until it passes, then returns what it returned. `check`
 * passes when it returns anything but `false` without throwing, so it may be a condition
 * (`() => existsSync(file)`) or hold assertions (`() => expect(left()).toEqual([])`).
 *
 * When `timeoutMs` runs out it throws one error naming `what` was awaited, for how long, and
 * the last value or assertion failure, so a failure says what did not happen.
 */
export async function eventually<T>(
  what: string,
  check: () => T | Promise<T>,
  options: EventuallyOptions = {},
): Promise<Exclude<T, false>> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const intervalMs = options.intervalMs ?? 20;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let last: string;
    try {
      const value = await check();
      if (value !== false) return value as Exclude<T, false>;
      last = "it was still false";
    } catch (error) {
      last = `the last try failed: ${error instanceof Error ? error.message : inspect(error)}`;
    }
    if (Date.now() >= deadline)
      throw new Error(`eventually: ${what} did not happen within ${timeoutMs} ms; ${last}`);
    await sleep(intervalMs);
  }
}
