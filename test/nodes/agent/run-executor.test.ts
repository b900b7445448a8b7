import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type AgentRunner, createAgentRunner } from "../../../src/nodes/agent/agent-runner.js";
import { type HeldSkills, RunExecutor } from "../../../src/nodes/agent/run-executor.js";
import { SEEN_REQUESTS_FILE } from "../../../src/nodes/agent/seen-requests.js";
import type { AgentMessage, NodeRunMessage, NodeRunOutcome } from "../../../src/nodes/protocol.js";
import { silentLogger } from "../../../src/observe/logger.js";
import type { Runner, RunRequest } from "../../../src/runners/contract.js";
import { requireTools } from "../../helpers/required-tools.js";
import { hashOf, runnerTree, writeSkillFolder } from "../../runners/helpers.js";

requireTools("bwrap", "python3");

const runners: AgentRunner[] = [];
afterEach(async () => {
  for (const runner of runners.splice(0)) await runner.close();
});

/** Held copies by `name@hash`; a discarded one is no longer held, and is recorded in `dropped`. */
function held(copies: Record<string, string>, dropped: string[] = []): HeldSkills {
  return {
    folderOf: (name, hash) => copies[`${name}@${hash}`],
    discard: (name, hash) => {
      const key = `${name}@${hash}`;
      if (copies[key] === undefined) return false;
      delete copies[key];
      dropped.push(key);
      return true;
    },
  };
}

function setup(
  options: { copies?: Record<string, string>; runner?: Runner; sync?: () => Promise<void> } = {},
) {
  const tree = runnerTree();
  const agentFolder = join(tree.root, "agent");
  const sent: AgentMessage[] = [];
  const dropped: string[] = [];
  const told: string[] = [];
  const copies = options.copies ?? {};
  let runner = options.runner;
  if (runner === undefined) {
    const made = createAgentRunner(agentFolder);
    runners.push(made);
    runner = made.router;
  }
  const make = (): RunExecutor =>
    new RunExecutor({
      agentFolder,
      skills: held(copies, dropped),
      sync: options.sync ?? (async () => {}),
      runner: runner as Runner,
      send: (message) => sent.push(message),
      logger: silentLogger,
      onCopyDropped: (skill, hash) => told.push(`${skill}@${hash}`),
    });
  return { tree, agentFolder, sent, dropped, told, executor: make(), make };
}

function runMessage(
  skill: string,
  hash: string,
  script: string,
  extra: Partial<NodeRunMessage> = {},
): NodeRunMessage {
  return {
    type: "run",
    requestId: extra.requestId ?? `req-${Math.random().toString(16).slice(2)}`,
    skill,
    hash,
    script,
    arguments: {},
    timeoutMs: 30_000,
    maxOutputBytes: 64 * 1024,
    ...extra,
  };
}

function ended(sent: readonly AgentMessage[], requestId: string): NodeRunOutcome {
  const end = sent.find((message) => message.type === "run-ended" && message.requestId === requestId);
  if (end?.type !== "run-ended") throw new Error(`no run-ended for ${requestId}`);
  return end.outcome;
}

