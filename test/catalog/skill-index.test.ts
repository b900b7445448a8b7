import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { describeSkillIndex, skillIndex } from "../../src/catalog/skill-index.js";
import { DEFAULT_INDEX_BUDGET, SKILL_DESC_MAX } from "../../src/core/limits.js";
import { Skill } from "../../src/skill/skill.js";

const words = "parse report deploy image table chart query format archive compare review upload".split(" ");

/** `count` skills from `source`, named `<prefix>-<n>`, with descriptions about `length` long. */
function manySkills(count: number, source: string, prefix: string, length = 200): Skill[] {
  return Array.from({ length: count }, (_, index) => {
    let description = `Skill ${index} of ${source}:`;
    for (let word = 0; description.length < length; word += 1)
      description += ` ${words[(index + word) % words.length]}`;
    return new Skill({
      name: `${prefix}-${String(index).padStart(3, "0")}`,
      source,
      description,
      body: "BODY TEXT",
    });
  });
}

/** The heading the block starts with (everything before the first skill line). */
const heading = (): string => {
  const text = skillIndex([new Skill({ name: "x", source: "s", description: "d" })]);
  return text.slice(0, text.indexOf("- `x`"));
};

const trailerFor = (unlisted: number) =>
  `\n\n${unlisted} more skill${unlisted === 1 ? " is" : "s are"} not listed here. Call \`search_skills(query)\` with a few words about the task to find them.`;

/** A deterministic shuffle (so a failing case can be replayed). */
function shuffled<Item>(items: readonly Item[], seed: number): Item[] {
  const copy = [...items];
  let state = seed;
  for (let index = copy.length - 1; index > 0; index -= 1) {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    const other = state % (index + 1);
    [copy[index], copy[other]] = [copy[other] as Item, copy[index] as Item];
  }
  return copy;
}

