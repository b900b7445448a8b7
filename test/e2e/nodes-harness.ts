import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach } from "vitest";
import type { NodeRunMessage, NodeRunOutcome } from "../../src/nodes/protocol.js";
import { hashSkillFolder } from "../../src/skill/content-hash.js";
import { eventually } from "../helpers/eventually.js";
import { startTestServer, type TestServer, type TestServerFolders } from "../helpers/http-server.js";
import { makeTree, writeSkill } from "../helpers/skill-tree.js";

/**
 * Named servers on loopback, every part real: a controller (`skillgate serve` in this
 * process, on port 0) and node agents as child processes (`node --import tsx
 * src/surfaces/cli/main.ts node-agent …`), each with a data folder of its own. Agents are
 * killed (SIGKILL) after each test, whatever state it left them in.
 */

export const REPOSITORY = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

const agents: AgentProcess[] = [];
afterEach(async () => {
  for (const agent of agents.splice(0)) await agent.kill("SIGKILL");
});

/** A node-mode skill in the controller's project: `scripts` by path, tier `read` unless given. */
export function writeNodeSkill(
  folders: TestServerFolders,
  name: string,
  scripts: Record<string, string>,
  metadata: Record<string, string> = {},
): string {
  return writeSkill(folders.skills, name, {
    frontMatter: {
      name,
      description: `The ${name} skill, run on a named server.`,
      metadata: { "skillgate.execution": "node", "skillgate.tier": "read", ...metadata },
    },
    files: scripts,
  });
}

/**
 * The controller, with the skills `prepare` writes, no built-ins, `configYaml` when given, and
 * `nodeSyncWaitMs` (how long a run waits for a node to sync a skill it lacks) when given.
 */
export function startController(
  prepare: (folders: TestServerFolders) => void,
  configYaml?: string,
  options: { readonly nodeSyncWaitMs?: number } = {},
): Promise<TestServer> {
  return startTestServer({
    prepare,
    builtins: false,
    ...(configYaml !== undefined ? { configYaml } : {}),
    ...(options.nodeSyncWaitMs !== undefined ? { server: { nodeSyncWaitMs: options.nodeSyncWaitMs } } : {}),
  });
}

/** The content hash of a skill folder on the controller. */
export function hashOf(folder: string): string {
  const hash = hashSkillFolder(folder).hash;
  if (hash === undefined) throw new Error(`${folder} has no hash`);
  return hash;
}

/**
 * Sends one raw run message down a node's channel through the controller's hub, as the
 * NodeRunner would, and resolves with the agent's `run-ended` outcome: how a test shows what
 * the agent itself refuses, whatever the controller would have checked first.
 */
export function rawRun(
  server: TestServer,
  node: string,
  message: Omit<NodeRunMessage, "type" | "arguments" | "timeoutMs" | "maxOutputBytes"> &
    Partial<Pick<NodeRunMessage, "arguments">>,
): Promise<NodeRunOutcome> {
  const hub = server.server.context.nodes?.hub;
  if (hub === undefined) throw new Error("the server has no node hub");
  return new Promise((resolve, reject) => {
    const sent = hub.startRun(
      node,
      { type: "run", arguments: {}, timeoutMs: 30_000, maxOutputBytes: 65_536, ...message },
      {
        onMessage: (answer) => {
          if (answer.type === "run-ended") resolve(answer.outcome);
        },
        onGone: (why) => reject(new Error(`the run ended without run-ended: ${why}`)),
      },
    );
    if (!sent) reject(new Error(`${node} has no open channel`));
  });
}

/** Adds a node on the controller (`POST /api/nodes`) and returns its one-time enrolment token. */
export async function addNode(server: TestServer, name: string): Promise<string> {
  const added = await server.json<{ token: string }>("/api/nodes", { method: "POST", body: { name } });
  if (added.status !== 201) throw new Error(`adding ${name} answered ${added.status}`);
  return added.body.token;
}

/** A node's state as `GET /api/nodes` shows it. */
export interface NodeView {
  readonly name: string;
  readonly online: boolean;
  readonly features: readonly string[];
  readonly skills: Readonly<Record<string, string>>;
  readonly runsInFlight: number;
  readonly os?: string;
  readonly sandbox?: { readonly available: boolean };
}

export async function nodeView(server: TestServer, name: string): Promise<NodeView | undefined> {
  const listed = await server.json<{ nodes: NodeView[] }>("/api/nodes");
  return listed.body.nodes.find((node) => node.name === name);
}

/** Waits until `name` is online on the controller and its heartbeat lists `skills` (name → hash). */
export function nodeHolds(
  server: TestServer,
  name: string,
  skills: Readonly<Record<string, string | undefined>>,
  timeoutMs = 30_000,
): Promise<NodeView> {
  return eventually(
    `${name} online holding ${JSON.stringify(skills)}`,
    async () => {
      const view = await nodeView(server, name);
      if (view?.online !== true) return false;
      for (const [skill, hash] of Object.entries(skills)) if (view.skills[skill] !== hash) return false;
      return view;
    },
    { timeoutMs, intervalMs: 100 },
  );
}

