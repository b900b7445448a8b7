import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "../../helpers/eventually.js";
import { makeTree } from "../../helpers/skill-tree.js";
import { ECHO_CAPABILITY, echoScript, writeEchoSkill } from "./served-lua-skill.js";

/**
 * The long-lived `skillgate mcp` over stdio (a real child process over real pipes, from the
 * source) reloads a Lua skill like `skillgate serve` does: an edited script answers the next
 * call of the capability's own tool.
 */

const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => {});
});

async function mcpOver() {
  const tree = makeTree("skillgate-mcp-reload-");
  const config = join(tree, "config");
  const home = join(tree, "home");
  mkdirSync(home, { recursive: true });
  mkdirSync(join(tree, "project"), { recursive: true });
  const skill = writeEchoSkill(config);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      "--import",
      "tsx",
      "src/surfaces/cli/main.ts",
      "--config",
      config,
      "--data",
      join(tree, "data"),
      "--root",
      join(tree, "project"),
      "mcp",
    ],
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, NO_COLOR: "1" },
    cwd: process.cwd(),
    stderr: "pipe",
  });
  const client = new Client({ name: "mcp-reload-test", version: "1.0.0" });
  await client.connect(transport);
  clients.push(client);
  /** The capability's own tool; its structured answer (a Lua table's keys come in any order). */
  const call = async (n: number): Promise<{ version?: unknown; product?: unknown } | undefined> =>
    (await client.callTool({ name: ECHO_CAPABILITY, arguments: { n } })).structuredContent as
      | { version?: unknown; product?: unknown }
      | undefined;
  return { skill, call };
}

describe("skillgate mcp reloads Lua skills", () => {
  it("answers with the edited script's generation without a restart", async () => {
    const { skill, call } = await mcpOver();
    expect(await call(3)).toEqual({ version: 1, product: 3 });
    skill.writeScript(echoScript(2));
    await eventually("the edited script answers", async () => (await call(3))?.version === 2, {
      timeoutMs: 30_000,
    });
    expect(await call(4)).toEqual({ version: 2, product: 8 });
  });
});
