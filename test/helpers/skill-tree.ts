import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { afterEach } from "vitest";
import { stringify } from "yaml";
import type { Folders } from "../../src/core/folders.js";

/**
 * Skill trees for tests: temporary folders (removed after the test that made them) and a
 * writer for skill folders, so discovery tests read like the tree they build.
 */

const trees: string[] = [];

afterEach(() => {
  for (const tree of trees.splice(0)) rmSync(tree, { recursive: true, force: true });
});

/**
 * A new empty folder under the system's temporary folder, removed after the current test.
 * The path is real (symlinks in the temporary folder resolved) so tests can compare it
 * with the real paths discovery reports.
 */
export function makeTree(prefix = "skillgate-tree-"): string {
  const tree = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  trees.push(tree);
  return tree;
}

/**
 * Config, data and home folders inside `tree`, none of which exist yet: discovery reads
 * nothing from the real home. Pass the result as `folders` (discovery) or its fields as
 * `config` / `data` / `home` (catalog, CLI).
 */
export function isolatedFolders(tree: string): Folders {
  return { config: join(tree, "config"), data: join(tree, "data"), home: join(tree, "home") };
}

/** What {@link writeSkill} writes. */
export interface SkillSpec {
  /**
   * Front matter: a mapping (written as YAML), raw YAML text (written between the `---`
   * lines as given), or `null` for a SKILL.md without front matter. The default is the
   * folder's name and `Skill <name>.` as the description.
   */
  readonly frontMatter?: Readonly<Record<string, unknown>> | string | null;
  /** The body after the front matter (default one line). */
  readonly body?: string;
  /** Other files, by path relative to the skill folder. */
  readonly files?: Readonly<Record<string, string | Uint8Array>>;
  /** Raw SKILL.md bytes or text, written instead of front matter and body. */
  readonly raw?: string | Uint8Array;
}

/**
 * Writes a skill folder at `root/name` (`name` may hold `/` for nested folders; the last
 * part is the folder's name) and returns the folder's path.
 */
export function writeSkill(root: string, name: string, spec: SkillSpec = {}): string {
  const directory = join(root, name);
  mkdirSync(directory, { recursive: true });
  const folderName = basename(name);
  const content = spec.raw ?? skillMarkdown(folderName, spec);
  writeFileSync(join(directory, "SKILL.md"), content);
  for (const [path, data] of Object.entries(spec.files ?? {})) {
    const file = join(directory, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, data);
  }
  return directory;
}

/** The SKILL.md text {@link writeSkill} writes for `spec`. */
export function skillMarkdown(folderName: string, spec: SkillSpec = {}): string {
  const body = spec.body ?? `Instructions for ${folderName}.\n`;
  const frontMatter =
    spec.frontMatter === undefined
      ? { name: folderName, description: `Skill ${folderName}.` }
      : spec.frontMatter;
  if (frontMatter === null) return body;
  const yaml = typeof frontMatter === "string" ? frontMatter : stringify(frontMatter, { lineWidth: 0 });
  return `---\n${yaml}${yaml.endsWith("\n") ? "" : "\n"}---\n\n${body}`;
}
