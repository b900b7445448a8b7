import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { hasErrors } from "../../src/core/diagnostics.js";
import { hashSkillFolder } from "../../src/skill/content-hash.js";
import { loadSkillFolder, loadSkillText } from "../../src/skill/load-skill.js";
import { builtinFolder, outputLines, runScript } from "./run-script.js";

const SCRIPT = "scripts/check_skill.py";
const FOLDER = builtinFolder("skill-authoring");
const HASH_BEFORE = hashSkillFolder(FOLDER).hash;

interface Finding {
  readonly severity: string;
  readonly code: string;
  readonly text: string;
}

/** Runs check_skill and reads its verdict line and findings. */
function check(args: object): { verdict: string; findings: Finding[] } {
  const run = runScript("skill-authoring", SCRIPT, args);
  expect(run.status, run.stdout).toBe(0);
  expect(run.stderr).toBe("");
  expect(run.leftInWorkingFolder).toEqual([]);
  expect(run.changedSkillFolder).toBe(false);
  const [verdict = "", ...rest] = outputLines(run);
  const findings = rest.map((line) => {
    const match = /^(error|warning|note)\s+\[([a-z_]+)\] (.*)$/.exec(line);
    expect(match, line).not.toBeNull();
    return { severity: match?.[1] ?? "", code: match?.[2] ?? "", text: match?.[3] ?? "" };
  });
  return { verdict, findings };
}

function codes(findings: readonly Finding[], severity: string): string[] {
  return [...new Set(findings.filter((item) => item.severity === severity).map((item) => item.code))].sort();
}

/** A SKILL.md from front matter lines and a body. */
function skillMd(frontMatter: string, body = "Run `scripts/run.py` with a path.\n"): string {
  return `---\n${frontMatter}\n---\n\n${body}`;
}

const VALID = [
  "name: ok-skill",
  "description: Checks things. Use when a user asks to check things on a server.",
  "metadata:",
  "  skillgate.tier: read",
].join("\n");

/** [label, SKILL.md text, folder name, error codes both check_skill and strict validation report]. */
const AGREEMENT: readonly (readonly [string, string, string, readonly string[]])[] = [
  ["a valid skill", skillMd(VALID), "ok-skill", []],
  [
    "a name with upper case and an underscore",
    skillMd(VALID.replace("name: ok-skill", "name: Ok_Skill")),
    "ok-skill",
    ["invalid_name", "name_mismatch"],
  ],
  [
    "a name with a double hyphen",
    skillMd(VALID.replace("name: ok-skill", "name: ok--skill")),
    "ok--skill",
    ["invalid_name"],
  ],
  [
    "a name of 65 characters",
    skillMd(VALID.replace("name: ok-skill", `name: ${"a".repeat(65)}`)),
    "a".repeat(65),
    ["name_too_long"],
  ],
  ["a name that differs from its folder", skillMd(VALID), "other-skill", ["name_mismatch"]],
  [
    "a name with a look-alike letter",
    skillMd(VALID.replace("name: ok-skill", "name: оk-skill")),
    "ok-skill",
    ["invalid_name"],
  ],
  ["no name", skillMd(VALID.replace("name: ok-skill\n", "")), "ok-skill", ["missing_name"]],
  ["no description", skillMd(VALID.replace(/description: .*\n/, "")), "ok-skill", ["missing_description"]],
  [
    "a description of 1,025 characters",
    skillMd(VALID.replace(/description: .*/, `description: ${"d".repeat(1025)}`)),
    "ok-skill",
    ["description_too_long"],
  ],
  [
    "a description that is a number",
    skillMd(VALID.replace(/description: .*/, "description: 42")),
    "ok-skill",
    ["invalid_field"],
  ],
  [
    "compatibility of 501 characters",
    skillMd(`${VALID}\ncompatibility: ${"c".repeat(501)}`),
    "ok-skill",
    ["invalid_field"],
  ],
  [
    "a top-level key the specification does not have",
    skillMd(`${VALID}\nversion: "1.0"`),
    "ok-skill",
    ["unknown_field"],
  ],
  [
    "metadata that is a list",
    skillMd(VALID.replace("metadata:\n  skillgate.tier: read", "metadata: [a]")),
    "ok-skill",
    ["invalid_metadata"],
  ],
  ["an unquoted number in metadata", skillMd(`${VALID}\n  version: 1.0`), "ok-skill", ["invalid_metadata"]],
  [
    "allowed-tools as a mapping",
    skillMd(`${VALID}\nallowed-tools: {a: b}`),
    "ok-skill",
    ["invalid_allowed_tools"],
  ],
  [
    "an unknown tier",
    skillMd(VALID.replace("tier: read", "tier: write")),
    "ok-skill",
    ["invalid_governance"],
  ],
  [
    "an unknown execution mode",
    skillMd(`${VALID}\n  skillgate.execution: spark`),
    "ok-skill",
    ["invalid_governance"],
  ],
  ["an unknown network", skillMd(`${VALID}\n  skillgate.network: host`), "ok-skill", ["invalid_governance"]],
  [
    "a wildcard allowed domain",
    skillMd(`${VALID}\n  skillgate.allowed-domains: "*.example.com"`),
    "ok-skill",
    ["invalid_governance"],
  ],
  [
    "an allowed domain with a scheme",
    skillMd(`${VALID}\n  skillgate.allowed-domains: [https://api.github.com]`),
    "ok-skill",
    ["invalid_governance"],
  ],
  [
    "a schema whose type is not object",
    skillMd(`${VALID}\n  parameters_schema: {type: string}`),
    "ok-skill",
    ["invalid_parameters_schema"],
  ],
  [
    "a schema that is text but not JSON",
    skillMd(`${VALID}\n  parameters_schema: "{not json"`),
    "ok-skill",
    ["invalid_parameters_schema"],
  ],
  [
    "a per-script schema for a path outside the skill",
    skillMd(`${VALID}\n  parameters_schema:\n    ../run.py: {type: object}`),
    "ok-skill",
    ["invalid_parameters_schema"],
  ],
  [
    "an unquoted colon in the description",
    skillMd(VALID.replace(/description: .*/, "description: Backups: check them. Use when asked.")),
    "ok-skill",
    ["invalid_front_matter"],
  ],
  ["a key given twice", skillMd(`${VALID}\nname: ok-skill`), "ok-skill", ["duplicate_key"]],
  [
    "a tab used for indentation",
    skillMd(VALID.replace("  skillgate.tier", "\tskillgate.tier")),
    "ok-skill",
    ["invalid_front_matter"],
  ],
  ["no closing --- line", `---\n${VALID}\n\nBody.\n`, "ok-skill", ["unterminated_front_matter"]],
  ["front matter that is a list", skillMd("- a\n- b"), "ok-skill", ["front_matter_not_mapping"]],
];

