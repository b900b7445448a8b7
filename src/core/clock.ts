/** Time as skillgate reads it: injectable so expiry can be tested without waiting. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

/** The real clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** A clock that moves only when told: for tests and simulations. */
export class ManualClock implements Clock {
  #time: number;
  constructor(start = 0) {
    this.#time = start;
  }
  now(): number {
    return this.#time;
  }
  /** Moves the clock forward by `milliseconds`. */
  advance(milliseconds: number): void {
    this.#time += milliseconds;
  }
}
