import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { childEnvironment, cliMain, ensureBuilt, runBuiltCli } from "./built-cli.js";
import { mcpTree, resultText } from "./harness.js";

/** `skillgate mcp` over stdio, spawned from the build as an MCP client spawns it. */

beforeAll(() => ensureBuilt());

const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => {});
});

const echoCall = {
  name: "run_skill_script",
  arguments: { skill: "echo", script: "scripts/echo.py", arguments: { x: 1 } },
};

/** A real SDK client over a spawned `skillgate mcp`. */
async function stdioClient(flags: readonly string[], home: string, elicit?: "once"): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cliMain, ...flags, "mcp"],
    env: childEnvironment(home),
    cwd: home,
    stderr: "pipe",
  });
  const client = new Client(
    { name: "skillgate-stdio-test", version: "1.0.0" },
    { capabilities: elicit !== undefined ? { elicitation: { form: {} } } : {} },
  );
  if (elicit !== undefined)
    client.setRequestHandler(ElicitRequestSchema, () => ({
      action: "accept",
      content: { decision: elicit },
    }));
  await client.connect(transport);
  clients.push(client);
  return client;
}

function homeOf(tree: { tree: string }): string {
  const home = join(tree.tree, "home");
  mkdirSync(home, { recursive: true });
  return home;
}

describe("skillgate mcp over stdio", () => {
  it("stdout carries only JSON-RPC messages while skillgate's own lines go to stderr", async () => {
    const tree = mcpTree();
    const home = homeOf(tree);
    const child = spawn(process.execPath, [cliMain, ...tree.flags, "mcp"], {
      cwd: home,
      env: childEnvironment(home),
      stdio: ["pipe", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      err += chunk;
    });
    const answered = (id: number) =>
      new Promise<void>((resolve) => {
        const check = (): void => {
          if (out.split("\n").some((line) => line.includes(`"id":${id}`) && line.startsWith("{"))) {
            child.stdout.off("data", check);
            resolve();
          }
        };
        child.stdout.on("data", check);
        check();
      });
    const send = (message: object): void => void child.stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    });
    await answered(1);
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    // Arguments sent as JSON text are repaired, and the repair is logged: a line on stderr.
    send({
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: {
        name: "run_skill_script",
        arguments: { skill: "notes", script: "scripts/noop.py", arguments: "{}" },
      },
    });
    send({ jsonrpc: "2.0", id: 4, method: "resources/read", params: { uri: "skill://notes/SKILL.md" } });
    send({
      jsonrpc: "2.0",
      id: 5,
      method: "resources/read",
      params: { uri: "skill://notes/../echo/SKILL.md" },
    });
    await Promise.all([answered(2), answered(3), answered(4), answered(5)]);
    child.stdin.end();
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code).toBe(0);
    const lines = out.split("\n").filter((line) => line !== "");
    expect(lines.length).toBe(5);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: "2.0" });
    const byId = new Map(
      lines.map((line) => JSON.parse(line) as { id: number }).map((message) => [message.id, message]),
    );
    expect(JSON.stringify(byId.get(3))).toContain("noop");
    expect(byId.get(5)).toMatchObject({ error: { code: -32602, data: { code: "path_not_allowed" } } });
    expect(err).toMatch(/^skillgate: info: /m);
  });

  it("serves a real SDK client: tools, a resource with its digest, and the skill index prompt", async () => {
    const tree = mcpTree();
    const client = await stdioClient(tree.flags, homeOf(tree));
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain("run_skill_script");
    const read = await client.readResource({ uri: "skill://notes/references/guide.md" });
    const bytes = readFileSync(join(tree.skills, "notes", "references", "guide.md"));
    expect(read.contents[0]?._meta?.sha256).toBe(createHash("sha256").update(bytes).digest("hex"));
    const loaded = await client.callTool({ name: "load_skill", arguments: { skill: "notes" } });
    expect(resultText(loaded)).toContain('<skill name="notes">');
    const prompt = await client.getPrompt({ name: "skill-index" });
    expect(JSON.stringify(prompt.messages)).toContain("echo");
  });

  it("an ask answered from the CLI: the call waits, `skillgate approve ID` (another process), the same call runs", async () => {
    const tree = mcpTree();
    const home = homeOf(tree);
    const client = await stdioClient(tree.flags, home);
    const waiting = await client.callTool(echoCall);
    expect(waiting._meta?.status).toBe("awaiting_approval");
    const id = /skillgate approve ([0-9a-f-]{36})/.exec(resultText(waiting))?.[1] ?? "";
    const listed = runBuiltCli([...tree.flags, "approvals", "--json"], home);
    expect(listed.out).toContain(id);
    const approved = runBuiltCli([...tree.flags, "approve", id], home);
    expect(approved.code, approved.err).toBe(0);
    const ran = await client.callTool(echoCall);
    expect(resultText(ran)).toContain('echo {"x": 1}');
    expect(ran.isError).toBe(false);
  });

  it("an ask answered by elicitation over stdio", async () => {
    const tree = mcpTree();
    const client = await stdioClient(tree.flags, homeOf(tree), "once");
    const ran = await client.callTool(echoCall);
    expect(resultText(ran)).toContain('echo {"x": 1}');
  });

  it("--plan serves plan mode: changes are denied", async () => {
    const tree = mcpTree();
    const home = homeOf(tree);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cliMain, ...tree.flags, "mcp", "--plan"],
      env: childEnvironment(home),
      cwd: home,
      stderr: "pipe",
    });
    const client = new Client({ name: "plan", version: "1" });
    await client.connect(transport);
    clients.push(client);
    const result = await client.callTool(echoCall);
    expect(result._meta?.status).toBe("denied");
  });
});
