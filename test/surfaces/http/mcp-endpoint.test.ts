import { existsSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import { AuditLog } from "../../../src/observe/audit-log.js";
import { eventually } from "../../helpers/eventually.js";
import { startTestServer, type TestServer, type TestServerFolders } from "../../helpers/http-server.js";
import { writeSkill } from "../../helpers/skill-tree.js";

/** `/mcp` of `skillgate serve`: the MCP host's sessions and tools behind the owner's bearer token, and a stop with a call running. */

const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => {});
});

const CONFIG = "runners:\n  local:\n    trusted: [echo, slow]\n";

/** `echo` prints its arguments; `slow` marks that it started and sleeps ten minutes. */
function writeSkills(folders: TestServerFolders): void {
  writeSkill(folders.skills, "echo", {
    frontMatter: {
      name: "echo",
      description: "Echoes its arguments.",
      metadata: { "skillgate.execution": "local", "skillgate.tier": "read" },
    },
    files: {
      "scripts/echo.py":
        "import json, sys\nprint('echo', json.dumps(json.load(sys.stdin), sort_keys=True))\n",
    },
  });
  writeSkill(folders.skills, "slow", {
    frontMatter: {
      name: "slow",
      description: "Takes its time.",
      metadata: { "skillgate.execution": "local", "skillgate.tier": "read" },
    },
    files: {
      "scripts/slow.py": `import time\nopen(${JSON.stringify(join(folders.tree, "started"))}, "w").close()\ntime.sleep(600)\n`,
    },
  });
}

async function mcpClient(
  served: TestServer,
  token: string = served.token,
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(`${served.origin}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: "serve-test", version: "1.0.0" });
  await client.connect(transport);
  clients.push(client);
  return { client, transport };
}

function text(result: object): string {
  const content = (result as { content?: Array<{ text?: string }> }).content;
  return content?.[0]?.text ?? "";
}

describe("/mcp", () => {
  it("serves the host's tools to a client with the owner's token, one host session per client", async () => {
    const served = await startTestServer({ configYaml: CONFIG, prepare: writeSkills, builtins: false });
    const { client, transport } = await mcpClient(served);
    const tools = (await client.listTools()).tools.map((tool) => tool.name);
    expect(tools).toContain("run_skill_script");
    expect(served.server.context.host.sessionCount).toBe(1);
    const result = await client.callTool({
      name: "run_skill_script",
      arguments: { skill: "echo", script: "scripts/echo.py", arguments: { x: 1 } },
    });
    expect(text(result)).toContain('echo {"x": 1}');
    // Ending the session (DELETE /mcp) closes the host's session and its chat.
    await transport.terminateSession();
    await eventually("the session closed", () => served.server.context.host.sessionCount === 0);
  });

  it("refuses a client with a wrong token (401) and opens no session", async () => {
    const served = await startTestServer({ configYaml: CONFIG, prepare: writeSkills, builtins: false });
    await expect(mcpClient(served, "wrong")).rejects.toThrow(/unauthorized/);
    expect(served.server.context.host.sessionCount).toBe(0);
  });

  it("on stop interrupts a running call: the client gets the interrupted result, the audit log records it", async () => {
    const served = await startTestServer({ configYaml: CONFIG, prepare: writeSkills, builtins: false });
    const { client } = await mcpClient(served);
    const call = client.callTool({
      name: "run_skill_script",
      arguments: { skill: "slow", script: "scripts/slow.py", arguments: {} },
    });
    await eventually("the script started", () => existsSync(join(served.folders.tree, "started")));
    await served.server.close();
    const result = await call;
    expect(result.isError).toBe(true);
    expect(result._meta?.status).toBe("interrupted");
    expect(text(result).startsWith("HOST:")).toBe(true);
    const finished = new AuditLog({ dataFolder: served.folders.data })
      .query({ type: "tool-call-finished" })
      .filter((event) => event.tool === "run_skill_script");
    expect(finished.map((event) => event.status)).toEqual(["interrupted"]);
    expect(existsSync(join(served.folders.data, "skills", ".lock"))).toBe(false);
  });
});