describe("check_skill agrees with skillgate's strict validation", () => {
  it.each(AGREEMENT)("%s", (_label, text, folder, expected) => {
    const checked = check({ skill_md: text, folder_name: folder });
    expect(codes(checked.findings, "error")).toEqual([...expected].sort());
    expect(checked.verdict.startsWith(expected.length === 0 ? "PASS:" : "FAIL:")).toBe(true);
    const strict = loadSkillText(text, join(tmpdir(), "skills", folder), { source: "test", mode: "strict" });
    const strictCodes = [
      ...new Set(strict.diagnostics.filter((item) => item.severity === "error").map((item) => item.code)),
    ];
    expect(strictCodes.sort()).toEqual([...expected].sort());
  });

  it("agrees about a SKILL.md with no front matter, which the specification requires", () => {
    const text = "# Checks things\n\nUse when a user asks to check things.\n";
    expect(codes(check({ skill_md: text, folder_name: "ok-skill" }).findings, "error")).toEqual([
      "missing_front_matter",
    ]);
    const strict = loadSkillText(text, join(tmpdir(), "ok-skill"), { source: "test", mode: "strict" });
    expect(strict.diagnostics.map((item) => [item.code, item.severity])).toEqual([
      ["missing_front_matter", "error"],
    ]);
    // Lenient loading (discovery) still takes the folder name and the first paragraph.
    expect(
      hasErrors(
        loadSkillText(text, join(tmpdir(), "ok-skill"), { source: "test", mode: "lenient" }).diagnostics,
      ),
    ).toBe(false);
  });
});

