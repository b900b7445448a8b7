import { lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { ReasonCode } from "../../src/catalog/decisions.js";
import { type DiscoveryResult, SkillDiscovery } from "../../src/catalog/discover.js";
import type { DiagnosticCode } from "../../src/core/diagnostics.js";
import { isolatedFolders, makeTree, writeSkill } from "../helpers/skill-tree.js";

/**
 * Hostile SKILL.md files inside a discovery tree: each is rejected with the expected reason
 * and diagnostic, nothing throws, the valid neighbours still load, nothing is written, and
 * Object.prototype stays clean.
 */

const fixtures = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "skills");
const fixture = (name: string) => readFileSync(join(fixtures, name, "SKILL.md"));

interface HostileRow {
  /** The folder name inside the skills folder. */
  readonly folder: string;
  readonly write: (directory: string) => void;
  readonly reason: ReasonCode;
  readonly diagnostic: DiagnosticCode;
}

const file = (content: string | Uint8Array) => (directory: string) =>
  writeFileSync(join(directory, "SKILL.md"), content);

const rows: HostileRow[] = [
  {
    folder: "alias-bomb",
    write: file(fixture("alias-bomb")),
    reason: "invalid_front_matter",
    diagnostic: "yaml_alias_limit",
  },
  {
    folder: "duplicate-key",
    write: file(fixture("duplicate-key")),
    reason: "invalid_front_matter",
    diagnostic: "duplicate_key",
  },
  {
    folder: "unterminated-front-matter",
    write: file(fixture("unterminated-front-matter")),
    reason: "invalid_front_matter",
    diagnostic: "unterminated_front_matter",
  },
  {
    folder: "invalid-yaml",
    write: file(fixture("invalid-yaml")),
    reason: "invalid_front_matter",
    diagnostic: "invalid_front_matter",
  },
  {
    folder: "huge-file",
    write: file(`---\nname: huge-file\ndescription: d\nblob: ${"a".repeat(5 * 1024 * 1024)}\n---\n`),
    reason: "file_too_large",
    diagnostic: "file_too_large",
  },
  {
    folder: "binary",
    write: file(Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0, 1, 2, 0xff, 0x0a])),
    reason: "binary_content",
    diagnostic: "binary_content",
  },
  {
    folder: "pdf-tools",
    write: file(fixture("name-cyrillic")),
    reason: "invalid_name",
    diagnostic: "invalid_name",
  },
  {
    folder: "name-number",
    write: file(fixture("name-number")),
    reason: "invalid_name",
    diagnostic: "invalid_name",
  },
  {
    folder: "passwd-link",
    write: (directory) => symlinkSync("/etc/passwd", join(directory, "SKILL.md")),
    reason: "symlink_not_allowed",
    diagnostic: "symlink_not_allowed",
  },
  {
    folder: "skill-md-folder",
    write: (directory) => mkdirSync(join(directory, "SKILL.md")),
    reason: "unreadable_file",
    diagnostic: "unreadable_file",
  },
];

/** Every path below `folder` with its size: a listing to compare before and after. */
function listing(folder: string): string[] {
  return (readdirSync(folder, { recursive: true }) as string[])
    .map((path) => `${path}:${lstatSync(join(folder, path)).size}`)
    .sort();
}

function discoverHostile(): { result: DiscoveryResult; skills: string } {
  const tree = makeTree();
  const skills = join(tree, "project", ".agents", "skills");
  writeSkill(skills, "aaa-valid");
  for (const row of rows) {
    const directory = join(skills, row.folder);
    mkdirSync(directory, { recursive: true });
    row.write(directory);
  }
  writeSkill(skills, "zzz-valid");
  const before = listing(tree);
  let result: DiscoveryResult | undefined;
  expect(() => {
    result = new SkillDiscovery().discover({
      folders: isolatedFolders(tree),
      roots: [join(tree, "project")],
      builtins: false,
    });
  }).not.toThrow();
  expect(listing(tree), "discovery writes nothing").toEqual(before);
  return { result: result as DiscoveryResult, skills };
}

describe("hostile SKILL.md files inside a discovery tree", () => {
  it.each(rows.map((row) => [row.folder, row] as const))("%s is rejected with its reason", (_folder, row) => {
    const { result, skills } = discoverHostile();
    const decision = result.decisions.find((item) => item.location === join(skills, row.folder, "SKILL.md"));
    expect(decision?.decision).toBe("rejected");
    expect(decision?.reasons.map((reason) => reason.code)).toContain(row.reason);
    expect(decision?.diagnostics.map((item) => item.code)).toContain(row.diagnostic);
    expect(decision?.skill).toBeUndefined();
  });

  it("the valid skills around them still load, and nothing else is offered", () => {
    const { result } = discoverHostile();
    expect(result.skills.map((skill) => skill.name)).toEqual(["aaa-valid", "zzz-valid"]);
    expect(result.decisions).toHaveLength(rows.length + 2);
    expect(result.diagnostics).toEqual([]);
  });

  it("no decision carries a body, and Object.prototype is untouched by a __proto__ key", () => {
    const tree = makeTree();
    const skills = join(tree, "project", ".agents", "skills");
    writeSkill(skills, "proto-key", { raw: fixture("proto-key") });
    const result = new SkillDiscovery().discover({
      folders: isolatedFolders(tree),
      roots: [join(tree, "project")],
      builtins: false,
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(JSON.stringify(result.decisions)).not.toContain("Instructions that must never be shown");
  });
});
