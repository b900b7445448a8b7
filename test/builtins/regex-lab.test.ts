import { describe, expect, it } from "vitest";
import { byMessage, outputLines, runScript, type ScriptRun } from "./run-script.js";

const SCRIPT = "scripts/regex_lab.py";

function run(args: unknown): ScriptRun {
  const result = runScript("regex-lab", SCRIPT, args);
  expect(result.leftInWorkingFolder).toEqual([]);
  expect(result.changedSkillFolder).toBe(false);
  expect(result.stderr).toBe("");
  return result;
}

describe("regex-lab shows matches and groups", () => {
  it("lists every match per line with named groups and a replacement preview", () => {
    const result = run({
      pattern: "(?P<key>\\w+)=(?P<value>\\S*)",
      lines: ["a=1 b=2", "nothing here", "x= y"],
      replacement: "\\g<value>:\\g<key>",
    });
    expect(result.status).toBe(0);
    expect(outputLines(result)).toEqual([
      'Pattern: "(?P<key>\\\\w+)=(?P<value>\\\\S*)"  flags: none  mode: search',
      "Groups: 2 (named: key, value)",
      'line 1: "a=1 b=2"',
      '  match 1 at 0-3: "a=1"  1:key="a"  2:value="1"',
      '  match 2 at 4-7: "b=2"  1:key="b"  2:value="2"',
      '  replaced: "1:a 2:b"',
      'line 2: "nothing here"',
      "  no match",
      '  replaced: "nothing here"',
      'line 3: "x= y"',
      '  match 1 at 0-2: "x="  1:key="x"  2:value=""',
      '  replaced: ":x y"',
      "Summary: 2 of 3 lines matched, 3 matches.",
    ]);
  });

  it("tells a group that took no part from an empty one in fullmatch mode", () => {
    const result = run({
      pattern: "^(\\d{4})-(\\d{2})(-(\\d{2}))?$",
      lines: ["2024-05", "2024-05-06", "24-5"],
      mode: "fullmatch",
    });
    expect(outputLines(result).slice(2)).toEqual([
      'line 1: "2024-05"',
      '  match 1 at 0-7: "2024-05"  1="2024"  2="05"  3=(no part)  4=(no part)',
      'line 2: "2024-05-06"',
      '  match 1 at 0-10: "2024-05-06"  1="2024"  2="05"  3="-06"  4="06"',
      'line 3: "24-5"',
      "  no match",
      "Summary: 2 of 3 lines matched, 2 matches.",
    ]);
  });

  it("match mode anchors at the start only", () => {
    const result = run({ pattern: "\\d+", lines: ["12ab34", "ab34"], mode: "match" });
    expect(outputLines(result)).toContain('  match 1 at 0-2: "12"');
    expect(outputLines(result).at(-1)).toBe("Summary: 1 of 2 lines matched, 1 match.");
  });

  it("matches a whole text with flags and gives line and column", () => {
    const result = run({ pattern: "^error.*$", text: "ok\nERROR: disk full\nerror: net", flags: "im" });
    expect(outputLines(result)).toEqual([
      'Pattern: "^error.*$"  flags: IGNORECASE, MULTILINE  mode: search',
      "Groups: 0",
      "text (30 characters):",
      '  match 1 at line 2 col 1, offset 3-19: "ERROR: disk full"',
      '  match 2 at line 3 col 1, offset 20-30: "error: net"',
      "Summary: the text has 2 matches.",
    ]);
  });

  it("stops listing at max_matches and says so", () => {
    const result = run({ pattern: "\\d", lines: ["1234567890", "99"], max_matches: 3 });
    expect(outputLines(result).filter((line) => line.startsWith("  match"))).toHaveLength(3);
    expect(outputLines(result).at(-1)).toBe(
      "Summary: 1 of 2 lines matched, 3 matches; stopped at max_matches=3.",
    );
  });

  it("notes a pattern written with / delimiters", () => {
    const result = run({ pattern: "/ab+/i", lines: ["ab"] });
    expect(outputLines(result)).toContain(
      "Note: the pattern starts and ends with /; send it without delimiters and put flags in flags.",
    );
  });

  it("shows unicode text as it is", () => {
    const result = run({ pattern: "\\w+", lines: ["größe"] });
    expect(outputLines(result)).toContain('  match 1 at 0-5: "größe"');
  });
});

