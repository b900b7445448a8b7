import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/** Every runtime dependency earns its place in a decision record (docs/decisions/). */

const root = join(import.meta.dirname, "..", "..");
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  dependencies: Record<string, string>;
};
const folder = join(root, "docs", "decisions");
const titles = readdirSync(folder)
  .filter((name) => name.endsWith(".md"))
  .map((name) => ({ name, title: readFileSync(join(folder, name), "utf8").split("\n")[0] ?? "" }));

describe("decision records", () => {
  it("every runtime dependency is named in the title of a record", () => {
    const without = Object.keys(manifest.dependencies).filter(
      (dependency) => !titles.some(({ title }) => title.startsWith("# ") && title.includes(dependency)),
    );
    expect(without).toEqual([]);
  });

  it("the typescript record says why the compiler is needed at run time", () => {
    const record = readFileSync(join(folder, "0008-typescript-runtime.md"), "utf8");
    expect(record).toMatch(/runtime dependency/);
    for (const use of ["typescript-check.ts", "strip-types.ts", "extensions/load.ts"])
      expect(record).toContain(use);
  });
});