/** A node agent child process and what it logged. */
export interface AgentProcess {
  readonly name: string;
  /** The data folder given with `--data`: the agent keeps everything in `<data>/node-agent`. */
  readonly data: string;
  readonly child: ChildProcess;
  /** Its stderr, one entry per line. */
  readonly lines: string[];
  /** Resolves with the first stderr line matching `pattern` (already logged or still to come). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Sends `signal` and waits for the process to end. */
  kill(signal: NodeJS.Signals): Promise<void>;
  /** Resolves with the exit code (or the signal) when the process ends. */
  readonly exited: Promise<number | NodeJS.Signals>;
}

/** Starts `skillgate --data DATA node-agent --controller ORIGIN --name NAME [--enrol TOKEN]`. */
export function startAgent(
  controller: string,
  name: string,
  options: { readonly token?: string; readonly data?: string; readonly extra?: readonly string[] } = {},
): AgentProcess {
  const data = options.data ?? join(makeTree(`skillgate-agent-${name}-`), "data");
  mkdirSync(data, { recursive: true });
  const args = [
    "--import",
    "tsx",
    "src/surfaces/cli/main.ts",
    "--data",
    data,
    "node-agent",
    "--controller",
    controller,
    "--name",
    name,
    ...(options.token !== undefined ? ["--enrol", options.token] : []),
    ...(options.extra ?? []),
  ];
  const child = spawn(process.execPath, args, { cwd: REPOSITORY, stdio: ["ignore", "ignore", "pipe"] });
  const lines: string[] = [];
  const waiters = new Set<() => void>();
  let pending = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (chunk: string) => {
    pending += chunk;
    const parts = pending.split("\n");
    pending = parts.pop() ?? "";
    lines.push(...parts);
    for (const wake of [...waiters]) wake();
  });
  const exited = new Promise<number | NodeJS.Signals>((resolve) =>
    child.once("exit", (code, signal) => {
      for (const wake of [...waiters]) wake();
      resolve(code ?? signal ?? "SIGKILL");
    }),
  );
  let ended = false;
  void exited.then(() => {
    ended = true;
  });
  const agent: AgentProcess = {
    name,
    data,
    child,
    lines,
    exited,
    waitFor: (pattern, timeoutMs = 30_000) =>
      new Promise((resolve, reject) => {
        const check = (): boolean => {
          const found = lines.find((line) => pattern.test(line));
          if (found === undefined) return false;
          done();
          resolve(found);
          return true;
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`agent ${name} never logged ${pattern}; it logged:\n${lines.join("\n")}`));
        }, timeoutMs);
        const wake = (): void => {
          if (!check() && ended) {
            done();
            reject(
              new Error(`agent ${name} ended without logging ${pattern}; it logged:\n${lines.join("\n")}`),
            );
          }
        };
        const done = (): void => {
          clearTimeout(timer);
          waiters.delete(wake);
        };
        waiters.add(wake);
        wake();
      }),
    kill: async (signal) => {
      if (!ended) child.kill(signal);
      await exited;
    },
  };
  agents.push(agent);
  return agent;
}

/** Starts an enrolled agent for a new node and waits until the controller sees it online. */
export async function enrolledAgent(server: TestServer, name: string): Promise<AgentProcess> {
  const token = await addNode(server, name);
  const agent = startAgent(server.origin, name, { token });
  await agent.waitFor(/channel open/);
  await nodeHolds(server, name, {});
  return agent;
}

/** The NDJSON lines of a `POST /api/runs` answer. */
export interface RunLine {
  readonly type: "output" | "result";
  readonly stream?: "stdout" | "stderr";
  readonly chunk?: string;
  readonly status?: string;
  readonly exitCode?: number;
  readonly text?: string;
  readonly run?: { readonly status: string; readonly exitCode: number | null; readonly code?: string };
}

export function runLines(body: string): RunLine[] {
  return body
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as RunLine);
}

/** `POST /api/runs`, approved once, and its lines once it ended. */
export async function runOn(
  server: TestServer,
  body: { skill: string; script: string; arguments?: string; node?: string },
): Promise<{ lines: RunLine[]; result: RunLine }> {
  const response = await server.fetch("/api/runs", { method: "POST", body: { approval: "once", ...body } });
  const lines = runLines(await response.text());
  const result = lines.at(-1);
  if (result?.type !== "result")
    throw new Error(`the run ended without a result line: ${JSON.stringify(lines)}`);
  return { lines, result };
}

/** The stdout a run streamed. */
export function streamed(lines: readonly RunLine[], stream: "stdout" | "stderr" = "stdout"): string {
  return lines
    .filter((line) => line.type === "output" && line.stream === stream)
    .map((line) => line.chunk ?? "")
    .join("");
}
