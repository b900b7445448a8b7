import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { generateText, stepCountIs } from "ai";
import { describe, expect, it } from "vitest";
import { skillgateTools } from "../../src/surfaces/ai-sdk/index.js";
import { eventually } from "../helpers/eventually.js";
import type { TestServer, TestServerFolders } from "../helpers/http-server.js";
import { requireTools } from "../helpers/required-tools.js";
import { scriptedModel, toolOutputsSeen } from "../surfaces/ai-sdk/scripted-model.js";
import {
  addNode,
  enrolledAgent,
  REPOSITORY,
  runLines,
  runOn,
  startController,
  streamed,
  writeNodeSkill,
} from "./nodes-harness.js";

requireTools("bwrap", "python3");

/** `where` prints its arguments and which node ran it; `stream` prints a line and then sleeps. */
function writeSkills(folders: TestServerFolders): void {
  writeNodeSkill(folders, "where", {
    "scripts/where.py":
      "import json, os, sys\nargs = json.load(sys.stdin)\nprint('args', json.dumps(args, sort_keys=True))\nprint('argv', sys.argv[1:])\nprint('to stderr', file=sys.stderr)\nsys.exit(args.get('code', 0))\n",
  });
  writeNodeSkill(folders, "stream", {
    "scripts/stream.py": "import time\nprint('first', flush=True)\ntime.sleep(600)\nprint('never')\n",
  });
}

async function controllerWithTwoNodes(): Promise<{
  server: TestServer;
  lab01: Awaited<ReturnType<typeof enrolledAgent>>;
  lab02: Awaited<ReturnType<typeof enrolledAgent>>;
}> {
  const server = await startController(writeSkills);
  const [lab01, lab02] = await Promise.all([enrolledAgent(server, "lab01"), enrolledAgent(server, "lab02")]);
  return { server, lab01, lab02 };
}

