import { describe, expect, it } from "vitest";
import { Store } from "../../src/store/store.js";
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
    const data = temporaryFolder();
    const builtins = builtinFolder();
    const kills = 6;
    let lastRevision = 0;
    for (let run = 0; run < kills; run += 1) {
      const child = startStoreChild("churn", data, builtins, `run${run}`, 200);
      const stopAfter = 1 + Math.floor(Math.random() * 40);
      await child.waitForStep(stopAfter);
      // A short random pause moves the kill to a different point inside the next write.
      await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 25)));
      child.process.kill("SIGKILL");
      expect(await child.exited, child.stderr()).toBe("SIGKILL");
      expect(child.done.length, child.stderr()).toBeGreaterThanOrEqual(stopAfter);

      expectRawAgreement(data);
      const store = await Store.open({ dataFolder: data, builtinFolder: builtins, lockStaleMs: 2_000 });
      for (const finding of store.report.findings)
        expect(CRASH_LEFTOVERS, finding.message).toContain(finding.kind);
      expect(await store.reconcile()).toEqual([]);
      // Every write the child reported is in the store: the revision never goes back.
      const revision = await store.revision();
      expect(revision).toBeGreaterThanOrEqual(child.done.at(-1)?.revision ?? 0);
      expect(revision).toBeGreaterThanOrEqual(lastRevision);
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
