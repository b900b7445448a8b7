import { createHash } from "node:crypto";
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect } from "vitest";
import { isSkillgateError } from "../../src/core/errors.js";
import { Store, type StoreOptions } from "../../src/store/store.js";

/**
 * Helpers for store tests: a fresh data folder per test (removed afterwards), a built-in
 * skills folder with one built-in, SKILL.md text, and a byte-exact snapshot of a folder
 * tree to prove that a refusal wrote nothing.
 */

const roots: string[] = [];

afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** A new empty temporary folder, removed after the current test. */
export function temporaryFolder(): string {
  const root = mkdtempSync(join(tmpdir(), "skillgate-store-"));
  roots.push(root);
  return root;
}

/** SKILL.md text for a skill called `name`, with optional extra front matter lines. */
export function skillMd(name: string, extra = "", body = "Follow these steps.\n"): string {
  const lines = extra === "" ? "" : `${extra.replace(/\n$/, "")}\n`;
  return `---\nname: ${name}\ndescription: Test skill ${name} for the store tests.\n${lines}---\n\n${body}`;
}

/** The name of the built-in skill every test store has. */
export const BUILTIN = "helper-builtin";

/** A built-in skills folder holding {@link BUILTIN} with a SKILL.md and a script, in `parent`. */
export function builtinFolder(parent: string = temporaryFolder()): string {
  const folder = join(parent, "skills");
  mkdirSync(join(folder, BUILTIN, "scripts"), { recursive: true });
  writeFileSync(
    join(folder, BUILTIN, "SKILL.md"),
    skillMd(BUILTIN, "# a comment that must survive duplication"),
  );
  writeFileSync(join(folder, BUILTIN, "scripts", "help.py"), "print('help')\n");
  return folder;
}

/** A store on a fresh data folder with one built-in; the lock goes stale after 2 s (the minimum). */
export async function openTestStore(
  options: StoreOptions = {},
): Promise<{ store: Store; data: string; builtins: string }> {
  const data = options.dataFolder ?? temporaryFolder();
  const builtins = options.builtinFolder ?? builtinFolder();
  const store = await Store.open({
    lockStaleMs: 2_000,
    ...options,
    dataFolder: data,
    builtinFolder: builtins,
  });
  return { store, data, builtins };
}

/**
 * Every entry below `folder` (hidden ones included) with its kind and, for files, the
 * SHA-256 of its bytes: equal snapshots mean byte-for-byte equal trees.
 */
export function snapshot(folder: string): Record<string, string> {
  const result: Record<string, string> = {};
  const visit = (relative: string) => {
    for (const name of readdirSync(join(folder, relative)).sort()) {
      const path = relative === "" ? name : `${relative}/${name}`;
      const stats = lstatSync(join(folder, path));
      if (stats.isDirectory()) {
        result[path] = "folder";
        visit(path);
      } else if (stats.isSymbolicLink()) {
        result[path] = `link ${readlinkSync(join(folder, path))}`;
      } else {
        result[path] = `file ${createHash("sha256")
          .update(readFileSync(join(folder, path)))
          .digest("hex")}`;
      }
    }
  };
  visit("");
  return result;
}

/** Runs `action`, expects a SkillgateError with `code`, and returns it. */
export async function refusal(
  action: () => Promise<unknown>,
  code: string,
): Promise<Error & { code: string }> {
  let caught: unknown;
  try {
    await action();
  } catch (error) {
    caught = error;
  }
  expect(caught, `expected a refusal with ${code}`).toBeInstanceOf(Error);
  if (!isSkillgateError(caught)) throw caught;
  expect(caught.code, caught.message).toBe(code);
  return caught;
}

/** The index.json of a data folder, parsed. */
export function readIndexJson(data: string): {
  revision: number;
  skills: Record<string, { enabled: boolean; source: string; hash: string; updated: string }>;
} {
  return JSON.parse(readFileSync(join(data, "skills", "index.json"), "utf8"));
}
