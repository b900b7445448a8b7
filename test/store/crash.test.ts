import { describe, expect, it } from "vitest";
import { Store } from "../../src/store/store.js";
import { seededRandom } from "../helpers/seeded-random.js";
import { expectRawAgreement, startStoreChild } from "./child-process.js";
import { builtinFolder, temporaryFolder } from "./store-helpers.js";

/** Findings an open may report after a crash: its own leftovers, and the change it finished or undid. */
const CRASH_LEFTOVERS = new Set([
  "leftover_staging",
  "leftover_trash",
  "leftover_temporary",
  "interrupted_change",
]);

/**
 * Invariant 7: a crash at any instant leaves index.json parseable and in agreement with the
 * folders. A child doing 200 writes of every kind is killed with SIGKILL at a random write,
 * several times over the same store; the kill lands while the next write is under way.
 */
describe("crash safety (SIGKILL during writes)", () => {
  it("after every kill, index.json parses and agrees with the folders; the next open cleans up", async () => {
    // Where each kill lands is random; the seed is logged (and read from SKILLGATE_CRASH_SEED) to replay a failure.
    const random = seededRandom("SKILLGATE_CRASH_SEED", "npx vitest run test/store/crash.test.ts");
    const data = temporaryFolder();
    const builtins = builtinFolder();
    const kills = 6;
    let lastRevision = 0;
    for (let run = 0; run < kills; run += 1) {
      const child = startStoreChild("churn", data, builtins, `run${run}`, 200);
      const stopAfter = 1 + random.below(40);
      // Every failure message names the seed and the kill, so it can be replayed.
      const about = (what = ""): string => `seed ${random.seed}, kill ${run + 1}${what}: ${child.stderr()}`;
      await child.waitForStep(stopAfter);
      // A short random pause moves the kill to a different point inside the next write
      // (a pause on purpose: it chooses the kill's instant, it does not wait for anything).
      await new Promise((resolve) => setTimeout(resolve, random.below(25)));
      child.process.kill("SIGKILL");
      expect(await child.exited, about()).toBe("SIGKILL");
      expect(child.done.length, about()).toBeGreaterThanOrEqual(stopAfter);

      expectRawAgreement(data);
      const store = await Store.open({ dataFolder: data, builtinFolder: builtins, lockStaleMs: 2_000 });
      for (const finding of store.report.findings)
        expect(CRASH_LEFTOVERS, about(` ${finding.message}`)).toContain(finding.kind);
      expect(await store.reconcile(), about()).toEqual([]);
      // Every write the child reported is in the store: the revision never goes back.
      const revision = await store.revision();
      expect(revision, about()).toBeGreaterThanOrEqual(child.done.at(-1)?.revision ?? 0);
      expect(revision, about()).toBeGreaterThanOrEqual(lastRevision);
      lastRevision = revision;
    }
    const finisher = startStoreChild("churn", data, builtins, "final", 200);
    expect(await finisher.exited, finisher.stderr()).toBe(0);
    expect(finisher.done).toHaveLength(200);
    const store = await Store.open({ dataFolder: data, builtinFolder: builtins, lockStaleMs: 2_000 });
    expect(await store.reconcile()).toEqual([]);
    expectRawAgreement(data);
  }, 240_000);
});
