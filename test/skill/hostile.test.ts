import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { DiagnosticCode } from "../../src/core/diagnostics.js";
import type { ValidationMode } from "../../src/skill/fields.js";
import { type LoadedSkill, loadSkillFolder } from "../../src/skill/load-skill.js";
import { emptySkillFolder, listing, skillText } from "./skill-folders.js";

/**
 * Hostile SKILL.md files. Each row writes one into a fresh temporary skill folder, loads
 * it, and checks the exact diagnostic code, that nothing escaped as an exception, that
 * nothing was written, and that Object.prototype is untouched.
 */

const fixtures = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "skills");

interface HostileCase {
  readonly label: string;
  /** The skill folder's name. */
  readonly folder: string;
  /** Writes the hostile SKILL.md (or what stands in its place) into the folder. */
  readonly write: (directory: string) => void;
  /** The one error code expected, or `any` when only "refused without a crash" is promised. */
  readonly code: DiagnosticCode | "any";
  /** True when the skill still loads (the problem is reported, the bad part dropped). */
  readonly loads: boolean;
  /** The code strict mode gives instead, when it differs (no front matter at all). */
  readonly strictCode?: DiagnosticCode;
}

function fromFixture(name: string, code: DiagnosticCode | "any", loads = false): HostileCase {
  return {
    label: `fixture ${name}`,
    folder: name,
    write: (directory) =>
      writeFileSync(join(directory, "SKILL.md"), readFileSync(join(fixtures, name, "SKILL.md"))),
    code,
    loads,
  };
}

function generated(
  label: string,
  folder: string,
  content: string | Uint8Array,
  code: DiagnosticCode | "any",
): HostileCase {
  return {
    label,
    folder,
    write: (directory) => writeFileSync(join(directory, "SKILL.md"), content),
    code,
    loads: false,
  };
}

const head = (name: string) => `---\nname: ${name}\ndescription: Hostile.\n`;

