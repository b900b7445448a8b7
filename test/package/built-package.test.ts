import { execFileSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** The package as a consumer gets it: the built dist/, resolved through package.json `exports`. */

const root = join(import.meta.dirname, "..", "..");
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  name: string;
  exports: Record<string, string | { types: string; import: string }>;
  dependencies: Record<string, string>;
};
const subpaths = Object.keys(manifest.exports).filter((key) => key !== "./package.json");
const made: string[] = [];

beforeAll(() => {
  const built = subpaths.every((key) => {
    const target = manifest.exports[key];
    return typeof target === "object" && existsSync(join(root, target.import));
  });
  if (!built) execFileSync("npx", ["tsc", "-p", "tsconfig.build.json"], { cwd: root, stdio: "pipe" });
}, 120_000);

afterAll(() => {
  for (const folder of made) rmSync(folder, { recursive: true, force: true });
});

/** Runs an ES module script with node in `cwd` and returns what it printed as JSON. */
function runModule(script: string, cwd: string): unknown {
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
    cwd,
    encoding: "utf8",
  });
  return JSON.parse(out);
}

function declarationFiles(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".d.ts"))
    .map((name) => join(folder, name));
}

describe("the built package", () => {
  it("resolves every subpath by the package's own name, with a types file next to it", () => {
    const specifiers = subpaths.map((key) =>
      key === "." ? manifest.name : `${manifest.name}/${key.slice(2)}`,
    );
    // Self-reference: inside the package folder, `import "skillgate/…"` goes through `exports`.
    const counts = runModule(
      `const out = {};
       for (const specifier of ${JSON.stringify(specifiers)}) out[specifier] = Object.keys(await import(specifier)).length;
       console.log(JSON.stringify(out));`,
      root,
    ) as Record<string, number>;
    expect(Object.keys(counts).sort()).toEqual([...specifiers].sort());
    for (const specifier of specifiers) expect(counts[specifier], specifier).toBeGreaterThan(0);
    for (const key of subpaths) {
      const target = manifest.exports[key];
      if (typeof target !== "object") throw new Error(`${key} has no types and import`);
      expect(existsSync(join(root, target.types)), target.types).toBe(true);
    }
  });

  it("isSkillgateError recognises an error thrown by a second copy of the package; instanceof does not", () => {
    // A second, separate copy of dist/ (its own module instances), resolving dependencies
    // through a link to this package's node_modules, as a nested install would.
    const copy = mkdtempSync(join(tmpdir(), "skillgate-second-copy-"));
    made.push(copy);
    cpSync(join(root, "dist"), join(copy, "dist"), { recursive: true });
    symlinkSync(join(root, "node_modules"), join(copy, "node_modules"), "dir");
    writeFileSync(join(copy, "package.json"), '{ "type": "module" }\n');
    const config = join(copy, "config");
    mkdirSync(config);
    writeFileSync(join(config, "config.yaml"), "index: [not, a, mapping\n");
    const first = pathToFileURL(join(root, "dist", "index.js")).href;
    const second = pathToFileURL(join(copy, "dist", "index.js")).href;
    const seen = runModule(
      `const first = await import(${JSON.stringify(first)});
       const second = await import(${JSON.stringify(second)});
       let thrown;
       try { second.createCatalog({ config: ${JSON.stringify(config)}, data: ${JSON.stringify(join(copy, "data"))} }); }
       catch (error) { thrown = error; }
       console.log(JSON.stringify({
         separateClasses: first.SkillgateError !== second.SkillgateError,
         instanceOfFirst: thrown instanceof first.SkillgateError,
         firstRecognises: first.isSkillgateError(thrown),
         firstRecognisesCode: first.isSkillgateError(thrown, "invalid_config"),
         firstRejectsOtherCode: first.isSkillgateError(thrown, "not_found"),
         code: thrown?.code,
         markerEnumerable: Object.keys(thrown ?? {}).some((key) => key.includes("skillgate")),
         plainError: first.isSkillgateError(new Error("x")),
         lookalike: first.isSkillgateError({ code: "invalid_config", name: "SkillgateError" }),
       }));`,
      root,
    );
    expect(seen).toEqual({
      separateClasses: true,
      instanceOfFirst: false,
      firstRecognises: true,
      firstRecognisesCode: true,
      firstRejectsOtherCode: false,
      code: "invalid_config",
      markerEnumerable: false,
      plainError: false,
      lookalike: false,
    });
  });

  it("the packed tarball holds the LICENSE, no source maps, no sources and every subpath's files", () => {
    const packed = JSON.parse(
      execFileSync("npm", ["pack", "--dry-run", "--ignore-scripts", "--json"], {
        cwd: root,
        encoding: "utf8",
      }),
    ) as { files: { path: string }[] }[];
    const files = new Set((packed[0]?.files ?? []).map((file) => file.path));
    expect(files.has("LICENSE")).toBe(true);
    expect([...files].filter((file) => file.endsWith(".map"))).toEqual([]);
    expect([...files].filter((file) => file.startsWith("src/") || file.startsWith("test/"))).toEqual([]);
    for (const key of subpaths) {
      const target = manifest.exports[key];
      if (typeof target !== "object") continue;
      expect(files.has(target.import.slice(2)), target.import).toBe(true);
      expect(files.has(target.types.slice(2)), target.types).toBe(true);
    }
  });

  it("no published declaration imports a module the consumer does not get with its dependencies", () => {
    const allowed = new Set([...Object.keys(manifest.dependencies), "ai"]);
    const offending: string[] = [];
    for (const file of declarationFiles(join(root, "dist"))) {
      const text = readFileSync(file, "utf8");
      for (const match of text.matchAll(/(?:from\s+|import\()\s*["']([^"'.][^"']*)["']/g)) {
        const specifier = match[1] ?? "";
        if (specifier.startsWith("node:")) continue;
        const name = specifier.startsWith("@")
          ? specifier.split("/").slice(0, 2).join("/")
          : specifier.split("/")[0];
        if (name === undefined || !allowed.has(name)) offending.push(`${relative(root, file)}: ${specifier}`);
      }
    }
    // better-sqlite3 ships no types of its own: naming it would make consumers install @types/better-sqlite3.
    const withoutOwnTypes = ["better-sqlite3", "yauzl", "proper-lockfile", "picomatch"];
    const untyped = offending.concat(
      declarationFiles(join(root, "dist"))
        .filter((file) => withoutOwnTypes.some((name) => readFileSync(file, "utf8").includes(`"${name}"`)))
        .map((file) => `${relative(root, file)}: names an untyped dependency`),
    );
    expect(untyped).toEqual([]);
  });
});