describe("check_skill gives advice beyond validation", () => {
  it.each([
    [
      "a misspelt skillgate key",
      `${VALID}\n  skillgate.tiers: read`,
      "warning",
      "unknown_governance_key",
      "did you mean skillgate.tier?",
    ],
    [
      "a key from the reference system",
      `${VALID}\n  lucia.execution: node`,
      "warning",
      "foreign_governance_key",
      "rename it to skillgate.execution",
    ],
    [
      "a governance key without its prefix",
      `${VALID}\n  tier: read`,
      "warning",
      "unknown_governance_key",
      "rename it to skillgate.tier",
    ],
    [
      "network on a sandbox skill",
      `${VALID}\n  skillgate.network: bridge`,
      "warning",
      "network_ignored",
      "applies only to queue scripts",
    ],
    [
      "a short description",
      VALID.replace(/description: .*/, "description: Checks."),
      "warning",
      "short_description",
      "rarely tells a model",
    ],
    [
      "no tier",
      VALID.replace("  skillgate.tier: read", "  skillgate.execution: sandbox"),
      "note",
      "advice",
      "no tier: it defaults to change",
    ],
    [
      "a schema left open",
      `${VALID}\n  parameters_schema: {type: object}`,
      "note",
      "advice",
      "additionalProperties: false",
    ],
  ])("%s", (_label, frontMatter, severity, code, words) => {
    const checked = check({ skill_md: skillMd(frontMatter), folder_name: "ok-skill" });
    const finding = checked.findings.find((item) => item.code === code && item.text.includes(words));
    expect(finding?.severity, JSON.stringify(checked.findings)).toBe(severity);
  });

  it("checks the body against the file list", () => {
    const body =
      "Run `scripts/run.py`. Read [the guide](references/guide.md).\n\n```\nscripts/example.py\n```\n";
    const checked = check({
      skill_md: skillMd(`${VALID}\n  parameters_schema:\n    scripts/gone.py: {type: object}`, body),
      folder_name: "ok-skill",
      files: ["SKILL.md", "scripts/run.py", "scripts/forgotten.py", "scripts/tool.sh", "../outside.txt"],
    });
    const summary = checked.findings.map(
      (item) => `${item.severity} ${item.code} ${item.text.split(":")[0]}`,
    );
    expect(summary).toEqual(
      expect.arrayContaining([
        "error invalid_parameters_schema metadata.parameters_schema",
        "error path_not_allowed ../outside.txt",
        "warning script_not_mentioned scripts/forgotten.py",
        "warning missing_file references/guide.md",
        "note advice scripts/tool.sh",
      ]),
    );
    expect(summary.some((line) => line.includes("scripts/example.py"))).toBe(false);
  });

  it("refuses more than 200 files, an empty body and a body models would see clipped", () => {
    const files = Array.from({ length: 201 }, (_, index) => `references/${index}.md`);
    expect(codes(check({ skill_md: skillMd(VALID), files }).findings, "error")).toContain("limit_exceeded");
    expect(codes(check({ skill_md: skillMd(VALID, "") }).findings, "warning")).toEqual(["empty_body"]);
    expect(codes(check({ skill_md: skillMd(VALID, "x".repeat(20_001)) }).findings, "warning")).toEqual([
      "body_clipped",
    ]);
  });

  it("says INCOMPLETE, not PASS, for YAML it does not read", () => {
    const checked = check({
      skill_md: skillMd(`${VALID}\n  a: &anchor x\n  b: *anchor`),
      folder_name: "ok-skill",
    });
    expect(checked.verdict).toBe("INCOMPLETE: 0 errors, 0 warnings, 1 note");
    expect(checked.findings[0]?.code).toBe("not_checked");
  });
});

describe("the skill-authoring files", () => {
  it.each(
    readdirSync(join(FOLDER, ".."), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name),
  )("built-in %s passes check_skill with no findings at all", (name) => {
    const folder = builtinFolder(name);
    const files = readdirSync(folder, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => relative(folder, join(entry.parentPath, entry.name)).split("\\").join("/"));
    const checked = check({
      skill_md: readFileSync(join(folder, "SKILL.md"), "utf8"),
      folder_name: name,
      files,
    });
    expect(checked.findings).toEqual([]);
    expect(checked.verdict).toBe("PASS: 0 errors, 0 warnings, 0 notes");
  });

  it("the example SKILL.md in the skill's own body passes strict validation", () => {
    const body = readFileSync(join(FOLDER, "SKILL.md"), "utf8");
    const example = /^```markdown\n([\s\S]*?)^```$/m.exec(body)?.[1] ?? "";
    expect(example.startsWith("---\nname: disk-report\n")).toBe(true);
    const loaded = loadSkillText(example, join(tmpdir(), "disk-report"), { source: "test", mode: "strict" });
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.skill?.governance.execution).toBe("node");
  });

  it("the SKILL.md template passes strict validation and check_skill as it is", () => {
    const root = mkdtempSync(join(tmpdir(), "skillgate-template-"));
    try {
      const folder = join(root, "my-skill");
      mkdirSync(folder);
      copyFileSync(join(FOLDER, "assets", "SKILL.template.md"), join(folder, "SKILL.md"));
      expect(loadSkillFolder(folder, { source: "test", mode: "strict" }).diagnostics).toEqual([]);
      const text = readFileSync(join(folder, "SKILL.md"), "utf8");
      expect(codes(check({ skill_md: text, folder_name: "my-skill" }).findings, "error")).toEqual([]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

afterAll(() => {
  // Every run above imported the helper modules; none may have left bytecode or anything else behind.
  expect(hashSkillFolder(FOLDER).hash).toBe(HASH_BEFORE);
});