const cases: HostileCase[] = [
  fromFixture("alias-bomb", "yaml_alias_limit"),
  generated(
    "5 MB front matter (file over 1 MiB)",
    "huge-file",
    `${head("huge-file")}blob: ${"a".repeat(5 * 1024 * 1024)}\n---\nbody\n`,
    "file_too_large",
  ),
  generated(
    "100 KB front matter (file under 1 MiB)",
    "big-front-matter",
    `${head("big-front-matter")}blob: ${"a".repeat(100 * 1024)}\n---\nbody\n`,
    "front_matter_too_large",
  ),
  generated(
    "NUL bytes",
    "nul-bytes",
    Buffer.concat([Buffer.from(head("nul-bytes")), Buffer.from([0, 0, 1, 2, 0]), Buffer.from("\n---\n")]),
    "binary_content",
  ),
  generated(
    "UTF-16 text (a BOM and NUL bytes)",
    "utf-sixteen",
    Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`${head("utf-sixteen")}---\n`, "utf16le")]),
    "binary_content",
  ),
  generated(
    "Latin-1 bytes (invalid UTF-8)",
    "latin-one",
    Buffer.concat([
      Buffer.from(head("latin-one")),
      Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]),
      Buffer.from("---\n"),
    ]),
    "binary_content",
  ),
  generated(
    "an overlong UTF-8 encoding of '/'",
    "overlong",
    Buffer.concat([
      Buffer.from(head("overlong")),
      Buffer.from([0x78, 0x3a, 0x20, 0xc0, 0xaf, 0x0a]),
      Buffer.from("---\n"),
    ]),
    "binary_content",
  ),
  fromFixture("unterminated-front-matter", "unterminated_front_matter"),
  fromFixture("duplicate-key", "duplicate_key"),
  fromFixture("duplicate-metadata-key", "duplicate_key"),
  fromFixture("name-number", "invalid_name"),
  fromFixture("name-list", "invalid_name"),
  fromFixture("name-mapping", "invalid_name"),
  generated("a boolean name", "name-boolean", skillText("name: true\ndescription: d"), "invalid_name"),
  { ...fromFixture("name-cyrillic", "invalid_name"), folder: "pdf-tools" },
  { ...fromFixture("name-zero-width-joiner", "invalid_name"), folder: "pdftools" },
  { ...fromFixture("name-fullwidth", "invalid_name"), folder: "pdf-tools" },
  fromFixture("name-path-traversal", "invalid_name"),
  generated("a name with a slash", "a", skillText("name: a/b\ndescription: d"), "invalid_name"),
  generated("a name of dots", "a", skillText('name: ".."\ndescription: d'), "invalid_name"),
  generated("a name with a colon and @", "a", skillText('name: "a:b@c"\ndescription: d'), "invalid_name"),
  generated("a name with a NUL escape", "a", skillText('name: "a\\0b"\ndescription: d'), "invalid_name"),
  {
    ...generated(
      "a Cyrillic folder name and no front matter",
      "pdf-tооls",
      "Looks like pdf-tools.\n",
      "invalid_name",
    ),
    strictCode: "missing_front_matter",
  },
  {
    ...generated(
      "a folder name with a zero-width joiner",
      "pdf\u200dtools",
      "Looks like pdftools.\n",
      "invalid_name",
    ),
    strictCode: "missing_front_matter",
  },
  {
    label: "SKILL.md is a symlink to /etc/passwd",
    folder: "passwd-link",
    write: (directory) => symlinkSync("/etc/passwd", join(directory, "SKILL.md")),
    code: "symlink_not_allowed",
    loads: false,
  },
  {
    label: "SKILL.md is a symlink to a valid SKILL.md outside the folder",
    folder: "good-link",
    write: (directory) => {
      const outside = join(dirname(directory), "outside.md");
      writeFileSync(outside, skillText("name: good-link\ndescription: Looks fine."));
      symlinkSync(outside, join(directory, "SKILL.md"));
    },
    code: "symlink_not_allowed",
    loads: false,
  },
  {
    label: "SKILL.md is a dangling symlink",
    folder: "dangling",
    write: (directory) => symlinkSync(join(directory, "nowhere.md"), join(directory, "SKILL.md")),
    code: "symlink_not_allowed",
    loads: false,
  },
  {
    label: "SKILL.md is a FIFO (reading must not block)",
    folder: "fifo",
    write: (directory) => execFileSync("mkfifo", [join(directory, "SKILL.md")]),
    code: "unreadable_file",
    loads: false,
  },
  {
    label: "SKILL.md is a folder",
    folder: "folder",
    write: (directory) => mkdirSync(join(directory, "SKILL.md")),
    code: "unreadable_file",
    loads: false,
  },
  fromFixture("front-matter-list", "front_matter_not_mapping"),
  fromFixture("front-matter-scalar", "front_matter_not_mapping"),
  fromFixture("invalid-yaml", "invalid_front_matter"),
  fromFixture("deep-flow", "any"),
  generated(
    "10,000 balanced brackets",
    "balanced",
    `${head("balanced")}x: ${"[".repeat(10_000)}${"]".repeat(10_000)}\n---\n`,
    "any",
  ),
  generated(
    "10,000 nested flow mappings",
    "nested-maps",
    `${head("nested-maps")}x: ${"{a: ".repeat(10_000)}1${"}".repeat(10_000)}\n---\n`,
    "any",
  ),
  generated(
    "deeply indented block mappings",
    "indented",
    `${head("indented")}x:\n${Array.from({ length: 3_000 }, (_, depth) => `${" ".repeat(depth + 1)}k:`).join("\n")} v\n---\n`,
    "any",
  ),
  { ...fromFixture("schema-unknown-meta-schema", "invalid_parameters_schema", true) },
  { ...fromFixture("schema-remote-meta-schema", "invalid_parameters_schema", true) },
  generated(
    "a parameters schema nested 20,000 deep in JSON text",
    "deep-json",
    skillText(
      `name: deep-json\ndescription: d\nmetadata:\n  parameters_schema: '{"type":"object","x":${"[".repeat(20_000)}${"]".repeat(20_000)}}'`,
    ),
    "invalid_parameters_schema",
  ),
  generated(
    "a parameters schema nested 1,000 properties deep in JSON text",
    "deep-json-schema",
    skillText(
      `name: deep-json-schema\ndescription: d\nmetadata:\n  parameters_schema: '${deepSchema(1_000)}'`,
    ),
    "invalid_parameters_schema",
  ),
  generated(
    "a parameters schema nested 100 properties deep as a YAML mapping",
    "deep-yaml-schema",
    skillText(`name: deep-yaml-schema\ndescription: d\nmetadata:\n  parameters_schema: ${deepSchema(100)}`),
    "invalid_parameters_schema",
  ),
];
// The deep JSON schema row still loads: the schema is dropped, the skill marked.
const loadsAnyway = new Set(["deep-json", "deep-json-schema", "deep-yaml-schema"]);

