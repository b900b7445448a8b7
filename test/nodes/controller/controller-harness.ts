import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { WebSocket } from "ws";
import {
  AGENT_ROUTES,
  type AgentMessage,
  type ControllerMessage,
  type Heartbeat,
  type NodeRunMessage,
} from "../../../src/nodes/protocol.js";
import { eventually } from "../../helpers/eventually.js";
import { startTestServer, type TestServer, type TestServerOptions } from "../../helpers/http-server.js";

/**
 * A controller (`skillgate serve` on port 0) and scripted node agents that speak the real
 * protocol over real HTTP and a real WebSocket, for the controller's tests. The agents are
 * scripted: a test says what each one answers. The two-real-agents end-to-end tests are in
 * test/e2e/.
 */

/** Writes a skill of the given execution mode into the test server's project skills. */
export function writeModeSkill(
  skills: string,
  name: string,
  execution: string,
  script = "echo hi\n",
): string {
  const folder = join(skills, name);
  mkdirSync(join(folder, "scripts"), { recursive: true });
  writeFileSync(
    join(folder, "SKILL.md"),
    `---\nname: ${name}\ndescription: The ${name} skill for node tests.\nmetadata:\n  skillgate.execution: ${execution}\n---\nRun its scripts.\n`,
  );
  writeFileSync(join(folder, "scripts", "run.sh"), script);
  return folder;
}

/** A controller with skills `remote` (node), `boxed` (sandbox) and `local-one` (local); real packages and manifests. */
export async function startController(
  options: TestServerOptions & { syncWaitMs?: number } = {},
): Promise<{ server: TestServer }> {
  const server = await startTestServer({
    builtins: false,
    ...options,
    prepare: async (folders) => {
      writeModeSkill(folders.skills, "remote", "node");
      writeModeSkill(folders.skills, "boxed", "sandbox");
      writeModeSkill(folders.skills, "local-one", "local");
      await options.prepare?.(folders);
    },
    server: {
      ...(options.syncWaitMs !== undefined ? { nodeSyncWaitMs: options.syncWaitMs } : {}),
      ...options.server,
    },
  });
  return { server };
}

/** Adds `name` on the controller and enrols it over the agent route; returns its credential. */
export async function enrol(
  server: TestServer,
  name: string,
  role: "node" | "worker" = "node",
): Promise<string> {
  const nodes = server.server.context.nodes;
  if (nodes === undefined) throw new Error("the server has no node controller");
  const { token } = await nodes.registry.add(name, { role });
  const answer = await fetch(`${server.origin}${AGENT_ROUTES.enrol}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ name, token }),
  });
  if (answer.status !== 200) throw new Error(`enrolment failed: ${answer.status} ${await answer.text()}`);
  return ((await answer.json()) as { credential: string }).credential;
}

/** A heartbeat body. */
export function heartbeatBody(skills: Record<string, string> = {}, runs: string[] = []): Heartbeat {
  return {
    features: ["skills", "sandbox"],
    sandbox: { available: true, limits: { memory: "512 MiB" } },
    os: "linux",
    arch: "x64",
    skills,
    runs,
    agentVersion: "test-agent",
  };
}

/** A scripted node agent: its channel, what the controller sent it, and ways to answer. */
export class ScriptedAgent {
  readonly received: ControllerMessage[] = [];
  readonly socket: WebSocket;
  readonly #server: TestServer;
  readonly #credential: string;
  closed: { code: number; reason: string } | undefined;
  /** Called with each run the controller sends (after it is recorded). */
  onRun: (run: NodeRunMessage) => void = () => {};
  /** Called on every `sync-skills`. */
  onSync: () => void = () => {};

  private constructor(server: TestServer, credential: string, socket: WebSocket) {
    this.#server = server;
    this.#credential = credential;
    this.socket = socket;
    socket.on("message", (data) => {
      const message = JSON.parse(String(data)) as ControllerMessage;
      this.received.push(message);
      if (message.type === "run") this.onRun(message);
      if (message.type === "sync-skills") this.onSync();
    });
    socket.on("close", (code, reason) => {
      this.closed = { code, reason: String(reason) };
    });
  }

  /** Opens the channel with `credential`, says hello, and waits for the welcome. */
  static async connect(server: TestServer, credential: string): Promise<ScriptedAgent> {
    const socket = new WebSocket(`${server.origin.replace("http", "ws")}${AGENT_ROUTES.channel}`, {
      headers: { Authorization: `Bearer ${credential}` },
    });
    await new Promise<void>((resolve, reject) => {
      socket.once("open", () => resolve());
      socket.once("error", reject);
    });
    const agent = new ScriptedAgent(server, credential, socket);
    agent.send({ type: "hello", protocol: 1 });
    await eventually("the welcome", () => agent.received.some((message) => message.type === "welcome"));
    return agent;
  }

  send(message: AgentMessage): void {
    this.socket.send(JSON.stringify(message));
  }

  /** Posts a heartbeat listing `skills`. */
  async heartbeat(skills: Record<string, string> = {}): Promise<Response> {
    return fetch(`${this.#server.origin}${AGENT_ROUTES.heartbeat}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${this.#credential}`, "Content-Type": "application/json" },
      body: JSON.stringify(heartbeatBody(skills)),
    });
  }

  /** The runs the controller sent. */
  runs(): NodeRunMessage[] {
    return this.received.filter((message): message is NodeRunMessage => message.type === "run");
  }

  /** Ends a run the way a real agent does. */
  end(requestId: string, stdout: string, exitCode = 0): void {
    this.send({
      type: "run-ended",
      requestId,
      outcome: {
        status: exitCode === 0 ? "ok" : "failed",
        exitCode,
        stdout,
        stderr: "",
        stdoutTruncated: false,
        stderrTruncated: false,
        durationMs: 1,
      },
    });
  }

  close(): void {
    this.socket.close();
  }
}
