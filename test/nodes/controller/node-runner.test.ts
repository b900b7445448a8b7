import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { RunRequest } from "../../../src/runners/contract.js";
import { hashSkillFolder } from "../../../src/skill/content-hash.js";
import { eventually } from "../../helpers/eventually.js";
import type { TestServer } from "../../helpers/http-server.js";
import { enrol, ScriptedAgent, startController } from "./controller-harness.js";

/** A run request of `remote`'s script on `node`, as the run tool makes it. */
function remoteRun(server: TestServer, node: string, extra: Partial<RunRequest> = {}): RunRequest {
  const folder = join(server.folders.skills, "remote");
  const hash = hashSkillFolder(folder).hash as string;
  return {
    skill: "remote",
    hash,
    folder,
    execution: "node",
    script: "scripts/run.sh",
    language: "bash",
    arguments: { node, level: 3 },
    limits: { timeoutMs: 20_000, maxOutputBytes: 1024 },
    call: { requestId: "call-1", scope: { kind: "chat", id: "c1" } },
    ...extra,
  };
}

function runnerOf(server: TestServer) {
  return server.server.context.host.skillgate.runner;
}

describe("the node runner, against a scripted agent over a real WebSocket", () => {
  it("answers at once for an unknown node, naming the known ones, and for an offline node", async () => {
    const { server } = await startController();
    const nodes = server.server.context.nodes;
    await nodes?.registry.add("lab01");
    await nodes?.registry.add("lab02");
    await nodes?.registry.add("w1", { role: "worker" });
    const unknown = await runnerOf(server).run(remoteRun(server, "lab09"));
    expect(unknown).toMatchObject({ status: "refused", code: "node_unknown" });
    expect(unknown.message).toBe("HOST: no node is named lab09; known nodes: lab01, lab02. [node_unknown]");
    const offline = await runnerOf(server).run(remoteRun(server, "lab01"));
    expect(offline.message).toBe("HOST: node lab01 is offline (last seen never). [node_offline]");
  });

  it("sends the run once with a fresh id and without `node`, streams its output, and audits the node", async () => {
    const { server } = await startController();
    const credential = await enrol(server, "lab01");
    const agent = await ScriptedAgent.connect(server, credential);
    const request = remoteRun(server, "lab01");
    await agent.heartbeat({ remote: request.hash });
    const chunks: string[] = [];
    agent.onRun = (run) => {
      agent.send({ type: "run-started", requestId: run.requestId });
      agent.send({ type: "run-output", requestId: run.requestId, stream: "stdout", chunk: "one " });
      agent.send({ type: "run-output", requestId: run.requestId, stream: "stdout", chunk: "two" });
      agent.end(run.requestId, "one two");
    };
    const result = await runnerOf(server).run({
      ...request,
      onOutput: (_stream, chunk) => chunks.push(chunk),
    });
    expect(result).toMatchObject({ status: "ok", exitCode: 0, stdout: "one two", node: "lab01" });
    expect(chunks).toEqual(["one ", "two"]);
    const [sent] = agent.runs();
    expect(agent.runs()).toHaveLength(1);
    expect(sent).toMatchObject({
      skill: "remote",
      hash: request.hash,
      script: "scripts/run.sh",
      arguments: { level: 3 },
      timeoutMs: 20_000,
      maxOutputBytes: 1024,
    });
    expect(sent?.arguments).not.toHaveProperty("node");
    const second = await runnerOf(server).run(request);
    expect(second.status).toBe("ok");
    expect(agent.runs()).toHaveLength(2);
    expect(agent.runs()[1]?.requestId).not.toBe(sent?.requestId);
    const audit = await server.json<{ events: Array<{ type: string; node?: string; status?: string }> }>(
      "/api/audit?type=node-run",
    );
    expect(audit.status).toBe(200);
    expect(audit.body.events.filter((event) => event.type === "node-run")).toEqual(
      expect.arrayContaining([expect.objectContaining({ node: "lab01", status: "ok" })]),
    );
  });

  it("ends a run interrupted, naming the node, when the channel drops mid-run; it is never re-sent", async () => {
    const { server } = await startController();
    const credential = await enrol(server, "lab01");
    const agent = await ScriptedAgent.connect(server, credential);
    const request = remoteRun(server, "lab01");
    await agent.heartbeat({ remote: request.hash });
    agent.onRun = (run) => {
      agent.send({ type: "run-output", requestId: run.requestId, stream: "stdout", chunk: "partial" });
      setTimeout(() => agent.socket.terminate(), 50);
    };
    const result = await runnerOf(server).run(request);
    expect(result).toMatchObject({
      status: "interrupted",
      code: "node_gone",
      stdout: "partial",
      node: "lab01",
    });
    expect(result.message).toBe(
      "HOST: node lab01 went away during the run of scripts/run.sh (remote); it was not run again. [node_gone]",
    );
    // The agent comes back: the run is not sent again.
    const back = await ScriptedAgent.connect(server, credential);
    await back.heartbeat({ remote: request.hash });
    await eventually(
      "the node online again",
      () => server.server.context.nodes?.hub.isOnline("lab01") === true,
    );
    expect(back.runs()).toEqual([]);
  });

  it("sends cancel when the caller aborts, and ends with what the agent reports", async () => {
    const { server } = await startController();
    const credential = await enrol(server, "lab01");
    const agent = await ScriptedAgent.connect(server, credential);
    const request = remoteRun(server, "lab01");
    await agent.heartbeat({ remote: request.hash });
    const controller = new AbortController();
    agent.onRun = () => controller.abort();
    const running = runnerOf(server).run({ ...request, signal: controller.signal });
    await eventually("the cancel", () => agent.received.some((message) => message.type === "cancel"));
    const cancel = agent.received.find((message) => message.type === "cancel");
    const runId = agent.runs()[0]?.requestId;
    expect(cancel).toEqual({ type: "cancel", requestId: runId });
    agent.send({
      type: "run-ended",
      requestId: runId as string,
      outcome: {
        status: "interrupted",
        exitCode: null,
        stdout: "",
        stderr: "",
        stdoutTruncated: false,
        stderrTruncated: false,
        durationMs: 2,
      },
    });
    expect(await running).toMatchObject({ status: "interrupted", node: "lab01" });
  });

  it("asks a node that lacks the hash to sync and runs once its heartbeat lists it; refuses when it never does", async () => {
    const { server } = await startController({ syncWaitMs: 500 });
    const credential = await enrol(server, "lab01");
    const agent = await ScriptedAgent.connect(server, credential);
    const request = remoteRun(server, "lab01");
    await agent.heartbeat({});
    agent.onSync = () => void agent.heartbeat({ remote: request.hash });
    agent.onRun = (run) => agent.end(run.requestId, "synced");
    expect(await runnerOf(server).run(request)).toMatchObject({ status: "ok", stdout: "synced" });

    agent.onSync = () => {};
    await agent.heartbeat({});
    const refused = await runnerOf(server).run(request);
    expect(refused).toMatchObject({ status: "refused", code: "skill_not_on_node" });
    expect(refused.message).toMatch(/^HOST: node lab01 does not hold remote@[0-9a-f]{8} after a sync/);
  });

  it("refuses a skill the owner's scope keeps off that node, before sending anything", async () => {
    const { server } = await startController({ configYaml: "nodes:\n  skills:\n    remote: [lab02]\n" });
    const credential = await enrol(server, "lab01");
    const agent = await ScriptedAgent.connect(server, credential);
    await agent.heartbeat({});
    const refused = await runnerOf(server).run(remoteRun(server, "lab01"));
    expect(refused).toMatchObject({ status: "refused", code: "node_not_in_scope" });
    expect(agent.runs()).toEqual([]);
  });
});
