/** How failed logins are limited. */
export interface LoginAttemptLimits {
  /** Failed attempts allowed per client address within one window (default 10). */
  readonly maxFailures?: number;
  /** The window, in milliseconds (default one minute). */
  readonly windowMs?: number;
}

interface Window {
  readonly startedAt: number;
  failures: number;
}

/**
 * Failed logins (a wrong bearer token, a wrong login link) counted per client address in a
 * fixed window. Past the limit, every attempt from that address is refused until the window
 * ends, right token or not, so guessing costs a window per few tries. Behind a reverse proxy
 * every client shares the proxy's address (docs/server.md, "Behind a TLS reverse proxy").
 */
export class LoginAttempts {
  readonly #maxFailures: number;
  readonly #windowMs: number;
  readonly #windows = new Map<string, Window>();
  readonly #now: () => number;

  constructor(limits: LoginAttemptLimits = {}, now: () => number = Date.now) {
    this.#maxFailures = limits.maxFailures ?? 10;
    this.#windowMs = limits.windowMs ?? 60_000;
    this.#now = now;
  }

  /** Milliseconds until `client` may try again; 0 when it may try now. */
  retryAfterMs(client: string): number {
    const window = this.#current(client);
    if (window === undefined || window.failures < this.#maxFailures) return 0;
    return window.startedAt + this.#windowMs - this.#now();
  }

  /** Counts one failed attempt of `client`. */
  recordFailure(client: string): void {
    const window = this.#current(client);
    if (window !== undefined) window.failures += 1;
    else this.#windows.set(client, { startedAt: this.#now(), failures: 1 });
    if (this.#windows.size > 10_000) this.#forgetEnded();
  }

  #current(client: string): Window | undefined {
    const window = this.#windows.get(client);
    if (window === undefined) return undefined;
    if (this.#now() - window.startedAt >= this.#windowMs) {
      this.#windows.delete(client);
      return undefined;
    }
    return window;
  }

  /** Keeps the table bounded when many addresses fail (a scan). */
  #forgetEnded(): void {
    const now = this.#now();
    for (const [client, window] of this.#windows)
      if (now - window.startedAt >= this.#windowMs) this.#windows.delete(client);
  }
}
