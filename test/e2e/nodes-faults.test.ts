import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { AGENT_ROUTES, type SkillsManifest } from "../../src/nodes/protocol.js";
import { startServer } from "../../src/surfaces/http/server.js";
import { CSRF_HEADERS, type TestServer, type TestServerFolders } from "../helpers/http-server.js";
import { requireTools } from "../helpers/required-tools.js";
import {
  type AgentProcess,
  enrolledAgent,
  hashOf,
  nodeHolds,
  rawRun,
  runLines,
  runOn,
  startAgent,
  startController,
  streamed,
  writeNodeSkill,
} from "./nodes-harness.js";

requireTools("bwrap", "python3");

function writeSkills(folders: TestServerFolders): void {
  writeNodeSkill(folders, "quick", { "scripts/quick.py": "print('quick')\n" });
  writeNodeSkill(folders, "stream", {
    "scripts/stream.py": "import time\nprint('first', flush=True)\ntime.sleep(600)\n",
  });
  writeNodeSkill(folders, "secret", { "scripts/secret.py": "print('only lab02')\n" });
}

/** Only lab02 may hold `secret`. */
const SCOPED = "nodes:\n  skills:\n    secret: [lab02]\n";

function credentialOf(agent: AgentProcess): string {
  return readFileSync(join(agent.data, "node-agent", "credential"), "utf8").trim();
}

