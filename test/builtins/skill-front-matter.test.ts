import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hashSkillFolder } from "../../src/skill/content-hash.js";
import { parseFrontMatterYaml } from "../../src/skill/front-matter.js";
import { builtinFolder } from "./run-script.js";

/**
 * check_skill.py reads front matter with its own standard-library YAML reader
 * (scripts/skill_front_matter.py). It must read every snippet exactly as skillgate's YAML
 * parsing does, refuse what that refuses, or decline openly; never read it differently.
 */

const FOLDER = builtinFolder("skill-authoring");

/** Front matter snippets read by both the YAML library and the checker's reader; null marks YAML the reader declines. */
const YAML_CASES: readonly (readonly [string, "same" | "declined"])[] = [
  ["name: a\ndescription: plain text\n", "same"],
  ["description: >\n  folded one\n  two\n\n  new paragraph\nlicense: MIT\n", "same"],
  ["description: |\n  kept\n    indented\n  end\n", "same"],
  ["description: |-\n  x\n  y\n\nmetadata:\n  k: v\n", "same"],
  ["description: \"quoted: colon \\u00e9\"\nother: 'it''s'\n", "same"],
  ["description: long plain\n  continued here\n  and here\n", "same"],
  ["metadata:\n  tier: read\n  version: 1.0\n  n: 10\n  flag: true\n  nothing: ~\n  hex: 0x1F\n", "same"],
  [
    "metadata:\n  parameters_schema:\n    type: object\n    required: [a, b]\n    properties:\n      a: {type: string, maxLength: 5}\n      b:\n        type: integer\n        minimum: -3\n    oneOf:\n      - {required: [a]}\n      - required: [b]\n        x: y\n",
    "same",
  ],
  ["allowed-tools:\n- Bash\n- Read\nname: x\n", "same"],
  ["name: a # comment\ndescription: b#not-a-comment\n", "same"],
  ["k: [a, [b, c], {d: [e]}]\nl: {a: 1,\n  b: 2}\n", "same"],
  ["k: yes\nl: 2025-01-01\nm: 1_000\nn: http://example.com/a\n", "same"],
  ['k: ["a, b", \'c\'\'d\', "e: f"]\nl: {"x y": "z", w: \'v\'}\n', "same"],
  ["k:\n- one\n-\n  nested: true\n- [x]\n", "same"],
  ["description: Use this: when x\n", "same"],
  ["name: a\n\tdescription: x\n", "same"],
  ["name: a\nname: b\n", "same"],
  ["name: a\n  description: b\n", "same"],
  ["name: [a, b\n", "same"],
  ["description: @home\n", "same"],
  ["metadata:\n  a: b\n c: d\n", "same"],
  ["description: 'unterminated\n", "same"],
  ["name: &x a\nother: *x\n", "declined"],
  ["k: [a: b]\n", "declined"],
];

const DRIVER = `
import json, sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
from skill_front_matter import Unsupported, YamlError, parse_front_matter
results = []
for text in json.load(sys.stdin):
    try:
        results.append({"value": parse_front_matter(text)})
    except YamlError:
        results.append({"error": True})
    except Unsupported:
        results.append({"declined": True})
print(json.dumps(results))
`;

describe("the checker's YAML reader", () => {
  it("reads front matter exactly as the YAML library does, or declines", () => {
    const before = hashSkillFolder(FOLDER).hash;
    const child = spawnSync("python3", ["-c", DRIVER, join(FOLDER, "scripts")], {
      input: JSON.stringify(YAML_CASES.map(([text]) => text)),
      encoding: "utf8",
    });
    expect(child.stderr).toBe("");
    const results = JSON.parse(child.stdout) as { value?: unknown; error?: true; declined?: true }[];
    YAML_CASES.forEach(([text, expectation], index) => {
      const result = results[index];
      if (expectation === "declined") {
        expect(result?.declined, text).toBe(true);
        return;
      }
      const reference = parseFrontMatterYaml(text);
      if (reference.data === undefined) expect(result?.error, text).toBe(true);
      else expect(result?.value, text).toEqual(reference.data);
    });
    expect(hashSkillFolder(FOLDER).hash).toBe(before);
  });
});
