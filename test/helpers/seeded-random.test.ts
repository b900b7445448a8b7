import { afterEach, describe, expect, it, vi } from "vitest";
import { seededRandom } from "./seeded-random.js";

const VARIABLE = "SKILLGATE_SEEDED_RANDOM_TEST_SEED";

afterEach(() => {
  delete process.env[VARIABLE];
  vi.restoreAllMocks();
});

describe("seededRandom", () => {
  it("replays the same sequence from the seed in the environment, and logs how to replay it", () => {
    const logged: string[] = [];
    vi.spyOn(console, "info").mockImplementation((line: string) => void logged.push(line));
    const first = seededRandom(VARIABLE, "npx vitest run x.test.ts");
    const sequence = Array.from({ length: 5 }, () => first.below(1000));
    process.env[VARIABLE] = String(first.seed);
    const again = seededRandom(VARIABLE, "npx vitest run x.test.ts");
    expect(Array.from({ length: 5 }, () => again.below(1000))).toEqual(sequence);
    expect(logged[0]).toBe(
      `random seed ${first.seed}; replay: ${VARIABLE}=${first.seed} npx vitest run x.test.ts`,
    );
    expect(logged[1]).toContain(`(from ${VARIABLE})`);
    for (const value of sequence) expect(value).toBeLessThan(1000);
  });

  it("refuses a seed that is not a decimal integer", () => {
    process.env[VARIABLE] = "abc";
    expect(() => seededRandom(VARIABLE, "")).toThrow(`${VARIABLE} must be a decimal integer, not abc`);
  });
});