describe("skillIndex with a budget", () => {
  it("lists everything in name order with full descriptions when the budget allows", () => {
    const skills = manySkills(5, "project", "p");
    const result = describeSkillIndex(shuffled(skills, 1));
    expect(result.unlisted).toBe(0);
    expect(result.listed).toEqual(skills.map((skill) => skill.name));
    expect(result.descriptionLength).toBe(SKILL_DESC_MAX);
    expect(result.text.length).toBeLessThanOrEqual(DEFAULT_INDEX_BUDGET);
    expect(result.text).not.toContain("search_skills");
    expect(result.text).not.toContain("BODY TEXT");
  });

  it("shortens descriptions before it leaves any skill out", () => {
    const skills = manySkills(20, "project", "p", 240);
    const full = describeSkillIndex(skills, { budget: 1_000_000 });
    const budget = Math.floor(full.text.length * 0.6);
    const result = describeSkillIndex(skills, { budget });
    expect(result.unlisted).toBe(0);
    expect(result.listed).toHaveLength(20);
    expect(result.descriptionLength).toBeLessThan(SKILL_DESC_MAX);
    expect(result.text.length).toBeLessThanOrEqual(budget);
    for (const skill of skills) expect(result.text).toContain(`\`${skill.name}\``);
  });

  it("when skills must be left out it says how many and points to search_skills(query)", () => {
    const skills = manySkills(100, "project", "p");
    const result = describeSkillIndex(skills, { budget: 2_000 });
    expect(result.unlisted).toBeGreaterThan(0);
    expect(result.listed.length + result.unlisted).toBe(100);
    expect(result.text.endsWith(trailerFor(result.unlisted))).toBe(true);
    expect(result.text).toContain("search_skills(query)");
    expect(result.text.length).toBeLessThanOrEqual(2_000);
    for (const name of result.listed) expect(result.text).toContain(`\`${name}\``);
    const listed = new Set(result.listed);
    for (const skill of skills.filter((item) => !listed.has(item.name)))
      expect(result.text).not.toContain(`\`${skill.name}\``);
  });

  it("names the tools it was given", () => {
    const result = describeSkillIndex(manySkills(50, "project", "p"), {
      budget: 1_000,
      readTool: "open_skill",
      searchTool: "find_skills",
    });
    expect(result.text).toContain("`open_skill(name)`");
    expect(result.text).toContain("`find_skills(query)`");
  });

  it("names each tool with the input field it was given", () => {
    const result = describeSkillIndex(manySkills(50, "project", "p"), {
      budget: 1_000,
      readTool: "load_skill",
      readField: "skill",
      searchTool: "search_skills",
      searchField: "words",
    });
    expect(result.text).toContain("`load_skill(skill)`");
    expect(result.text).toContain("`search_skills(words)`");
    expect(result.text).not.toContain("(name)");
  });

  it("is deterministic: the same skills in any order give the same block", () => {
    const skills = [
      ...manySkills(200, "builtin", "b"),
      ...manySkills(40, "user", "u"),
      ...manySkills(7, "project", "p"),
    ];
    const first = describeSkillIndex(skills, { budget: 3_000 });
    expect(describeSkillIndex(skills, { budget: 3_000 })).toEqual(first);
    for (const seed of [2, 3, 4])
      expect(describeSkillIndex(shuffled(skills, seed), { budget: 3_000 })).toEqual(first);
  });

  it("is fair across sources: 500 skills of one source do not push out the 3 of another", () => {
    const big = manySkills(500, "builtin", "b");
    const small = manySkills(3, "project", "p");
    for (const input of [[...big, ...small], [...small, ...big], shuffled([...big, ...small], 5)]) {
      const result = describeSkillIndex(input, { budget: 2_500 });
      expect(result.unlisted).toBeGreaterThan(400);
      for (const skill of small) expect(result.listed).toContain(skill.name);
      expect(result.listed.some((name) => name.startsWith("b-"))).toBe(true);
    }
  });

  it("when only one line fits, the most specific source gets it, whatever the input order", () => {
    const skills = [
      ...manySkills(5, "builtin", "b", 40),
      ...manySkills(5, "project", "p", 40),
      ...manySkills(5, "package:x", "x", 40),
    ];
    const oneLine = `- \`p-000\` -- ${skills[5]?.description}`;
    const budget = heading().length + 1 + oneLine.length + trailerFor(skills.length).length;
    for (const seed of [6, 7, 8]) {
      const result = describeSkillIndex(shuffled(skills, seed), { budget });
      expect(result.listed).toEqual(["p-000"]);
      expect(result.unlisted).toBe(14);
    }
  });

  it("takes turns across three sources, so each gets about the same number of lines", () => {
    const skills = [
      ...manySkills(100, "builtin", "b"),
      ...manySkills(100, "user", "u"),
      ...manySkills(100, "project", "p"),
    ];
    const result = describeSkillIndex(skills, { budget: 4_000 });
    const counts = ["b-", "u-", "p-"].map(
      (prefix) => result.listed.filter((name) => name.startsWith(prefix)).length,
    );
    expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
  });

  it("a budget below the heading and trailer lists nothing but still says how many exist", () => {
    const result = describeSkillIndex(manySkills(10, "project", "p"), { budget: 10 });
    expect(result.listed).toEqual([]);
    expect(result.unlisted).toBe(10);
    expect(result.text).toContain("10 more skills are not listed here");
  });

  it("the singular reads right", () => {
    const skills = manySkills(2, "project", "p", 60);
    const full = describeSkillIndex(skills, { budget: 100_000 }).text;
    const result = describeSkillIndex(skills, { budget: full.length - 1 });
    if (result.unlisted === 1) expect(result.text).toContain("1 more skill is not listed here.");
    expect(result.listed.length + result.unlisted).toBe(2);
  });

  it("property: never longer than the budget once the budget holds the heading and trailer; nothing disappears", () => {
    const head = heading();
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            name: fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/),
            source: fc.constantFrom("builtin", "package:x", "user", "project"),
            description: fc.string({ minLength: 1, maxLength: 400 }),
          }),
          { minLength: 1, maxLength: 60 },
        ),
        fc.integer({ min: 0, max: 6_000 }),
        (records, extra) => {
          const unique = [...new Map(records.map((record) => [record.name, record])).values()];
          const skills = unique.map(
            (record) =>
              new Skill({ name: record.name, source: record.source, description: record.description }),
          );
          const budget = head.length + trailerFor(skills.length).length + extra;
          const result = describeSkillIndex(skills, { budget });
          expect(result.text.length).toBeLessThanOrEqual(budget);
          expect(result.listed.length + result.unlisted).toBe(skills.length);
          expect(new Set(result.listed).size).toBe(result.listed.length);
          if (result.unlisted > 0) expect(result.text.endsWith(trailerFor(result.unlisted))).toBe(true);
        },
      ),
      { numRuns: 200, seed: 20_260_101 },
    );
  });
});
