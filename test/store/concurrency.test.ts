import { spawnSync } from "node:child_process";
import { existsSync, readlinkSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LOCK_NAME } from "../../src/store/lock.js";
import { Store } from "../../src/store/store.js";
import { expectRawAgreement, startStoreChild } from "./child-process.js";
import { BUILTIN, builtinFolder, openTestStore, skillMd, temporaryFolder } from "./store-helpers.js";

describe("two processes writing at once", () => {
  it("lose nothing: 2 × 20 creates give 40 skills and 40 distinct revisions", async () => {
    const data = temporaryFolder();
    const builtins = builtinFolder();
    const first = startStoreChild("create", data, builtins, "left", 20);
    const second = startStoreChild("create", data, builtins, "right", 20);
    expect(await first.exited, first.stderr()).toBe(0);
    expect(await second.exited, second.stderr()).toBe(0);

    const store = await Store.open({ dataFolder: data, builtinFolder: builtins, lockStaleMs: 2_000 });
    const names = (await store.list()).map((skill) => skill.name);
    const expected = [BUILTIN];
    for (let index = 0; index < 20; index += 1) expected.push(`left-${index}`, `right-${index}`);
    expect(names).toEqual(expected.sort());
    const revisions = [...first.done, ...second.done].map((line) => line.revision).sort((a, b) => a - b);
    expect(revisions).toEqual(Array.from({ length: 40 }, (_, index) => index + 1));
    expect(await store.revision()).toBe(40);
    expect(store.report.findings).toEqual([]);
    expectRawAgreement(data);
  });

  it("in one process, concurrent calls are serialised too", async () => {
    const { store } = await openTestStore();
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        store.create(`same-${index}`, { "SKILL.md": skillMd(`same-${index}`) }),
      ),
    );
    expect(results.map((result) => result.revision).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 12 }, (_, index) => index + 1),
    );
    expect(await store.reconcile()).toEqual([]);
  });
});

describe("revision", () => {
  it("increases by one with every change and stays when nothing changes", async () => {
    const { store, data, builtins } = await openTestStore();
    expect(await store.revision()).toBe(0);
    const created = await store.create("r", { "SKILL.md": skillMd("r") });
    expect(await store.revision()).toBe(1);
    await store.updateFile("r", "a.md", "a");
    expect(await store.revision()).toBe(2);
    const skill = await store.get("r");
    await store.enable("r", { hash: skill.hash });
    expect(await store.revision()).toBe(3);
    await store.enable("r", { hash: skill.hash });
    await store.get("r");
    await store.list();
    expect(await store.revision()).toBe(3);
    await store.disable("r");
    await store.duplicate("r", "r-copy");
    await store.deleteSkill("r-copy");
    expect(await store.revision()).toBe(6);
    expect(created.revision).toBe(1);
    const other = await Store.open({ dataFolder: data, builtinFolder: builtins });
    expect(await other.revision()).toBe(6);
    await other.create("from-other", { "SKILL.md": skillMd("from-other") });
    expect(await store.revision()).toBe(7);
  });
});

describe("the store's lock (the one lock rule, core/file-lock.ts)", () => {
  const ended = spawnSync("true").pid ?? 0;
  const lockLine = (pid: number): string =>
    `${pid} ${hostname()} ${readlinkSync("/proc/self/ns/pid")} 0123456789abcdef\n`;

  it("takes over at once a lock whose writer has ended, long before it is stale by age", async () => {
    const { store } = await openTestStore({ lockStaleMs: 60_000, lockWaitMs: 1_000 });
    writeFileSync(join(store.folder, LOCK_NAME), lockLine(ended));
    await expect(store.create("after-crash", { "SKILL.md": skillMd("after-crash") })).resolves.toMatchObject({
      revision: 1,
    });
    expect(existsSync(join(store.folder, LOCK_NAME))).toBe(false);
  });

  it("waits for a live writer's fresh lock, then says store_busy and writes nothing", async () => {
    const { store } = await openTestStore({ lockStaleMs: 60_000, lockWaitMs: 300 });
    writeFileSync(join(store.folder, LOCK_NAME), lockLine(process.pid));
    await expect(store.create("blocked", { "SKILL.md": skillMd("blocked") })).rejects.toMatchObject({
      code: "store_busy",
    });
    expect(existsSync(join(store.folder, "blocked"))).toBe(false);
  });
});
