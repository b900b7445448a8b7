import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { isSkillgateError } from "../../../src/core/errors.js";
import { unpackSkillZip } from "../../../src/store/import/unpack-zip.js";
import { handmadeZip, unixAttributes } from "./handmade-zip.js";
import { emptyTarget, hexText, listTree, removeTargets, SKILL_MD, yazlZip } from "./zip-fixtures.js";

afterAll(removeTargets);

describe("unpackSkillZip accepts good archives", () => {
  it("unpacks a skill at the root of the archive, byte for byte", async () => {
    const { root, target } = await emptyTarget();
    const script = hexText(300 * 1024);
    const zip = await yazlZip({
      "SKILL.md": SKILL_MD,
      "scripts/run.py": script,
      "references/notes.md": "# Notes\n",
    });
    const result = await unpackSkillZip(zip, target);
    expect(result.files).toEqual(["SKILL.md", "references/notes.md", "scripts/run.py"]);
    expect(result.strippedFolder).toBeUndefined();
    expect(result.totalBytes).toBe(Buffer.byteLength(SKILL_MD) + script.length + 8);
    expect(await readFile(join(target, "SKILL.md"), "utf8")).toBe(SKILL_MD);
    expect((await readFile(join(target, "scripts/run.py"))).equals(script)).toBe(true);
    expect(await listTree(root)).toEqual([
      "target",
      "target/SKILL.md",
      "target/references",
      "target/references/notes.md",
      "target/scripts",
      "target/scripts/run.py",
    ]);
  });

  it("strips one top folder and skips __MACOSX metadata", async () => {
    const { target } = await emptyTarget();
    const zip = await yazlZip({
      "my-skill/SKILL.md": SKILL_MD,
      "my-skill/scripts/a.sh": "echo hi\n",
      "__MACOSX/my-skill/._SKILL.md": "apple double",
    });
    const result = await unpackSkillZip(zip, target);
    expect(result.strippedFolder).toBe("my-skill");
    expect(await listTree(target)).toEqual(["SKILL.md", "scripts", "scripts/a.sh"]);
  });

  it("keeps the execute bit and folder entries from a Unix archive", async () => {
    const { target } = await emptyTarget();
    const zip = handmadeZip([
      { name: "top/" },
      { name: "top/SKILL.md", data: Buffer.from(SKILL_MD) },
      { name: "top/scripts/" },
      {
        name: "top/scripts/run.sh",
        data: Buffer.from("echo hi\n"),
        externalAttributes: unixAttributes(0o100755),
      },
      { name: "top/./notes.txt", data: Buffer.from("n"), method: 0 },
    ]);
    await unpackSkillZip(zip, target);
    expect((await stat(join(target, "scripts/run.sh"))).mode & 0o777).toBe(0o755);
    expect((await stat(join(target, "SKILL.md"))).mode & 0o777).toBe(0o644);
    expect(await readFile(join(target, "notes.txt"), "utf8")).toBe("n");
  });

  it("accepts an archive from a file path, a stream, and an absent target", async () => {
    const { root } = await emptyTarget();
    const zip = await yazlZip({ "SKILL.md": SKILL_MD });
    const path = join(root, "upload.zip");
    await writeFile(path, zip);
    await unpackSkillZip(path, join(root, "from-path"));
    await unpackSkillZip(Readable.from([zip.subarray(0, 10), zip.subarray(10)]), join(root, "from-stream"));
    expect(await readFile(join(root, "from-path/SKILL.md"), "utf8")).toBe(SKILL_MD);
    expect(await readFile(join(root, "from-stream/SKILL.md"), "utf8")).toBe(SKILL_MD);
  });

  it("accepts small repetitive files below the bomb floor", async () => {
    const { target } = await emptyTarget();
    const zip = await yazlZip({ "SKILL.md": SKILL_MD, "table.csv": "0,".repeat(30_000) });
    await unpackSkillZip(zip, target);
    expect((await stat(join(target, "table.csv"))).size).toBe(60_000);
  });

  it("refuses a target that is not empty, and leaves it alone", async () => {
    const { target } = await emptyTarget();
    await mkdir(join(target, "keep"));
    const zip = await yazlZip({ "SKILL.md": SKILL_MD });
    const error = await unpackSkillZip(zip, target).catch((thrown: unknown) => thrown);
    expect(isSkillgateError(error, "invalid_argument")).toBe(true);
    expect(await listTree(target)).toEqual(["keep"]);
  });
});