describe("RunExecutor", () => {
  it("runs a held copy in the sandbox, streams its output up and reports the exit code", async () => {
    const tree = runnerTree();
    const folder = writeSkillFolder(tree.skills, "hello", {
      "scripts/hello.py":
        "import json, sys\nargs = json.load(sys.stdin)\nprint('hi', args['who'])\nsys.stderr.write('to stderr\\n')\nsys.exit(3)\n",
    });
    const hash = hashOf(folder);
    const { executor, sent } = setup({ copies: { [`hello@${hash}`]: folder } });
    const message = runMessage("hello", hash, "scripts/hello.py", { arguments: { who: "lab01" } });
    await executor.handle(message);
    expect(sent[0]).toEqual({ type: "run-started", requestId: message.requestId });
    const output = sent.filter((m) => m.type === "run-output");
    expect(output.map((m) => (m.type === "run-output" ? `${m.stream}:${m.chunk}` : "")).join("")).toContain(
      "stdout:hi lab01",
    );
    expect(output.some((m) => m.type === "run-output" && m.stream === "stderr")).toBe(true);
    const outcome = ended(sent, message.requestId);
    expect(outcome).toMatchObject({ status: "failed", exitCode: 3, stdout: "hi lab01\n" });
    expect(executor.inFlight).toEqual([]);
  });

  it("refuses a name@hash it does not hold after one sync attempt (skill_not_held), and runs one the sync brought", async () => {
    const tree = runnerTree();
    const folder = writeSkillFolder(tree.skills, "later", { "scripts/ok.py": "print('ok')\n" });
    const hash = hashOf(folder);
    const copies: Record<string, string> = {};
    let syncs = 0;
    const { executor, sent } = setup({
      copies,
      sync: async () => {
        syncs += 1;
      },
    });
    const missing = runMessage("later", hash, "scripts/ok.py");
    await executor.handle(missing);
    expect(syncs).toBe(1);
    const refused = ended(sent, missing.requestId);
    expect(refused).toMatchObject({ status: "refused", code: "skill_not_held" });
    expect(refused.message).toMatch(/^HOST: this node holds no copy of later@/);
    copies[`later@${hash}`] = folder;
    const present = runMessage("later", hash, "scripts/ok.py");
    await executor.handle(present);
    expect(ended(sent, present.requestId)).toMatchObject({ status: "ok", stdout: "ok\n" });
  });

  it("refuses a request id seen before, in this process and after a restart (request_replayed)", async () => {
    const tree = runnerTree();
    const folder = writeSkillFolder(tree.skills, "once", { "scripts/once.py": "print('ran')\n" });
    const hash = hashOf(folder);
    const { executor, sent, make, agentFolder } = setup({ copies: { [`once@${hash}`]: folder } });
    const message = runMessage("once", hash, "scripts/once.py", { requestId: "req-fixed-1" });
    await executor.handle(message);
    await executor.handle(message);
    const ends = sent.filter((m) => m.type === "run-ended");
    expect(ends.map((m) => (m.type === "run-ended" ? m.outcome.status : ""))).toEqual(["ok", "refused"]);
    expect(existsSync(join(agentFolder, SEEN_REQUESTS_FILE))).toBe(true);
    sent.length = 0;
    await make().handle(message);
    expect(ended(sent, "req-fixed-1")).toMatchObject({ status: "refused", code: "request_replayed" });
    expect(sent.some((m) => m.type === "run-started")).toBe(false);
  });

  it("refuses a run whose request id cannot be recorded first (request_not_recorded); nothing starts", async () => {
    const tree = runnerTree();
    const folder = writeSkillFolder(tree.skills, "unrecorded", { "scripts/u.py": "print('ran')\n" });
    const hash = hashOf(folder);
    const { executor, sent, agentFolder } = setup({ copies: { [`unrecorded@${hash}`]: folder } });
    // A folder where the ids file goes: the atomic rename onto it fails.
    mkdirSync(join(agentFolder, SEEN_REQUESTS_FILE));
    const message = runMessage("unrecorded", hash, "scripts/u.py");
    await executor.handle(message);
    expect(ended(sent, message.requestId)).toMatchObject({ status: "refused", code: "request_not_recorded" });
    expect(sent.some((m) => m.type === "run-started")).toBe(false);
  });

  it("re-hashes its copy: a copy changed after it was installed is refused (skill_changed)", async () => {
    const tree = runnerTree();
    const folder = writeSkillFolder(tree.skills, "tampered", { "scripts/t.py": "print('good')\n" });
    const hash = hashOf(folder);
    writeFileSync(join(folder, "scripts/t.py"), "print('evil')\n");
    const { executor, sent, agentFolder, dropped, told } = setup({
      copies: { [`tampered@${hash}`]: folder },
    });
    const message = runMessage("tampered", hash, "scripts/t.py");
    await executor.handle(message);
    expect(ended(sent, message.requestId)).toMatchObject({ status: "refused", code: "skill_changed" });
    const snapshots = join(agentFolder, "runs", "snapshots");
    expect(existsSync(snapshots) ? readdirSync(snapshots) : []).toEqual([]);
    // The changed copy leaves the held set, so the next sync fetches it again.
    expect(dropped).toEqual([`tampered@${hash}`]);
    expect(told).toEqual([`tampered@${hash}`]);
    const later = runMessage("tampered", hash, "scripts/t.py");
    await executor.handle(later);
    expect(ended(sent, later.requestId)).toMatchObject({ status: "refused", code: "skill_not_held" });
  });

  it("honours cancel and the timeout", async () => {
    const tree = runnerTree();
    const folder = writeSkillFolder(tree.skills, "slow", {
      "scripts/slow.py": "import time\nprint('started', flush=True)\ntime.sleep(30)\n",
    });
    const hash = hashOf(folder);
    const { executor, sent } = setup({ copies: { [`slow@${hash}`]: folder } });
    const cancelled = runMessage("slow", hash, "scripts/slow.py");
    const running = executor.handle(cancelled);
    await new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (sent.some((m) => m.type === "run-output" && m.requestId === cancelled.requestId)) {
          clearInterval(check);
          resolve();
        }
      }, 20);
    });
    expect(executor.inFlight).toEqual([cancelled.requestId]);
    executor.cancel(cancelled.requestId);
    await running;
    expect(ended(sent, cancelled.requestId).status).toBe("interrupted");
    const timed = runMessage("slow", hash, "scripts/slow.py", { timeoutMs: 500 });
    await executor.handle(timed);
    expect(ended(sent, timed.requestId).status).toBe("timed_out");
  });

  it("takes the sandbox policy from its own copy's governance keys, never from the message", async () => {
    const tree = runnerTree();
    const folder = writeSkillFolder(tree.skills, "net", {
      "SKILL.md":
        "---\nname: net\ndescription: Net.\nmetadata:\n  skillgate.execution: node\n  skillgate.allowed-domains: example.org\n---\nBody.\n",
      "scripts/net.py": "print(1)\n",
    });
    const hash = hashOf(folder);
    const seen: RunRequest[] = [];
    const capture: Runner = {
      run: async (request) => {
        seen.push(request);
        return {
          status: "ok",
          exitCode: 0,
          stdout: "",
          stderr: "",
          stdoutTruncated: false,
          stderrTruncated: false,
          durationMs: 1,
        };
      },
    };
    const { executor } = setup({ copies: { [`net@${hash}`]: folder }, runner: capture });
    const message = {
      ...runMessage("net", hash, "scripts/net.py"),
      allowedDomains: ["evil.example"],
      network: "bridge",
      timeoutMs: 10 * 60 * 60 * 1000,
    } as NodeRunMessage;
    await executor.handle(message);
    expect(seen[0]).toMatchObject({ execution: "sandbox", allowedDomains: ["example.org"], network: "none" });
    expect(seen[0]?.workspace).toBeUndefined();
    expect(seen[0]?.limits.timeoutMs).toBe(60 * 60 * 1000);
  });

  it("sends a .cs script to dotnet on the host; without dotnet it is refused with a code (language_unavailable)", async () => {
    const tree = runnerTree();
    const folder = writeSkillFolder(tree.skills, "sharp", {
      "scripts/hello.cs": 'System.Console.WriteLine("hi");\n',
    });
    const hash = hashOf(folder);
    const { executor, sent } = setup({ copies: { [`sharp@${hash}`]: folder } });
    const message = runMessage("sharp", hash, "scripts/hello.cs");
    const previous = process.env.PATH;
    // A PATH with no dotnet on it, whatever the machine running the suite has installed.
    process.env.PATH = "/nonexistent";
    try {
      await executor.handle(message);
    } finally {
      process.env.PATH = previous;
    }
    const outcome = ended(sent, message.requestId);
    expect(outcome).toMatchObject({ status: "refused", code: "language_unavailable" });
    expect(outcome.message).toMatch(/^HOST: scripts\/hello\.cs is a C# script and needs the \.NET SDK/);
  });

  const hostile: readonly [string, Partial<NodeRunMessage>][] = [
    ["a hash that is not 64 hex", { hash: "abc" }],
    ["a script with ..", { script: "../outside.py" }],
    ["an absolute script", { script: "/etc/passwd.py" }],
    ["arguments that are an array", { arguments: [] as unknown as NodeRunMessage["arguments"] }],
    ["an argv that is not text", { argv: [1] as unknown as string[] }],
    ["a zero timeout", { timeoutMs: 0 }],
    ["an output limit that is not a number", { maxOutputBytes: "9" as unknown as number }],
  ];
  for (const [what, change] of hostile)
    it(`refuses a run request with ${what} (invalid_run_request) and writes no snapshot`, async () => {
      const tree = runnerTree();
      const folder = writeSkillFolder(tree.skills, "h", { "scripts/h.py": "print(1)\n" });
      const hash = hashOf(folder);
      const { executor, sent, agentFolder } = setup({ copies: { [`h@${hash}`]: folder } });
      const message = runMessage("h", hash, "scripts/h.py", change);
      await executor.handle(message);
      const outcome = ended(sent, message.requestId);
      expect(outcome).toMatchObject({ status: "refused", code: "invalid_run_request" });
      expect(outcome.message).toMatch(/^HOST: /);
      expect(existsSync(join(agentFolder, "runs", "snapshots"))).toBe(false);
    });
});