describe("faults with real agents", () => {
  it("SIGKILL of the agent mid-run ends the call interrupted, naming the node; the restarted agent never re-runs it, syncs and runs again", async () => {
    const server = await startController(writeSkills, SCOPED);
    const lab01 = await enrolledAgent(server, "lab01");
    const response = await server.fetch("/api/runs", {
      method: "POST",
      body: { skill: "stream", script: "scripts/stream.py", node: "lab01", approval: "once" },
    });
    const reader = response.body?.getReader();
    if (reader === undefined) throw new Error("no body");
    const decoder = new TextDecoder();
    let text = "";
    const readUntil = async (done: (sofar: string) => boolean): Promise<void> => {
      while (!done(text)) {
        const chunk = await reader.read();
        if (chunk.done) return;
        text += decoder.decode(chunk.value, { stream: true });
      }
    };
    // The script printed "first" and sleeps: the run is in the middle when the agent dies.
    await readUntil((sofar) => sofar.includes('"chunk":"first\\n"'));
    const started = await lab01.waitFor(/run started .*skill=stream/);
    const requestId = /requestId=(\S+)/.exec(started)?.[1] ?? "";
    await lab01.kill("SIGKILL");
    await readUntil(() => false);
    const lines = runLines(text);
    const result = lines.at(-1);
    expect(result).toMatchObject({ type: "result", status: "interrupted", exitCode: 130 });
    expect(result?.text).toMatch(/^HOST: .*lab01/);
    expect(streamed(lines)).toBe("first\n");

    const again = startAgent(server.origin, "lab01", { data: lab01.data });
    await again.waitFor(/channel open/);
    await nodeHolds(server, "lab01", { quick: hashOf(join(server.folders.skills, "quick")) });
    expect(again.lines.some((line) => line.includes("run started"))).toBe(false);
    // The same request sent again (a replay) is refused from the ids the agent kept on disk.
    const replay = await rawRun(server, "lab01", {
      requestId,
      skill: "quick",
      hash: hashOf(join(server.folders.skills, "quick")),
      script: "scripts/quick.py",
    });
    expect(replay).toMatchObject({ status: "refused", code: "request_replayed" });
    const after = await runOn(server, { skill: "quick", script: "scripts/quick.py", node: "lab01" });
    expect(after.result.status).toBe("ok");
    expect(streamed(after.lines)).toBe("quick\n");
  });

  it("a controller restart brings both agents back", async () => {
    const server = await startController(writeSkills, SCOPED);
    const [lab01, lab02] = await Promise.all([
      enrolledAgent(server, "lab01"),
      enrolledAgent(server, "lab02"),
    ]);
    const port = server.server.port;
    await server.server.close();
    await Promise.all([lab01.waitFor(/channel: reconnecting/), lab02.waitFor(/channel: reconnecting/)]);
    const restarted = await startServer({
      port,
      token: server.token,
      heartbeatMs: 60_000,
      skillgate: {
        config: server.folders.config,
        data: server.folders.data,
        roots: [server.folders.project],
        builtins: false,
        watchIntervalMs: false,
      },
    });
    try {
      const again: TestServer = { ...server, server: restarted };
      await nodeHolds(again, "lab01", {});
      await nodeHolds(again, "lab02", { secret: hashOf(join(server.folders.skills, "secret")) });
      const run = await runOn(again, { skill: "secret", script: "scripts/secret.py", node: "lab02" });
      expect(streamed(run.lines)).toBe("only lab02\n");
      expect(lab01.lines.filter((line) => line.includes("channel open"))).toHaveLength(2);
    } finally {
      await restarted.close();
    }
  });

  it("a node credential is refused on owner routes and for another node's skills; an owner token on agent routes", async () => {
    const server = await startController(writeSkills, SCOPED);
    const [lab01, lab02] = await Promise.all([
      enrolledAgent(server, "lab01"),
      enrolledAgent(server, "lab02"),
    ]);
    const credential = credentialOf(lab01);
    const asNode = (path: string, init: RequestInit = {}) =>
      fetch(`${server.origin}${path}`, {
        ...init,
        headers: {
          Authorization: `Bearer ${credential}`,
          ...CSRF_HEADERS,
          "Content-Type": "application/json",
        },
      });
    for (const [method, path, body] of [
      ["GET", "/api/nodes", undefined],
      ["GET", "/api/skills", undefined],
      [
        "POST",
        "/api/runs",
        JSON.stringify({ skill: "quick", script: "scripts/quick.py", node: "lab01", approval: "once" }),
      ],
      ["POST", "/api/nodes/lab02/sync", undefined],
    ] as const)
      expect(
        (await asNode(path, { method, ...(body !== undefined ? { body } : {}) })).status,
        `${method} ${path}`,
      ).toBe(401);
    const mcp = await asNode("/mcp", {
      method: "POST",
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }),
    });
    expect(mcp.status).toBe(401);

    // lab01's manifest leaves out lab02's skill, and lab01 cannot fetch its package.
    const manifest = (await (await asNode(AGENT_ROUTES.manifest)).json()) as { payload: string };
    const listed = JSON.parse(Buffer.from(manifest.payload, "base64").toString("utf8")) as SkillsManifest;
    expect(listed.node).toBe("lab01");
    expect(listed.skills.map((skill) => skill.name).sort()).toEqual(["quick", "stream"]);
    const secretHash = hashOf(join(server.folders.skills, "secret"));
    const refused = await asNode(`${AGENT_ROUTES.packages}/secret@${secretHash}`);
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
    const lab02Package = await fetch(`${server.origin}${AGENT_ROUTES.packages}/secret@${secretHash}`, {
      headers: { Authorization: `Bearer ${credentialOf(lab02)}` },
    });
    expect(lab02Package.status).toBe(200);
    // lab01 never got it: not in its heartbeat, not in its cache.
    const held = await nodeHolds(server, "lab01", {});
    expect(held.skills.secret).toBeUndefined();
    await expect(
      rawRun(server, "lab01", {
        requestId: "secret-on-lab01",
        skill: "secret",
        hash: secretHash,
        script: "scripts/secret.py",
      }),
    ).resolves.toMatchObject({ status: "refused", code: "skill_not_held" });

    // The owner's token is not a node credential.
    const ownerOnAgent = await fetch(`${server.origin}${AGENT_ROUTES.manifest}`, {
      headers: { Authorization: `Bearer ${server.token}` },
    });
    expect(ownerOnAgent.status).toBe(401);
    const channelStatus = await new Promise<number>((resolve) => {
      const socket = new WebSocket(`${server.origin.replace("http", "ws")}${AGENT_ROUTES.channel}`, {
        headers: { Authorization: `Bearer ${server.token}` },
      });
      socket.on("unexpected-response", (_request, response) => {
        resolve(response.statusCode ?? 0);
        socket.terminate();
      });
      socket.on("open", () => {
        resolve(101);
        socket.close();
      });
      socket.on("error", () => {});
    });
    expect(channelStatus).toBe(401);
  });
});
