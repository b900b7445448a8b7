import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { repository } from "./helpers.js";

const FIXTURES = join(repository, "test", "fixtures", "public-skills");

/** The Git blob id of a file: what its source repository recorded for it. */
function blobId(file: string): string {
  const bytes = readFileSync(file);
  return createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex");
}

function filesUnder(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe("the public skills fixtures", () => {
  it("are byte for byte what their authors published: every file has the blob id NOTICE.md lists, and no file is added", () => {
    const notice = readFileSync(join(FIXTURES, "NOTICE.md"), "utf8");
    const listed = new Map(
      [...notice.matchAll(/^([0-9a-f]{40}) {2}(\S+)$/gm)].map((match) => [
        match[2] as string,
        match[1] as string,
      ]),
    );
    expect(listed.size).toBeGreaterThan(0);
    const present = filesUnder(FIXTURES)
      .map((file) => relative(FIXTURES, file))
      .filter((path) => path !== "NOTICE.md")
      .sort();
    expect(present).toEqual([...listed.keys()].sort());
    for (const path of present) expect(blobId(join(FIXTURES, path)), path).toBe(listed.get(path));
  });

  it("carry their licence", () => {
    expect(readFileSync(join(FIXTURES, "skill-creator", "LICENSE.txt"), "utf8")).toContain("Apache License");
  });
});
