import { writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { locateFrontMatter, splitFrontMatter } from "../../src/skill/front-matter.js";
import { type LoadedSkill, loadSkillFolder, loadSkillHead } from "../../src/skill/load-skill.js";
import { readSkillFileHead, readSkillFileText } from "../../src/skill/read-skill-file.js";
import { documentArbitrary } from "./front-matter-arbitraries.js";
import { emptySkillFolder } from "./skill-folders.js";

/**
 * Discovery reads only the front matter of a SKILL.md (`readSkillFileHead`, cut out of the
 * bytes by `locateFrontMatter`) and loads the skill from it (`loadSkillHead`). Whatever a
 * file holds, that must give exactly what reading and splitting the whole text gives:
 * the same YAML, the same diagnostics, the same skill.
 */

/** Pieces of SKILL.md files, biased towards what the byte cut must get right. */
const pieceArbitrary = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom(
      "---\n",
      "---",
      "----\n",
      "--- \n",
      " ---\n",
      "---\r\n",
      "---\r",
      "\r\n",
      "\r",
      "\n",
      "\n\n",
      "name: a\n",
      "description: d\n",
      "a: --- b\n",
      "body text\n",
      "é中😀\n",
      "\ufeff",
      "\u2028",
    ),
  },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 6 }) },
);

const fileArbitrary = fc
  .tuple(
    fc.constantFrom("", "", "", "\ufeff", "\ufeff\ufeff"),
    fc.constantFrom("---\n", "---\n", "---\n", "---\r\n", "---\r", "---", "", "--\n"),
    fc.array(pieceArbitrary, { maxLength: 12 }),
    fc.boolean(),
  )
  .map(([bom, open, pieces, keepCarriageReturns]) => {
    const text = `${bom}${open}${pieces.join("")}`;
    // Half the files without CR, so the cut is taken often enough to be tested.
    return keepCarriageReturns ? text : text.replaceAll("\r", "");
  });

const utf8 = (text: string) => Buffer.from(text, "utf8");

describe("locateFrontMatter (the byte cut)", () => {
  it("finds exactly the YAML splitFrontMatter finds, or leaves the file to it (property)", () => {
    let located = 0;
    fc.assert(
      fc.property(fileArbitrary, (text) => {
        const bytes = utf8(text);
        const range = locateFrontMatter(bytes);
        if (range === undefined) return;
        located += 1;
        const split = splitFrontMatter(bytes.toString("utf8"));
        expect(split.unterminated, JSON.stringify(text)).toBe(false);
        expect(bytes.toString("utf8", range.start, range.end), JSON.stringify(text)).toBe(split.yaml);
      }),
      { numRuns: 5_000 },
    );
    expect(located).toBeGreaterThan(300);
  });

  it("cuts the common file, with or without a BOM, and leaves CR, unterminated and bare files to the split", () => {
    const cut = (text: string) => {
      const bytes = utf8(text);
      const range = locateFrontMatter(bytes);
      return range === undefined ? undefined : bytes.toString("utf8", range.start, range.end);
    };
    expect(cut("---\nname: a\n---\nbody\n")).toBe("name: a\n");
    expect(cut("\ufeff---\nname: a\n---\nbody")).toBe("name: a\n");
    expect(cut("---\nname: a\n---")).toBe("name: a\n");
    expect(cut("---\n---\n")).toBe("");
    expect(cut("---\na: 1\n----\n--- \n ---\n---\nbody\r\n")).toBe("a: 1\n----\n--- \n ---\n");
    expect(cut("---\r\nname: a\r\n---\r\n")).toBeUndefined();
    expect(cut("---\nname: a\r\n---\n")).toBeUndefined();
    expect(cut("---\nname: a\r---\n")).toBeUndefined();
    expect(cut("---\nname: a\n")).toBeUndefined();
    expect(cut("---")).toBeUndefined();
    expect(cut("name: a\n")).toBeUndefined();
    expect(cut("\ufeff\ufeff---\nname: a\n---\n")).toBeUndefined();
  });
});

/** What the two ways of loading give, reduced to what a decision is made from. */
function outcome(loaded: LoadedSkill) {
  const skill = loaded.skill;
  return {
    diagnostics: loaded.diagnostics,
    governanceInvalid: loaded.governanceInvalid,
    skill:
      skill === undefined
        ? undefined
        : {
            name: skill.name,
            source: skill.source,
            description: skill.description,
            where: skill.where,
            directory: skill.directory,
            fields: skill.fields,
            governance: skill.governance,
            text: skill.text(),
          },
  };
}

