import { describe, expect, it } from "vitest";
import { SkillSearchIndex, searchSkills, tokenize } from "../../src/catalog/search.js";
import { Skill } from "../../src/skill/skill.js";

const skill = (name: string, description: string, source = "project") =>
  new Skill({ name, source, description });

const names = (hits: readonly { skill: Skill }[]) => hits.map((hit) => hit.skill.name);

describe("tokenize", () => {
  it("lower-cases, keeps hyphenated words and their parts, drops punctuation", () => {
    expect(tokenize("PDF-Tools: merge, split!")).toEqual(["pdf-tools", "pdf", "tools", "merge", "split"]);
    expect(tokenize("  ... ---  ")).toEqual([]);
    expect(tokenize("Ｆｕｌｌ")).toEqual(["full"]);
  });
});

describe("searchSkills (BM25 over names and descriptions)", () => {
  const catalog = [
    skill("invoice-pdf", "Create invoices as documents for customers."),
    skill("report-writer", "Write a report; can export a pdf once it is done, among many other formats."),
    skill("weather", "Look up the forecast for a city."),
    skill("calendar", "Plan meetings and check free time in a calendar."),
  ];

  it("ranks a skill whose name matches above one whose description mentions the word once", () => {
    const hits = searchSkills(catalog, "pdf");
    expect(names(hits)).toEqual(["invoice-pdf", "report-writer"]);
    expect(hits[0]?.score).toBeGreaterThan(hits[1]?.score ?? Number.POSITIVE_INFINITY);
  });

  it("leaves out skills that share no word with the query", () => {
    expect(names(searchSkills(catalog, "forecast city"))).toEqual(["weather"]);
    expect(searchSkills(catalog, "kubernetes")).toEqual([]);
  });

  it("an empty or punctuation-only query finds nothing", () => {
    expect(searchSkills(catalog, "")).toEqual([]);
    expect(searchSkills(catalog, "   ")).toEqual([]);
    expect(searchSkills(catalog, "?!-")).toEqual([]);
  });

  it("a rarer word outweighs a common one", () => {
    const skills = [
      skill("a-tool", "convert data files"),
      skill("b-tool", "convert data images"),
      skill("c-tool", "convert data audio"),
    ];
    expect(names(searchSkills(skills, "data images"))[0]).toBe("b-tool");
  });

  it("breaks ties by name, whatever the input order", () => {
    const same = [
      skill("zeta", "Resize photos."),
      skill("alpha", "Resize photos."),
      skill("mid", "Resize photos."),
    ];
    expect(names(searchSkills(same, "resize"))).toEqual(["alpha", "mid", "zeta"]);
    expect(names(searchSkills([...same].reverse(), "resize"))).toEqual(["alpha", "mid", "zeta"]);
    const scores = searchSkills(same, "resize").map((hit) => hit.score);
    expect(new Set(scores).size).toBe(1);
  });

  it("returns at most `limit` hits, best first", () => {
    const skills = Array.from({ length: 30 }, (_, index) =>
      skill(`s-${index}`, `topic ${"topic ".repeat(index % 5)}`),
    );
    const hits = searchSkills(skills, "topic", 5);
    expect(hits).toHaveLength(5);
    for (let index = 1; index < hits.length; index += 1)
      expect((hits[index - 1]?.score ?? 0) >= (hits[index]?.score ?? 0)).toBe(true);
    expect(searchSkills(skills, "topic", 0)).toEqual([]);
  });

  it("matches a part of a hyphenated name and the whole name", () => {
    expect(names(searchSkills(catalog, "invoice"))[0]).toBe("invoice-pdf");
    expect(names(searchSkills(catalog, "invoice-pdf"))[0]).toBe("invoice-pdf");
  });

  it("a new catalog array gets a new index", () => {
    const first = [skill("one", "apples")];
    expect(names(searchSkills(first, "apples"))).toEqual(["one"]);
    const second = [skill("two", "apples pears")];
    expect(names(searchSkills(second, "apples"))).toEqual(["two"]);
  });

  it("an empty catalog finds nothing", () => {
    expect(new SkillSearchIndex([]).search("anything")).toEqual([]);
  });
});
