import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { ChangeStep } from "../../src/store/journal.js";
import { Store } from "../../src/store/store.js";
import { expectRawAgreement, startStoreChild } from "./child-process.js";
import { builtinFolder, skillMd, snapshot } from "./store-helpers.js";

// The cases run concurrently, so each keeps its own folder until the whole file is done.
const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});
function caseFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), "skillgate-crash-step-"));
  folders.push(folder);
  return folder;
}

type Kind = "create" | "replace" | "delete";

/**
 * Random kills seldom land between two renames, so each step of each kind of folder change
 * gets its own child that SIGKILLs itself right after that step. Before `committed` the next
 * open must undo the change; from `committed` on it must finish it. Either way index.json
 * and the folders agree and nothing is half there.
 */
const cases: [Kind, ChangeStep][] = [
  ["create", "journal_written"],
  ["create", "moved_in"],
  ["create", "committed"],
  ["replace", "journal_written"],
  ["replace", "moved_aside"],
  ["replace", "moved_in"],
  ["replace", "committed"],
  ["delete", "journal_written"],
  ["delete", "moved_aside"],
  ["delete", "committed"],
];

describe.concurrent("SIGKILL at each step of a folder change", () => {
  it.each(cases)("%s, killed after %s", async (kind, step) => {
    const data = caseFolder();
    const builtins = builtinFolder(caseFolder());
    const setup = await Store.open({ dataFolder: data, builtinFolder: builtins, lockStaleMs: 2_000 });
    if (kind !== "create") await setup.create("victim", { "SKILL.md": skillMd("victim"), "a.md": "v1\n" });
    const victim = join(data, "skills", "victim");
    const before = existsSync(victim) ? snapshot(victim) : undefined;

    const child = startStoreChild("die", data, builtins, kind, step);
    expect(await child.exited, child.stderr()).toBe("SIGKILL");
    expect(existsSync(join(data, "skills", ".journal.json"))).toBe(true);
    expectRawAgreement(data);

    const store = await Store.open({ dataFolder: data, builtinFolder: builtins, lockStaleMs: 2_000 });
    const committed = step === "committed";
    const interrupted = store.report.findings.find((finding) => finding.kind === "interrupted_change");
    expect(interrupted?.message).toContain(committed ? "finished" : "rolled back");
    expect(await store.reconcile()).toEqual([]);
    expectRawAgreement(data);

    const listed = (await store.list()).some((skill) => skill.name === "victim");
    if (kind === "create") {
      expect(listed).toBe(committed);
      expect(existsSync(victim)).toBe(committed);
    } else if (kind === "delete") {
      expect(listed).toBe(!committed);
      if (!committed) expect(snapshot(victim)).toEqual(before);
      else expect(existsSync(victim)).toBe(false);
    } else if (committed) {
      expect(readFileSync(join(victim, "a.md"), "utf8")).toBe("v2\n");
    } else {
      expect(snapshot(victim)).toEqual(before);
    }
  });
});