describe("regex-lab stops a pattern that backtracks catastrophically", () => {
  it("prints what it found, then an ERROR: line, and exits 1", () => {
    const result = run({
      pattern: "(a+)+$",
      lines: ["aaa", `${"a".repeat(40)}!`],
      time_limit_ms: 200,
    });
    expect(result.status).toBe(1);
    const lines = outputLines(result);
    expect(lines.slice(2, 4)).toEqual(['line 1: "aaa"', '  match 1 at 0-3: "aaa"  1="aaa"']);
    expect(lines.at(-1)).toMatch(
      /^ERROR: matching stopped after the 200 ms time limit, on line 2\. The pattern backtracks catastrophically/,
    );
  });
});

describe("regex-lab refuses bad arguments", () => {
  it.each(
    byMessage([
      [
        { pattern: "(", lines: ["x"] },
        "ERROR: pattern does not compile: missing ), unterminated subpattern at position 0",
      ],
      [
        { pattern: "(?<year>\\d+)", lines: ["1"] },
        "ERROR: pattern does not compile: unknown extension ?<y at position 1. Python writes named groups as (?P<name>...)",
      ],
      [
        { pattern: "(?P<a>x)\\k<a>", lines: ["xx"] },
        "ERROR: pattern does not compile: bad escape \\k at position 8. Python refers back to a named group with (?P=name), not \\k<name>",
      ],
      [{ pattern: "", lines: ["x"] }, "ERROR: pattern must be a non-empty string"],
      [{ pattern: "a".repeat(2001), lines: ["x"] }, "ERROR: pattern is longer than 2000 characters"],
      [
        { pattern: "a", lines: ["a"], flags: "g" },
        'ERROR: flags must be a string of the letters i, m, s, x and a, such as "im" (g is not needed',
      ],
      [{ pattern: "a", lines: ["a"], flags: ["i"] }, "ERROR: flags must be a string of the letters"],
      [
        { pattern: "a" },
        "ERROR: send exactly one of lines (a list of strings, each matched on its own) or text (one string)",
      ],
      [{ pattern: "a", lines: ["a"], text: "a" }, "ERROR: send exactly one of lines"],
      [{ pattern: "a", lines: [] }, "ERROR: lines is empty; send at least one sample line"],
      [{ pattern: "a", lines: ["a", 1] }, "ERROR: lines must be a list of strings"],
      [
        { pattern: "a", lines: Array.from({ length: 1001 }, () => "a") },
        "ERROR: lines has 1001 items; the limit is 1000",
      ],
      [{ pattern: "a", lines: ["a".repeat(10_001)] }, "ERROR: line 1 is longer than 10000 characters"],
      [{ pattern: "a", text: "a".repeat(100_001) }, "ERROR: text is longer than 100000 characters"],
      [
        { pattern: "a", lines: ["a"], mode: "findall" },
        "ERROR: mode must be one of search, match, fullmatch",
      ],
      [{ pattern: "a", lines: ["a"], replacement: 3 }, "ERROR: replacement must be a string"],
      [
        { pattern: "a", lines: ["a"], max_matches: 0 },
        "ERROR: max_matches must be a whole number from 1 to 1000",
      ],
      [
        { pattern: "a", lines: ["a"], time_limit_ms: 60_000 },
        "ERROR: time_limit_ms must be a whole number from 100 to 10000",
      ],
    ]),
  )("%s", (message, args) => {
    const result = run(args);
    expect(result.status).toBe(2);
    expect(result.stdout.startsWith(message), result.stdout).toBe(true);
  });

  it("refuses a replacement that names a group the pattern does not have", () => {
    const result = run({ pattern: "(a)|(b)", lines: ["b"], replacement: "\\3" });
    expect(result.status).toBe(2);
    expect(outputLines(result).at(-1)).toBe(
      "ERROR: replacement cannot be used: invalid group reference 3 at position 1 (write groups as \\1 or \\g<name>)",
    );
  });
});
