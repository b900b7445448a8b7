import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { enabledNamesReader, readEnabledNames } from "../../src/store/enabled-names.js";
import { openTestStore, skillMd, temporaryFolder } from "./store-helpers.js";

/** A clock far enough ahead that every file written now is past the racy window. */
const later = (): number => Date.now() + 60_000;

describe("enabled names for discovery", () => {
  it("a missing or unreadable index enables nothing", () => {
    const folder = temporaryFolder();
    expect(readEnabledNames(folder)).toEqual(new Set());
    expect(enabledNamesReader(folder)()).toEqual(new Set());
    writeFileSync(join(folder, "index.json"), "{ not json");
    expect(readEnabledNames(folder)).toEqual(new Set());
    expect(enabledNamesReader(folder)()).toEqual(new Set());
  });

  it("the reader gives the same set while index.json is unchanged and sees every store write", async () => {
    const { store } = await openTestStore();
    await store.create("alpha", { "SKILL.md": skillMd("alpha") }, { enabled: true });
    const read = enabledNamesReader(store.folder, later);
    const first = read();
    expect([...first]).toContain("alpha");
    expect(read()).toBe(first);
    await store.disable("alpha");
    const afterDisable = read();
    expect(afterDisable).not.toBe(first);
    expect(afterDisable.has("alpha")).toBe(false);
    expect(read()).toBe(afterDisable);
  });

  it("reads again while index.json is too fresh to trust its stamp", async () => {
    const { store } = await openTestStore();
    await store.create("alpha", { "SKILL.md": skillMd("alpha") }, { enabled: true });
    // The clock says the file was written just now: a same-stamp rewrite could hide.
    const read = enabledNamesReader(store.folder, Date.now);
    const first = read();
    const second = read();
    expect(second).not.toBe(first);
    expect(second).toEqual(first);
  });
});
