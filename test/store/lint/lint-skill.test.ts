import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  formatReviewWarnings,
  LINT_RULES,
  lintSkill,
  lintSkillFiles,
  MAX_REVIEW_WARNINGS_TEXT,
  MAX_WARNINGS_PER_RULE_AND_FILE,
} from "../../../src/store/lint/index.js";

/**
 * Review lint against its fixtures: test/fixtures/lint/<rule>/<case>/ is a skill folder
 * with an expected.json listing exactly the warnings (rule, file, line) it must produce.
 * Every rule has cases that trigger it and near misses (`near-miss-*`) that must produce
 * nothing at all.
 */

const FIXTURES = fileURLToPath(new URL("../../fixtures/lint/", import.meta.url));

const cases = LINT_RULES.flatMap((rule) =>
  readdirSync(join(FIXTURES, rule))
    .sort()
    .map((name) => ({ rule, name, folder: join(FIXTURES, rule, name) })),
);

describe("lint fixtures", () => {
  it("every rule has a fixture that triggers it and a near miss that does not", () => {
    for (const rule of LINT_RULES) {
      const names = cases.filter((item) => item.rule === rule).map((item) => item.name);
      expect(
        names.some((name) => name.startsWith("near-miss-")),
        rule,
      ).toBe(true);
      expect(
        names.some((name) => !name.startsWith("near-miss-")),
        rule,
      ).toBe(true);
    }
  });

  it.each(cases)("$rule / $name", async ({ rule, name, folder }) => {
    const expected = JSON.parse(readFileSync(join(folder, "expected.json"), "utf8")) as unknown[];
    const warnings = await lintSkill(folder);
    expect(warnings.map(({ rule: id, file, line }) => ({ rule: id, file, line }))).toEqual(expected);
    if (name.startsWith("near-miss-")) expect(warnings).toEqual([]);
    else expect(warnings.every((warning) => warning.rule === rule && warning.message.length > 20)).toBe(true);
  });
});

describe("lintSkillFiles", () => {
  const skill = (metadata: string) =>
    `---\nname: probe\ndescription: A probe.\nmetadata:\n${metadata}\n---\n\nBody.\n`;

  it("reads files from memory, the same as from a folder", () => {
    const warnings = lintSkillFiles({
      "SKILL.md": skill("  skillgate.tier: read"),
      "scripts/clean.sh": "rm -rf /tmp/x\n",
    });
    expect(warnings).toEqual([
      expect.objectContaining({ rule: "read-tier-changes", file: "scripts/clean.sh", line: 1 }),
    ]);
  });

  it("finds the language of a file without an extension from its #! line", () => {
    const warnings = lintSkillFiles(
      new Map<string, string | Uint8Array>([
        ["SKILL.md", skill("  skillgate.tier: change")],
        ["scripts/run", '#!/usr/bin/env bash\neval "$1"\n'],
        ["scripts/notes", 'eval "$1"\n'],
        ["assets/blob.bin", new Uint8Array([0, 1, 2])],
      ]),
    );
    expect(warnings.map((warning) => [warning.rule, warning.file, warning.line])).toEqual([
      ["command-passthrough", "scripts/run", 2],
    ]);
  });

  it("a script declared in a per-script schema is not flagged for unvalidated arguments; another is", () => {
    const schema = `  parameters_schema: '{"scripts/a.py":{"type":"object"}}'`;
    const reads = 'import os\nprint(os.environ["SKILLGATE_SKILL_ARGS"])\n';
    const warnings = lintSkillFiles({
      "SKILL.md": skill(`  skillgate.tier: read\n${schema}`),
      "scripts/a.py": reads,
      "scripts/b.py": reads,
    });
    expect(warnings.map((warning) => [warning.rule, warning.file])).toEqual([
      ["unvalidated-arguments", "scripts/b.py"],
    ]);
  });

  it("a queued script with network none is flagged, with network bridge it is not", () => {
    const files = (network: string) => ({
      "SKILL.md": skill(`  skillgate.execution: queue\n  skillgate.network: ${network}`),
      "scripts/get.sh": "curl -fsS https://example.com\n",
    });
    expect(lintSkillFiles(files("none")).map((warning) => warning.rule)).toEqual(["network-call"]);
    expect(lintSkillFiles(files("bridge"))).toEqual([]);
  });

  it(`keeps at most ${MAX_WARNINGS_PER_RULE_AND_FILE} warnings of one rule in one file`, () => {
    const warnings = lintSkillFiles({
      "SKILL.md": skill("  skillgate.tier: read"),
      "scripts/many.sh": "rm a\n".repeat(20),
    });
    expect(warnings).toHaveLength(MAX_WARNINGS_PER_RULE_AND_FILE);
  });
});

describe("formatReviewWarnings", () => {
  it("joins warnings into one line with file, line and rule", () => {
    const text = formatReviewWarnings([
      { rule: "command-passthrough", file: "scripts/a.py", line: 3, message: "m" },
      { rule: "network-call", file: "scripts/b.sh", line: 1, message: "m" },
    ]);
    expect(text).toBe(
      "scripts/a.py:3 command-passthrough (an argument may reach a shell); scripts/b.sh:1 network-call (network call the runner may not allow or expect)",
    );
    expect(text).not.toContain("\n");
  });

  it(`stays within ${MAX_REVIEW_WARNINGS_TEXT} characters and says how many were left out`, () => {
    const many = Array.from({ length: 200 }, (_, index) => ({
      rule: "read-tier-changes" as const,
      file: `scripts/file-${index}.sh`,
      line: index + 1,
      message: "m",
    }));
    const text = formatReviewWarnings(many);
    expect(text.length).toBeLessThanOrEqual(MAX_REVIEW_WARNINGS_TEXT);
    expect(text).toMatch(/; and \d+ more$/);
  });
});