/** Loads `content` both ways from one SKILL.md and expects the same outcome. */
function expectSameLoad(content: string | Uint8Array, folder = "a-skill"): LoadedSkill {
  const directory = emptySkillFolder(folder);
  const path = join(directory, "SKILL.md");
  writeFileSync(path, content);
  const whole = loadSkillFolder(directory, { source: "config" });
  const head = readSkillFileHead(path);
  const text = readSkillFileText(path);
  if (!head.ok || !text.ok) {
    expect(head).toEqual(text);
    expect([...(head.ok ? [] : [head.diagnostic])]).toEqual(whole.diagnostics);
    return whole;
  }
  expect(head.stats.ino).toBe(text.stats.ino);
  if (head.yaml === undefined) expect(head.text).toBe(text.text);
  else expect(head.yaml).toBe(splitFrontMatter(text.text).yaml);
  const fromHead = loadSkillHead(head, directory, path, { source: "config" });
  expect(outcome(fromHead), JSON.stringify(content.toString())).toEqual(outcome(whole));
  return fromHead;
}

describe("readSkillFileHead and loadSkillHead (discovery's read)", () => {
  it("load every generated SKILL.md exactly as the whole text does (property)", () => {
    const frontMatter = fc.oneof(
      documentArbitrary,
      fc.constantFrom(
        "name: a-skill\ndescription: d\n",
        "name: a-skill\ndescription: >-\n  folded\n  text\nmetadata:\n  skillgate.tier: read\n",
        "name: a-skill\ndescription: d\nmetadata:\n  skillgate.tier: maybe\n",
        "description: d\nallowed-tools: Read  Write\n",
      ),
    );
    fc.assert(
      fc.property(
        fc.tuple(
          frontMatter,
          fc.constantFrom("\n", "\r\n"),
          fc.constantFrom("", "\ufeff"),
          fc.constantFrom("Body.\n", "", "\r\nBody\r\n", "x\u0000y", "é\n"),
        ),
        ([yaml, end, bom, body]) => {
          expectSameLoad(`${bom}---${end}${yaml.replaceAll("\n", end)}${end}---${end}${body}`);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("loads the unusual files the same way: CR line ends, BOM, no front matter, unterminated", () => {
    const cases = [
      "---\nname: a-skill\ndescription: d\n---\nBody.\n",
      "\ufeff---\nname: a-skill\ndescription: d\n---\nBody.\n",
      "---\r\nname: a-skill\r\ndescription: d\r\n---\r\nBody.\r\n",
      "---\nname: a-skill\rdescription: d\r---\rBody.",
      "---\nname: a-skill\ndescription: d\n---\r\nBody with CRLF.\r\n",
      "Say what changed.\n\nAnd nothing else.\n",
      "---\nname: a-skill\ndescription: d\n",
      "---",
      "",
      "---\n---\nBody only.\n",
      "---\nname: a-skill\n---\nBody.\n",
      `---\nname: a-skill\ndescription: d\nblob: ${"a".repeat(100 * 1024)}\n---\n`,
    ];
    for (const content of cases) expectSameLoad(content);
  });

  it("still checks the whole file: a NUL or invalid UTF-8 in the body rejects it", () => {
    const head = "---\nname: a-skill\ndescription: d\n---\n";
    const withNul = expectSameLoad(Buffer.concat([utf8(head), Buffer.from([0x62, 0, 0x63])]));
    expect(withNul.diagnostics.map((item) => item.code)).toEqual(["binary_content"]);
    const latin1 = expectSameLoad(Buffer.concat([utf8(head), Buffer.from([0x63, 0x61, 0x66, 0xe9])]));
    expect(latin1.diagnostics.map((item) => item.code)).toEqual(["binary_content"]);
  });

  it("a file over the size limit is refused before it is read", () => {
    const loaded = expectSameLoad(`---\nname: a-skill\ndescription: d\n---\n${"a".repeat(1024 * 1024)}`);
    expect(loaded.diagnostics.map((item) => item.code)).toEqual(["file_too_large"]);
  });

  it("reads files larger than the reused buffer, and later small files are not disturbed", () => {
    const body = "long body line\n".repeat(6_000);
    const big = expectSameLoad(`---\nname: a-skill\ndescription: big\n---\n${body}`);
    expect(big.skill?.description).toBe("big");
    const small = expectSameLoad("---\nname: a-skill\ndescription: small\n---\nBody.\n");
    expect(small.skill?.description).toBe("small");
  });
});
