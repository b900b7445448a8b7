import { describeError } from "../../core/errors.js";
import type { Logger } from "../../observe/logger.js";
import { HEARTBEAT_INTERVAL_MS, type Heartbeat, type HeartbeatResponse } from "../protocol.js";

/** Options of {@link HeartbeatLoop}. */
export interface HeartbeatLoopOptions {
  /** Sends one heartbeat (`POST AGENT_ROUTES.heartbeat`); a rejection is logged and retried at the next beat. */
  readonly send: (heartbeat: Heartbeat) => Promise<HeartbeatResponse>;
  /** The heartbeat as it is now: features, held skills, runs in flight. */
  readonly current: () => Heartbeat;
  /** Told the controller's answer (its manifest sequence: an agent behind it syncs). */
  readonly onResponse?: (response: HeartbeatResponse) => void;
  readonly logger: Logger;
  /** Default {@link HEARTBEAT_INTERVAL_MS}. */
  readonly intervalMs?: number;
}

/**
 * The agent's heartbeat: one every 15 s, and one as soon as what it says changes (a sync
 * installed or removed a skill, a run started or ended). Beats never overlap: a change
 * during a beat sends one more right after it. A beat that fails is logged once per outage
 * and the next one is tried on schedule.
 */
export class HeartbeatLoop {
  readonly #options: HeartbeatLoopOptions;
  #timer: NodeJS.Timeout | undefined;
  #sending: Promise<void> | undefined;
  #again = false;
  #failing = false;
  #stopped = true;
  #lastSent = "";
  #soon: NodeJS.Timeout | undefined;

  constructor(options: HeartbeatLoopOptions) {
    this.#options = options;
  }

  /** Sends a beat now and then every interval. */
  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.beat();
  }

  /** A beat now if what the heartbeat says differs from the last one sent. */
  changed(): void {
    if (this.#stopped) return;
    if (JSON.stringify(this.#options.current()) !== this.#lastSent) this.beat();
  }

  /**
   * {@link changed} after `delayMs`, once however often it is called meanwhile: for changes
   * the controller already knows from the channel (a run started or ended), so a burst of
   * short runs costs one beat, not two per run.
   */
  changedSoon(delayMs = 1000): void {
    if (this.#stopped || this.#soon !== undefined) return;
    this.#soon = setTimeout(() => {
      this.#soon = undefined;
      this.changed();
    }, delayMs);
    this.#soon.unref();
  }

  /** A beat now (or right after the one being sent). */
  beat(): void {
    if (this.#stopped) return;
    if (this.#sending !== undefined) {
      this.#again = true;
      return;
    }
    clearTimeout(this.#timer);
    this.#sending = this.#send().finally(() => {
      this.#sending = undefined;
      if (this.#stopped) return;
      if (this.#again) {
        this.#again = false;
        this.beat();
        return;
      }
      this.#timer = setTimeout(() => this.beat(), this.#options.intervalMs ?? HEARTBEAT_INTERVAL_MS);
      this.#timer.unref();
    });
  }

  /** Stops beating; waits for a beat being sent. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    clearTimeout(this.#soon);
    await this.#sending;
  }

  async #send(): Promise<void> {
    const heartbeat = this.#options.current();
    try {
      const response = await this.#options.send(heartbeat);
      this.#lastSent = JSON.stringify(heartbeat);
      if (this.#failing) this.#options.logger.info("heartbeat: the controller answers again");
      this.#failing = false;
      this.#options.onResponse?.(response);
    } catch (error) {
      if (!this.#failing)
        this.#options.logger.warn("heartbeat failed; trying again at the next beat", {
          error: describeError(error),
        });
      this.#failing = true;
    }
  }
}