/** A valid JSON Schema whose properties nest `depth` levels: Ajv's meta-validation recursed past the stack on these. */
function deepSchema(depth: number): string {
  return `${'{"type":"object","properties":{"a":'.repeat(depth)}{}${"}}".repeat(depth)}`;
}

function load(directory: string, mode: ValidationMode): LoadedSkill {
  let loaded: LoadedSkill | undefined;
  expect(() => {
    loaded = loadSkillFolder(directory, { source: "test", mode });
  }).not.toThrow();
  if (loaded === undefined) throw new Error("loadSkillFolder returned nothing");
  return loaded;
}

describe("hostile SKILL.md files", () => {
  describe.each(["lenient", "strict"] as const)("%s", (mode) => {
    it.each(cases.map((row) => [row.label, row] as const))("%s", (_label, row) => {
      const directory = emptySkillFolder(row.folder);
      row.write(directory);
      const root = dirname(directory);
      const before = listing(root);

      const loaded = load(directory, mode);

      const errors = loaded.diagnostics.filter((item) => item.severity === "error");
      if (row.code === "any") expect(errors.length).toBeGreaterThan(0);
      else
        expect(errors.map((item) => item.code)).toEqual([
          mode === "strict" ? (row.strictCode ?? row.code) : row.code,
        ]);
      for (const item of loaded.diagnostics) {
        expect(item.path, `${item.code} names the file`).toBe(join(directory, "SKILL.md"));
        expect(item.message.length).toBeGreaterThan(0);
      }
      if (row.loads || loadsAnyway.has(row.folder)) {
        expect(loaded.skill?.name).toBe(row.folder);
        expect(loaded.governanceInvalid).toBe(true);
        expect(loaded.skill?.governance.parametersSchema).toEqual({ kind: "none" });
      } else {
        expect(loaded.skill).toBeUndefined();
      }
      expect(listing(root)).toEqual(before);
      expect(Object.hasOwn(Object.prototype, "polluted")).toBe(false);
    });
  });

  it("drops __proto__ and constructor keys in front matter and metadata without polluting", () => {
    const directory = emptySkillFolder("proto-key");
    fromFixture("proto-key", "any").write(directory);
    const before = listing(dirname(directory));
    const loaded = load(directory, "lenient");
    expect(loaded.diagnostics).toEqual([]);
    const skill = loaded.skill;
    expect(skill?.name).toBe("proto-key");
    const metadata = skill?.fields?.metadata ?? {};
    expect(Object.keys(metadata)).toEqual(["kept"]);
    expect(metadata.kept).toBe("yes");
    expect(Object.hasOwn(metadata, "__proto__")).toBe(false);
    expect(Object.hasOwn(metadata, "constructor")).toBe(false);
    expect(Object.getPrototypeOf(metadata)).toBe(Object.prototype);
    expect(Object.hasOwn(Object.prototype, "polluted")).toBe(false);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(listing(dirname(directory))).toEqual(before);
  });

  it("strict mode refuses nothing more for the __proto__ fixture than lenient reports", () => {
    const directory = emptySkillFolder("proto-key");
    fromFixture("proto-key", "any").write(directory);
    const loaded = load(directory, "strict");
    expect(loaded.diagnostics).toEqual([]);
    expect(Object.hasOwn(Object.prototype, "polluted")).toBe(false);
  });
});
