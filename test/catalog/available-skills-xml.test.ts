import { describe, expect, it } from "vitest";
import { availableSkillsXml } from "../../src/catalog/available-skills-xml.js";
import { Skill } from "../../src/skill/skill.js";

/**
 * The `<available_skills>` block of the Agent Skills reference library's `to-prompt`:
 * one element per line, name and description escaped as Python's `html.escape` does.
 */

const skill = (name: string, description: string, where: string) =>
  new Skill({ name, source: "project", description, where });

describe("availableSkillsXml", () => {
  it("matches the reference format byte for byte", () => {
    const xml = availableSkillsXml([
      skill("my-skill", "What this skill does and when to use it", "/path/to/my-skill/SKILL.md"),
    ]);
    expect(xml).toBe(
      "<available_skills>\n<skill>\n<name>\nmy-skill\n</name>\n<description>\nWhat this skill does and when to use it\n</description>\n<location>\n/path/to/my-skill/SKILL.md\n</location>\n</skill>\n</available_skills>",
    );
    expect(Buffer.from(xml).includes("\r")).toBe(false);
    expect(xml.endsWith("\n")).toBe(false);
  });

  it("is exactly the empty element for no skills", () => {
    expect(availableSkillsXml([])).toBe("<available_skills>\n</available_skills>");
  });

  it("escapes & < > \" and ' as html.escape(quote=True) does", () => {
    const xml = availableSkillsXml([skill("a&b", `Use <foo> & "bar" or 'baz'`, "/p/SKILL.md")]);
    expect(xml).toContain("\n<name>\na&amp;b\n</name>\n");
    expect(xml).toContain(
      "\n<description>\nUse &lt;foo&gt; &amp; &quot;bar&quot; or &#x27;baz&#x27;\n</description>\n",
    );
  });

  it("escapes & first, so an entity in the text stays visible as text", () => {
    const xml = availableSkillsXml([skill("x", "&lt; is not <", "/p/SKILL.md")]);
    expect(xml).toContain("\n&amp;lt; is not &lt;\n");
  });

  it("keeps the caller's order and lists every skill", () => {
    const xml = availableSkillsXml([skill("zeta", "z", "/z/SKILL.md"), skill("alpha", "a", "/a/SKILL.md")]);
    expect(xml.indexOf("zeta")).toBeLessThan(xml.indexOf("alpha"));
    expect(xml.match(/<skill>/g)).toHaveLength(2);
    expect(xml.split("\n")).toEqual([
      "<available_skills>",
      "<skill>",
      "<name>",
      "zeta",
      "</name>",
      "<description>",
      "z",
      "</description>",
      "<location>",
      "/z/SKILL.md",
      "</location>",
      "</skill>",
      "<skill>",
      "<name>",
      "alpha",
      "</name>",
      "<description>",
      "a",
      "</description>",
      "<location>",
      "/a/SKILL.md",
      "</location>",
      "</skill>",
      "</available_skills>",
    ]);
  });

  it("escapes a location that holds markup characters, so a folder name cannot inject elements", () => {
    const xml = availableSkillsXml([skill("x", "d", "/skills/</location><skill>/SKILL.md")]);
    expect(xml).toContain("\n<location>\n/skills/&lt;/location&gt;&lt;skill&gt;/SKILL.md\n</location>\n");
    expect(xml.match(/<skill>/g)).toHaveLength(1);
  });
});
