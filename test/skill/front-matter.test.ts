import { describe, expect, it } from "vitest";
import { parseFrontMatterYaml, splitFrontMatter } from "../../src/skill/front-matter.js";

describe("splitFrontMatter", () => {
  it("splits front matter from the body", () => {
    expect(splitFrontMatter("---\nname: a\n---\nbody\n")).toEqual({
      yaml: "name: a\n",
      body: "body\n",
      unterminated: false,
    });
  });

  it("drops a UTF-8 byte order mark", () => {
    expect(splitFrontMatter("\ufeff---\nname: a\n---\nbody")).toEqual({
      yaml: "name: a\n",
      body: "body",
      unterminated: false,
    });
  });

  it("turns CRLF and lone CR line ends into LF in front matter and body", () => {
    expect(splitFrontMatter("---\r\nname: a\r\n---\r\nline one\r\nline two\r")).toEqual({
      yaml: "name: a\n",
      body: "line one\nline two\n",
      unterminated: false,
    });
  });

  it("handles a BOM and CRLF together", () => {
    const split = splitFrontMatter("\ufeff---\r\ndescription: d\r\n---\r\n");
    expect(split.yaml).toBe("description: d\n");
    expect(split.body).toBe("");
  });

  it("does not close on --- inside a value", () => {
    const split = splitFrontMatter("---\ndescription: a --- b\ntitle: ---x\n---\nbody");
    expect(split.yaml).toBe("description: a --- b\ntitle: ---x\n");
    expect(split.body).toBe("body");
  });

  it("does not close on a ---- line, nor on --- with trailing or leading text", () => {
    const split = splitFrontMatter("---\na: 1\n----\nb: 2\n--- \n ---\n---\nbody");
    expect(split.yaml).toBe("a: 1\n----\nb: 2\n--- \n ---\n");
    expect(split.body).toBe("body");
  });

  it("treats a file without an opening --- line as body only", () => {
    expect(splitFrontMatter("Say what changed.\n\nAnd nothing else.\n")).toEqual({
      yaml: undefined,
      body: "Say what changed.\n\nAnd nothing else.\n",
      unterminated: false,
    });
    expect(splitFrontMatter("----\nname: a\n---\n").yaml).toBeUndefined();
    expect(splitFrontMatter(" ---\nname: a\n---\n").yaml).toBeUndefined();
    expect(splitFrontMatter("").yaml).toBeUndefined();
  });

  it("reports unterminated front matter and keeps the whole file as body", () => {
    expect(splitFrontMatter("---\nname: a\ndescription: d\n")).toEqual({
      yaml: undefined,
      body: "---\nname: a\ndescription: d\n",
      unterminated: true,
    });
    expect(splitFrontMatter("---").unterminated).toBe(true);
    expect(splitFrontMatter("---\n").unterminated).toBe(true);
  });

  it("accepts empty front matter", () => {
    expect(splitFrontMatter("---\n---\nbody")).toEqual({ yaml: "", body: "body", unterminated: false });
  });

  it("accepts a closing line at the very end of the file", () => {
    expect(splitFrontMatter("---\nname: a\n---")).toEqual({
      yaml: "name: a\n",
      body: "",
      unterminated: false,
    });
  });
});

describe("parseFrontMatterYaml", () => {
  it("parses a mapping", () => {
    expect(parseFrontMatterYaml("name: a\ndescription: Does a.\n")).toEqual({
      data: { name: "a", description: "Does a." },
      diagnostics: [],
    });
  });

  it("gives an empty mapping for empty front matter or only a comment", () => {
    expect(parseFrontMatterYaml("")).toEqual({ data: {}, diagnostics: [] });
    expect(parseFrontMatterYaml("# nothing here\n")).toEqual({ data: {}, diagnostics: [] });
  });

  it("reads YAML 1.2 core: yes/no/on are text, dates are text, ~ is null", () => {
    const parsed = parseFrontMatterYaml("a: yes\nb: on\nc: 2024-01-02\nd: ~\ne: 0o17\n");
    expect(parsed.data).toEqual({ a: "yes", b: "on", c: "2024-01-02", d: null, e: 15 });
  });

  it("does not merge << keys (YAML 1.2 has no merge)", () => {
    const parsed = parseFrontMatterYaml("base: &b {x: 1}\n<<: *b\n");
    expect(parsed.data).toEqual({ base: { x: 1 }, "<<": { x: 1 } });
  });

  it("names the path in its diagnostics", () => {
    const parsed = parseFrontMatterYaml("a: [", "/skills/a/SKILL.md");
    expect(parsed.data).toBeUndefined();
    expect(parsed.diagnostics).toEqual([
      expect.objectContaining({
        code: "invalid_front_matter",
        severity: "error",
        path: "/skills/a/SKILL.md",
      }),
    ]);
  });

  it.each([
    ["a list", "- a\n- b\n"],
    ["a scalar", "just text\n"],
    ["a number", "42\n"],
  ])("refuses %s as front matter (front_matter_not_mapping)", (_label, yaml) => {
    const parsed = parseFrontMatterYaml(yaml);
    expect(parsed.data).toBeUndefined();
    expect(parsed.diagnostics.map((item) => item.code)).toEqual(["front_matter_not_mapping"]);
  });

  it("refuses a second YAML document inside the front matter", () => {
    const parsed = parseFrontMatterYaml("a: 1\n...\n---\nb: 2\n");
    expect(parsed.data).toBeUndefined();
    expect(parsed.diagnostics.map((item) => item.code)).toEqual(["invalid_front_matter"]);
  });
});
