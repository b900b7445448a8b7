import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { JsonSchema } from "../../../src/skill/parameters-schema.js";
import type { AnyTool } from "../../../src/tools/tool.js";
import { writeSkill } from "../../helpers/skill-tree.js";
import { connectClient, mcpTree, openHost } from "./harness.js";

/** Every `tool(field, …)` the text names, and every other snake_case word that is a tool's name. */
function mentions(text: string, toolNames: ReadonlySet<string>) {
  const calls = [...text.matchAll(/\b([a-z]+(?:_[a-z]+)+)\(([^)]*)\)/g)].map((match) => ({
    tool: match[1] ?? "",
    fields: (match[2] ?? "")
      .split(",")
      .map((field) => field.trim())
      .filter((field) => field !== ""),
  }));
  const bare = [...text.matchAll(/\b[a-z]+(?:_[a-z]+)+\b/g)]
    .map((match) => match[0])
    .filter((word) => toolNames.has(word) || /_(skill|skills|script)$/.test(word));
  return { calls, bare };
}

function fieldsOf(tool: AnyTool): string[] {
  const properties = (tool.inputSchema as JsonSchema & { properties?: Record<string, unknown> }).properties;
  return Object.keys(properties ?? {});
}

describe("the index and the MCP instructions name real tools with their real fields", () => {
  it("every tool(field) in the instructions and the over-budget index is a served tool with that field", async () => {
    const tree = mcpTree();
    // A budget too small for every skill, so the index also names the search tool.
    writeFileSync(
      join(tree.config, "config.yaml"),
      "runners:\n  local:\n    trusted: [echo, wipe]\nindex:\n  budget: 300\n",
    );
    for (let index = 0; index < 20; index += 1)
      writeSkill(tree.skills, `extra-${index}`, {
        frontMatter: { description: `Extra skill number ${index}, which does one small thing.` },
      });
    const { client, session } = await connectClient(await openHost(tree));
    const tools = new Map(session.turn.tools.map((tool) => [tool.name, tool]));
    const served = (await client.listTools()).tools.map((tool) => tool.name);
    expect(served).toEqual([...tools.keys()]);

    const index = session.turn.skillIndex();
    expect(index).toContain("not listed here");
    const instructions = client.getInstructions() ?? "";
    for (const text of [index, instructions]) {
      const { calls, bare } = mentions(text, new Set(tools.keys()));
      expect(calls.length).toBeGreaterThan(0);
      for (const call of calls) {
        const tool = tools.get(call.tool);
        expect(tool, `${call.tool} is a tool`).toBeDefined();
        if (tool === undefined) continue;
        for (const field of call.fields) expect(fieldsOf(tool), `${call.tool}(${field})`).toContain(field);
        const required = (tool.inputSchema as { required?: string[] }).required ?? [];
        for (const field of required) expect(call.fields, `${call.tool} needs ${field}`).toContain(field);
      }
      for (const word of bare) expect(tools.has(word), `${word} is a tool`).toBe(true);
    }
    expect(index).toContain("`load_skill(skill)`");
    expect(index).toContain("`search_skills(query)`");
    expect(instructions).toContain("`load_skill(skill)`");
    expect(instructions).toContain("`run_skill_script(skill, script, arguments)`");
  });

  it("the instructions tell the model to retry a call waiting for approval from this same session", async () => {
    const { client } = await connectClient(await openHost(mcpTree()));
    expect(client.getInstructions()).toContain(
      "make exactly the same call again from this same MCP session once it is approved",
    );
  });
});
