import { randomInt } from "node:crypto";

/** A source of random numbers that can be replayed: the same seed gives the same sequence. */
export interface SeededRandom {
  /** The seed, to print so a failing run can be repeated. */
  readonly seed: number;
  /** A number in [0, 1), as Math.random gives. */
  next(): number;
  /** An integer in [0, below). */
  below(below: number): number;
}

/**
 * A replayable random sequence: seeded from the environment variable `variable` when it is set
 * (a decimal integer), otherwise from a fresh random seed. Logs the seed and the command that
 * replays it, so a failure seen once can be run again. The generator is mulberry32: small,
 * fast and plenty for choosing test cases (not for anything secret).
 */
export function seededRandom(variable: string, replay: string): SeededRandom {
  const given = process.env[variable];
  if (given !== undefined && !/^\d+$/.test(given))
    throw new Error(`${variable} must be a decimal integer, not ${given}`);
  const seed = given !== undefined ? Number(given) >>> 0 : randomInt(0, 2 ** 32);
  console.info(
    `random seed ${seed}${given !== undefined ? ` (from ${variable})` : ""}; replay: ${variable}=${seed} ${replay}`,
  );
  let state = seed;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 2 ** 32;
  };
  return { seed, next, below: (below) => Math.floor(next() * below) };
}
