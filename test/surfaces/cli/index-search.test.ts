import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeSkill } from "../../helpers/skill-tree.js";
import { type CliSandbox, cliSandbox, hasStackTrace } from "./harness.js";

function manySkills(sandbox: CliSandbox, count: number): void {
  for (let index = 0; index < count; index += 1) {
    const name = `skill-${String(index).padStart(2, "0")}`;
    writeSkill(sandbox.skills, name, {
      frontMatter: {
        name,
        description: `Handles task number ${index} with care and a long explanation of when to use it.`,
      },
    });
  }
}

describe("skillgate index", () => {
  it("prints the block a model sees, never a body", async () => {
    const sandbox = cliSandbox();
    writeSkill(sandbox.skills, "alpha", {
      frontMatter: { name: "alpha", description: "Does a." },
      body: "SECRET BODY\n",
    });
    const result = await sandbox.run(["index"]);
    expect(result.code).toBe(0);
    expect(result.out).toBe(
      "## Skills\n\nKnow-how available to you. Read one with `read_skill(name)` when its description matches what you are about to do, *before* you do it.\n\n- `alpha` -- Does a.\n",
    );
  });

  it("prints nothing for no skills", async () => {
    const result = await cliSandbox().run(["index"]);
    expect(result).toEqual({ code: 0, out: "", err: "" });
  });

  it("--budget leaves skills out, says how many and points to search_skills(query)", async () => {
    const sandbox = cliSandbox();
    manySkills(sandbox, 40);
    const result = await sandbox.run(["index", "--budget", "1200", "--json"]);
    expect(result.code).toBe(0);
    const parsed = JSON.parse(result.out) as {
      text: string;
      listed: string[];
      unlisted: number;
      descriptionLength: number;
    };
    expect(Object.keys(parsed)).toEqual(["text", "listed", "unlisted", "descriptionLength"]);
    expect(parsed.unlisted).toBeGreaterThan(0);
    expect(parsed.listed.length + parsed.unlisted).toBe(40);
    expect(parsed.text.length).toBeLessThanOrEqual(1200);
    expect(parsed.text).toContain(
      `${parsed.unlisted} more skills are not listed here. Call \`search_skills(query)\``,
    );
    const plain = await sandbox.run(["index", "--budget", "1200"]);
    expect(plain.out).toBe(`${parsed.text}\n`);
  });

  it("takes the budget from the configuration when no --budget is given", async () => {
    const sandbox = cliSandbox();
    manySkills(sandbox, 40);
    sandbox.writeConfig("index:\n  budget: 900\n");
    const parsed = JSON.parse((await sandbox.run(["index", "--json"])).out) as {
      text: string;
      unlisted: number;
    };
    expect(parsed.text.length).toBeLessThanOrEqual(900);
    expect(parsed.unlisted).toBeGreaterThan(0);
  });

  it("--xml prints the <available_skills> block", async () => {
    const sandbox = cliSandbox();
    writeSkill(sandbox.skills, "alpha", { frontMatter: { name: "alpha", description: "Use <a> & b." } });
    const result = await sandbox.run(["index", "--xml"]);
    expect(result.code).toBe(0);
    expect(result.out).toBe(
      `<available_skills>\n<skill>\n<name>\nalpha\n</name>\n<description>\nUse &lt;a&gt; &amp; b.\n</description>\n<location>\n${join(sandbox.skills, "alpha", "SKILL.md")}\n</location>\n</skill>\n</available_skills>\n`,
    );
    expect((await cliSandbox().run(["index", "--xml"])).out).toBe(
      "<available_skills>\n</available_skills>\n",
    );
  });

  it.each([["x"], ["0"], ["-5"], ["1.5"], ["12abc"]])(
    "a bad --budget %s exits 2 with one line",
    async (value) => {
      const result = await cliSandbox().run(["index", "--budget", value]);
      expect(result.code).toBe(2);
      expect(result.out).toBe("");
      expect(result.err.split("\n")).toHaveLength(2);
      expect(result.err.endsWith("\n")).toBe(true);
      expect(result.err).toMatch(/^skillgate: .*--budget takes a whole number above 0/);
      expect(result.err).toContain(`(got "${value}")`);
      expect(hasStackTrace(result.err)).toBe(false);
    },
  );
});

describe("skillgate search", () => {
  function searchSandbox(): CliSandbox {
    const sandbox = cliSandbox();
    writeSkill(sandbox.skills, "invoice-pdf", {
      frontMatter: { name: "invoice-pdf", description: "Create invoices." },
    });
    writeSkill(sandbox.skills, "report-writer", {
      frontMatter: {
        name: "report-writer",
        description: "Write reports; can export a pdf among other formats.",
      },
    });
    writeSkill(sandbox.skills, "weather", { frontMatter: { name: "weather", description: "The forecast." } });
    return sandbox;
  }

  it("ranks by name and description and prints a table", async () => {
    const result = await searchSandbox().run(["search", "pdf"]);
    expect(result.code).toBe(0);
    const lines = result.out.trimEnd().split("\n");
    expect(lines[0]?.split(/\s{2,}/)).toEqual(["NAME", "SCORE", "DESCRIPTION"]);
    expect(lines.slice(1).map((line) => line.split(/\s{2,}/)[0])).toEqual(["invoice-pdf", "report-writer"]);
  });

  it("joins several words into one query, and --json gives name, score, source and description", async () => {
    const result = await searchSandbox().run(["search", "export", "pdf", "--json"]);
    const parsed = JSON.parse(result.out) as { results: Record<string, unknown>[] };
    expect(parsed.results.map((hit) => hit.name)).toEqual(["report-writer", "invoice-pdf"]);
    expect(Object.keys(parsed.results[0] ?? {})).toEqual(["name", "score", "source", "description"]);
    expect(parsed.results[0]).toMatchObject({
      source: "project",
      description: expect.stringContaining("pdf"),
    });
    expect(typeof parsed.results[0]?.score).toBe("number");
  });

  it("--limit caps the results; no match says so", async () => {
    const sandbox = searchSandbox();
    const limited = JSON.parse((await sandbox.run(["search", "pdf", "--limit", "1", "--json"])).out) as {
      results: unknown[];
    };
    expect(limited.results).toHaveLength(1);
    expect((await sandbox.run(["search", "kubernetes"])).out).toBe("No skill matches.\n");
  });

  it("a missing query or a bad --limit is a usage error", async () => {
    const sandbox = searchSandbox();
    const missing = await sandbox.run(["search"]);
    expect(missing.code).toBe(2);
    expect(missing.err).toBe(
      "skillgate: missing required argument 'query' (run skillgate --help for usage)\n",
    );
    const badLimit = await sandbox.run(["search", "pdf", "--limit", "none"]);
    expect(badLimit.code).toBe(2);
    expect(badLimit.err).toMatch(/^skillgate: .*--limit takes a whole number above 0/);
  });

  it("searches registered skills only", async () => {
    const sandbox = searchSandbox();
    sandbox.writeConfig("skills:\n  disabled: [invoice-pdf]\n");
    const parsed = JSON.parse((await sandbox.run(["search", "pdf", "--json"])).out) as {
      results: { name: string }[];
    };
    expect(parsed.results.map((hit) => hit.name)).toEqual(["report-writer"]);
  });
});
