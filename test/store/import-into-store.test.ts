import { mkdirSync, readdirSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { ZipFile } from "yazl";
import { isSkillgateError } from "../../src/core/errors.js";
import { DEFAULT_IMPORT_LIMITS, unpackSkillZip } from "../../src/store/import/index.js";
import { Store } from "../../src/store/store.js";
import { openTestStore, skillMd, snapshot } from "./store-helpers.js";

/** A zip archive (in memory) holding `files`. */
async function zipOf(files: Record<string, string>): Promise<Buffer> {
  const zip = new ZipFile();
  for (const [path, content] of Object.entries(files)) zip.addBuffer(Buffer.from(content), path);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The store's staging contract as an importer uses it: stage, unpack, install or discard. */
describe("zip import through the staging contract", () => {
  it("unpacks into a staging folder and installs it by one rename", async () => {
    const { store, data } = await openTestStore();
    const staged = await store.createStagingFolder();
    const archive = await zipOf({
      "zipped/SKILL.md": skillMd("zipped"),
      "zipped/scripts/run.py": "print(2)\n",
    });
    await unpackSkillZip(archive, staged, DEFAULT_IMPORT_LIMITS);
    const installed = await store.installFolder(staged, { source: "zip", origin: "zipped.zip" });
    expect(installed).toMatchObject({ name: "zipped", source: "zip", enabled: false });
    expect(readdirSync(join(data, "skills", ".staging"))).toEqual([]);
    expect((await store.get("zipped")).files.map((file) => file.path)).toEqual([
      "SKILL.md",
      "scripts/run.py",
    ]);
  });

  it("a refused archive is discarded and the store is unchanged", async () => {
    const { store, data } = await openTestStore();
    const before = snapshot(data);
    const staged = await store.createStagingFolder();
    const archive = await zipOf({ "SKILL.md": skillMd("big"), "a.md": "x".repeat(2048) });
    const refused = await unpackSkillZip(archive, staged, {
      ...DEFAULT_IMPORT_LIMITS,
      maxZipBytes: 100,
    }).catch((error: unknown) => error);
    expect(isSkillgateError(refused, "zip_too_large")).toBe(true);
    await store.discardStagingFolder(staged);
    expect(snapshot(data)).toEqual(before);
  });

  it("an importer's helper folder beside its staging folder survives a concurrent open", async () => {
    const { store, data, builtins } = await openTestStore();
    const staged = await store.createStagingFolder();
    const helper = join(dirname(staged), `.${basename(staged)}.unpack-x1`);
    mkdirSync(helper);
    const other = await Store.open({ dataFolder: data, builtinFolder: builtins, lockStaleMs: 2_000 });
    expect(other.report.findings).toEqual([]);
    expect(readdirSync(dirname(staged)).sort()).toEqual([basename(staged), basename(helper)].sort());
  });
});