function auditEvents(server: TestServer): Array<Record<string, unknown>> {
  return readFileSync(join(server.folders.data, "audit", "audit.jsonl"), "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("a node-mode skill on two real agents", () => {
  it("runs on the named node only, from its own copy; the other node never sees it; the audit names the node", async () => {
    const { server, lab01, lab02 } = await controllerWithTwoNodes();
    const { lines, result } = await runOn(server, {
      skill: "where",
      script: "scripts/where.py",
      arguments: '{"node": "lab01", "b": 2, "a": 1}',
    });
    expect(result).toMatchObject({ status: "ok", exitCode: 0 });
    // The node name is the controller's to read; the script gets the rest.
    expect(streamed(lines)).toBe('args {"a": 1, "b": 2}\nargv []\n');
    expect(streamed(lines, "stderr")).toBe("to stderr\n");
    const started = await lab01.waitFor(/run started .*skill=where/);
    const requestId = /requestId=(\S+)/.exec(started)?.[1] ?? "";
    expect(requestId).not.toBe("");
    expect(lab02.lines.some((line) => line.includes("run started") || line.includes(requestId))).toBe(false);
    const nodeRun = auditEvents(server).find((event) => event.type === "node-run");
    expect(nodeRun).toMatchObject({ node: "lab01", skill: "where", status: "ok" });
  });

  it("streams output while the script still runs, and closing the request cancels the run on the node", async () => {
    const { server, lab01 } = await controllerWithTwoNodes();
    const abort = new AbortController();
    const response = await server.fetch("/api/runs", {
      method: "POST",
      body: {
        skill: "stream",
        script: "scripts/stream.py",
        arguments: '{"node": "lab01"}',
        approval: "once",
      },
      signal: abort.signal,
    });
    const reader = response.body?.getReader();
    if (reader === undefined) throw new Error("no body");
    let text = "";
    const decoder = new TextDecoder();
    while (!text.includes('"chunk":"first\\n"')) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the answer ended before the first line: ${text}`);
      text += decoder.decode(value, { stream: true });
    }
    // The script sleeps for ten minutes after "first": the line came while it was running.
    expect(runLines(text).some((line) => line.type === "result")).toBe(false);
    abort.abort();
    await lab01.waitFor(/run ended .*status=interrupted/);
    await eventually("no run in flight on lab01", async () => {
      const listed = await server.json<{ nodes: Array<{ name: string; runsInFlight: number }> }>(
        "/api/nodes",
      );
      return listed.body.nodes.find((node) => node.name === "lab01")?.runsInFlight === 0;
    });
  });

  it("answers at once for an unknown node and for an offline one, naming them", async () => {
    const { server } = await controllerWithTwoNodes();
    const unknown = await runOn(server, {
      skill: "where",
      script: "scripts/where.py",
      arguments: '{"node": "nope"}',
    });
    expect(unknown.result.status).toBe("refused");
    expect(unknown.result.text).toContain("HOST: no node is named nope; known nodes: lab01, lab02.");
    await addNode(server, "lab03");
    const offline = await runOn(server, {
      skill: "where",
      script: "scripts/where.py",
      arguments: '{"node": "lab03"}',
    });
    expect(offline.result.status).toBe("refused");
    expect(offline.result.text).toContain("HOST: node lab03 is offline (last seen never)");
    const missing = await runOn(server, { skill: "where", script: "scripts/where.py" });
    expect(missing.result.text).toContain('HOST: arguments has no "node" key');
  });
});

describe("run_skill_script with a node, through every surface", () => {
  it("over the server's /mcp: normalised arguments, the run on lab01, the grant bound to name@hash8", async () => {
    const { server, lab01 } = await controllerWithTwoNodes();
    const transport = new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${server.token}` } },
    });
    const client = new Client({ name: "nodes-e2e", version: "1.0.0" });
    await client.connect(transport);
    try {
      // A top-level node next to arguments given as JSON text: both repaired, as the seed says.
      const result = await client.callTool({
        name: "run_skill_script",
        arguments: { skill: "where", script: "scripts/where.py", arguments: '{"x": "y"}', node: "lab01" },
      });
      const content = (result as { content: Array<{ text: string }> }).content;
      expect(content[0]?.text).toContain('args {"x": "y"}');
      await lab01.waitFor(/run ended .*status=ok/);
    } finally {
      await client.close();
    }
    const called = auditEvents(server).find((event) => event.type === "node-run");
    expect(called).toMatchObject({ node: "lab01", skill: "where" });
    expect(String(called?.hash8)).toMatch(/^[0-9a-f]{8}$/);
  });

  it("through the AI SDK adapter with a scripted model", async () => {
    const { server, lab02 } = await controllerWithTwoNodes();
    const turn = server.server.context.host.skillgate.createTurn({ chatId: "ai-sdk-nodes" });
    const model = scriptedModel([
      { call: "load_skill", input: { skill: "where" } },
      {
        call: "run_skill_script",
        input: { skill: "where", script: "scripts/where.py", arguments: { node: "lab02", n: 7 } },
      },
      { say: "It ran on lab02." },
    ]);
    await generateText({
      model,
      prompt: "Where does it run?",
      tools: skillgateTools(turn),
      stopWhen: stepCountIs(5),
    });
    const calls = model.doGenerateCalls;
    expect(calls).toHaveLength(3);
    // load_skill showed the node skill's schema, which requires `node`.
    expect(JSON.stringify(toolOutputsSeen(calls[1]))).toContain("node");
    expect(JSON.stringify(toolOutputsSeen(calls[2]))).toContain('args {\\"n\\": 7}');
    await lab02.waitFor(/run ended .*status=ok/);
  });

  it("with skillgate run --server URL as a child process: the same output and exit codes as a local run", async () => {
    const { server } = await controllerWithTwoNodes();
    const run = (args: readonly string[]): Promise<{ out: string; err: string; code: number | null }> =>
      new Promise((resolve) => {
        const child = spawn(
          process.execPath,
          ["--import", "tsx", "src/surfaces/cli/main.ts", "run", ...args],
          { cwd: REPOSITORY, env: { ...process.env, SKILLGATE_TOKEN: server.token } },
        );
        let out = "";
        let err = "";
        child.stdout.on("data", (chunk: Buffer) => {
          out += chunk.toString("utf8");
        });
        child.stderr.on("data", (chunk: Buffer) => {
          err += chunk.toString("utf8");
        });
        child.on("close", (code) => resolve({ out, err, code }));
      });
    const ok = await run([
      "where",
      "scripts/where.py",
      "--server",
      server.origin,
      "--node",
      "lab01",
      "--yes",
      "--",
      "a b",
    ]);
    expect(ok).toEqual({ out: "args {}\nargv ['a b']\n", err: "to stderr\n", code: 0 });
    const failed = await run([
      "where",
      "scripts/where.py",
      "--server",
      server.origin,
      "--args",
      '{"node": "lab02", "code": 4}',
      "--yes",
    ]);
    expect(failed.code).toBe(1);
    expect(failed.err).toBe("to stderr\nskillgate: scripts/where.py exited with code 4.\n");
    const offline = await run([
      "where",
      "scripts/where.py",
      "--server",
      server.origin,
      "--node",
      "lab09",
      "--yes",
    ]);
    expect(offline.code).toBe(1);
    expect(offline.err).toContain("HOST: no node is named lab09");
  });
});
