import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  bwrapRunArguments,
  encodeArguments,
  launcherName,
} from "../../../src/runners/sandbox/bwrap-arguments.js";
import {
  detectCgroups,
  hostCgroupSupport,
  systemCgroupHost,
} from "../../../src/runners/sandbox/cgroup-detect.js";
import { sandboxTools } from "../../../src/runners/sandbox/host-tools.js";
import { launchShape } from "../../../src/runners/sandbox/launch-shape.js";
import { DEFAULT_SANDBOX_RESOURCES } from "../../../src/runners/sandbox/limits.js";
import { prepareLaunch } from "../../../src/runners/sandbox/prepared-launch.js";
import { runsAsRoot, sandboxPrerequisites } from "../../../src/runners/sandbox/request-checks.js";
import { runInSandbox, type SandboxRunResult } from "../../../src/runners/sandbox/run-in-sandbox.js";
import { SandboxPool } from "../../../src/runners/sandbox/sandbox-pool.js";
import { runSandboxProcess } from "../../../src/runners/sandbox/sandbox-process.js";
import { eventually } from "../../helpers/eventually.js";
import {
  cgroupsLeft,
  cgroupsNamed,
  cgroupsOwnedBy,
  expectContained,
  expectStatus,
  hashOf,
  keptAheadPids,
  lastJson,
  processesNamed,
  requireBubblewrap,
  SANDBOX_ENVIRONMENT_KEYS,
  sandboxesStartedSince,
  snapshotOf,
} from "./harness.js";

/**
 * Sandboxes started ahead (SandboxPool): each serves one run, exactly like a sandbox started
 * for it; nothing of them outlives a run, the pool's close, or the process that made them.
 */

beforeAll(() => requireBubblewrap());

const pools: SandboxPool[] = [];

afterEach(async () => {
  for (const pool of pools.splice(0)) await pool.close();
});

function newPool(): SandboxPool {
  const pool = new SandboxPool();
  pools.push(pool);
  return pool;
}

const ECHO = `
import json, os, sys
print(json.dumps({
    "stdin": json.load(sys.stdin),
    "env": {key: value for key, value in os.environ.items() if key != "SKILLGATE_RUN_ID"},
    "keys": sorted(os.environ),
    "cwd": os.getcwd(),
    "uid": os.getuid(),
    "argv": sys.argv,
    "limits": open("/proc/self/limits").read(),
}))
`;

function run(
  pool: SandboxPool | undefined,
  snapshot: string,
  script: string,
  extra: { signal?: AbortSignal; onOutput?: () => void; argumentsJson?: string } = {},
): Promise<SandboxRunResult> {
  return runInSandbox({
    snapshotFolder: snapshot,
    script,
    command: ["/usr/bin/python3", "-B"],
    argumentsJson: extra.argumentsJson ?? JSON.stringify({ city: "Zürich" }),
    limits: { timeoutMs: 30_000, maxOutputBytes: 64 * 1024 },
    network: { mode: "none" },
    skillName: "echo",
    ...(pool !== undefined ? { pool } : {}),
    ...(extra.signal !== undefined ? { signal: extra.signal } : {}),
    ...(extra.onOutput !== undefined ? { onOutput: extra.onOutput } : {}),
  });
}

/** Waits until the pool keeps a sandbox ahead (it starts one after each run answered). */
async function ready(pool: SandboxPool): Promise<void> {
  await eventually("the pool keeps a sandbox ahead", () => pool.size > 0);
  expect(pool.size, "a sandbox kept ahead").toBe(1);
}

/**
 * The one sandbox a process keeps ahead that was not there at `before`, once its chain has
 * started (its command line names the run): what this test's pool started, not another's.
 */
async function keptAheadBy(
  parent: number,
  before: ReadonlySet<number>,
): Promise<{ pid: number; runId: string }> {
  const started = await eventually("one sandbox kept ahead", () => {
    const found = sandboxesStartedSince(before, parent);
    return found.length === 1 && found;
  });
  const [kept] = started;
  if (kept === undefined) throw new Error("no sandbox kept ahead");
  return kept;
}

describe("a sandbox started ahead", () => {
  it("serves one run exactly as a sandbox started for it would, and never serves another", async () => {
    const pool = newPool();
    const snapshot = snapshotOf({ "scripts/echo.py": ECHO });
    const before = hashOf(snapshot);
    const cold = await run(pool, snapshot, "scripts/echo.py");
    const results = [cold];
    for (let index = 0; index < 3; index += 1) {
      await ready(pool);
      results.push(await run(pool, snapshot, "scripts/echo.py"));
    }
    for (const result of results) {
      expectStatus(result, "ok");
      await expectContained(result, snapshot, before);
    }
    expect(results.map((result) => result.sandbox?.prestarted)).toEqual([false, true, true, true]);
    // Same stdin, environment (but the run id), working folder, identity, argv and limits.
    const outputs = results.map((result) => lastJson(result));
    for (const output of outputs.slice(1)) expect(output).toEqual(outputs[0]);
    expect(outputs[0]?.keys).toEqual(SANDBOX_ENVIRONMENT_KEYS);
    expect(outputs[0]?.stdin).toEqual({ city: "Zürich" });
    expect(outputs[0]?.uid).toBe(65534);
    expect(outputs[0]?.limits).toMatch(/Max processes\s+256\s+256/);
    // Every run its own sandbox: its own run id, PID namespace and cgroups.
    expect(new Set(results.map((result) => result.sandbox?.runId)).size).toBe(4);
    expect(new Set(results.map((result) => result.sandbox?.pidNamespace)).size).toBe(4);
    expect(results.every((result) => result.sandbox?.cgroup === hostCgroupSupport().version)).toBe(true);
  });

  it("is one bubblewrap waiting for its arguments, alone in cgroups named after its own run", async () => {
    const keptBefore = keptAheadPids();
    const pool = newPool();
    const snapshot = snapshotOf({ "scripts/ok.py": "print('ok')\n" });
    expectStatus(await run(pool, snapshot, "scripts/ok.py"), "ok");
    await ready(pool);
    const kept = await keptAheadBy(process.pid, keptBefore);
    const { pid, runId } = kept;
    // setpriv (as root) execs bubblewrap in the same process; wait for it to have done so.
    const name = () => /^Name:\s+(\S+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    await eventually("setpriv has exec'd bubblewrap", () => name() === "bwrap");
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    if (runsAsRoot()) expect(/^Uid:\s+(\d+)/m.exec(status)?.[1]).toBe("65534");
    // No sandbox yet: no child, no namespaces of its own.
    expect(readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim()).toBe("");
    const folders = cgroupsNamed(runId);
    if (hostCgroupSupport().version !== "none") {
      expect(folders.length).toBe(hostCgroupSupport().controllers.length);
      // Moved in the background (a run that takes it first waits for the move).
      const outside = () =>
        folders.filter((folder) => readFileSync(`${folder}/cgroup.procs`, "utf8").trim() !== String(pid));
      await eventually("the sandbox is in its run's cgroups", () => expect(outside()).toEqual([]));
    }
    await pool.close();
    await eventually(`the processes of ${runId} ended`, () => expect(processesNamed(runId)).toEqual([]));
    expect(cgroupsNamed(runId)).toEqual([]);
  });

  it("after many runs, some at once, and close(): no process and no cgroup is left; later runs start their own", async () => {
    const keptBefore = keptAheadPids();
    const pool = newPool();
    const snapshot = snapshotOf({ "scripts/ok.py": "print('ok')\n" });
    const before = hashOf(snapshot);
    const results: SandboxRunResult[] = [];
    for (let index = 0; index < 4; index += 1) {
      results.push(await run(pool, snapshot, "scripts/ok.py"));
      await ready(pool);
    }
    // Four at once: one takes the sandbox kept ahead, the others start their own.
    const burst = await Promise.all(Array.from({ length: 4 }, () => run(pool, snapshot, "scripts/ok.py")));
    expect(burst.filter((result) => result.sandbox?.prestarted)).toHaveLength(1);
    results.push(...burst);
    for (const result of results) expectStatus(result, "ok");
    const runIds = results.map((result) => result.sandbox?.runId ?? "");
    expect(new Set(runIds).size).toBe(results.length);
    await ready(pool);
    const ahead = sandboxesStartedSince(keptBefore).map((kept) => kept.runId);
    await pool.close();
    expect(pool.size).toBe(0);
    expect(sandboxesStartedSince(keptBefore)).toEqual([]);
    for (const runId of [...runIds, ...ahead]) {
      await eventually(`the processes of ${runId} ended`, () => expect(processesNamed(runId)).toEqual([]));
      expect(cgroupsNamed(runId), runId).toEqual([]);
    }
    expect(cgroupsOwnedBy()).toEqual([]);
    for (const result of results) await expectContained(result, snapshot, before);
    // Closed: a run still works, starts its own sandbox, and has removed its cgroups when it answers.
    const after = await run(pool, snapshot, "scripts/ok.py");
    expectStatus(after, "ok");
    expect(after.sandbox?.prestarted).toBe(false);
    expect(cgroupsNamed(after.sandbox?.runId ?? "")).toEqual([]);
    // Nothing may start after this run: a check that something does not happen needs a pause.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(pool.size).toBe(0);
    expect(sandboxesStartedSince(keptBefore)).toEqual([]);
  });

  it("an abort kills the run it served; the next run gets a new one", async () => {
    const pool = newPool();
    const snapshot = snapshotOf({
      "scripts/wait.py": "import time\nprint('started', flush=True)\ntime.sleep(60)\n",
      "scripts/ok.py": "print('ok')\n",
    });
    const before = hashOf(snapshot);
    expectStatus(await run(pool, snapshot, "scripts/ok.py"), "ok");
    await ready(pool);
    const controller = new AbortController();
    const aborted = await run(pool, snapshot, "scripts/wait.py", {
      signal: controller.signal,
      onOutput: () => controller.abort(),
    });
    expectStatus(aborted, "interrupted");
    expect(aborted.sandbox?.prestarted).toBe(true);
    await expectContained(aborted, snapshot, before);
    await ready(pool);
    const next = await run(pool, snapshot, "scripts/ok.py");
    expectStatus(next, "ok");
    expect(next.sandbox?.prestarted).toBe(true);
    expect(next.sandbox?.runId).not.toBe(aborted.sandbox?.runId);
    expect(await cgroupsLeft(next)).toEqual([]);
  });

  it("serves a run through the portal (root, a snapshot behind a closed folder); its folder goes with it", async () => {
    if (!runsAsRoot()) return;
    const pool = newPool();
    const snapshot = snapshotOf({ "scripts/echo.py": ECHO }, 0o700);
    const before = hashOf(snapshot);
    // Only this process's folders: other test files run sandboxes in parallel in the same tmpdir.
    const portals = () =>
      readdirSync(tmpdir()).filter((name) => name.startsWith(`skillgate-portal-${process.pid}-`));
    const portalsBefore = portals();
    const cold = await run(pool, snapshot, "scripts/echo.py");
    await ready(pool);
    // The launch kept ahead has its portal folder (empty on the host) ready.
    expect(portals().length).toBe(portalsBefore.length + 1);
    const warm = await run(pool, snapshot, "scripts/echo.py");
    for (const result of [cold, warm]) {
      expectStatus(result, "ok");
      expect(result.sandbox?.portal).toBe(true);
      await expectContained(result, snapshot, before);
    }
    expect(warm.sandbox?.prestarted).toBe(true);
    expect(lastJson(warm)).toEqual(lastJson(cold));
    await pool.close();
    expect(portals()).toEqual(portalsBefore);
    expect(cgroupsOwnedBy()).toEqual([]);
  });

  it("refuses arguments holding a NUL byte before anything starts (they would inject options)", async () => {
    const pool = newPool();
    const snapshot = snapshotOf({ "scripts/ok.py": "print('ran')\n" });
    expectStatus(await run(pool, snapshot, "scripts/ok.py"), "ok");
    await ready(pool);
    const result = await run(pool, snapshot, "scripts/ok.py", {
      argumentsJson: '{"a":"\u0000--bind\u0000/\u0000/host"}',
    });
    expectStatus(result, "refused");
    expect(result.code).toBe("sandbox_failed");
    expect(result.message).toMatch(/^HOST: .*NUL byte/);
    expect(result.sandbox).toBeUndefined();
    // The sandbox kept ahead was not touched.
    expect(pool.size).toBe(1);
  });
});

describe("arguments that do not arrive whole run nothing", () => {
  for (const [name, cut] of [
    ["none at all (the writer died before the run)", (data: Buffer) => data.subarray(0, 0)],
    ["all but the launcher's mark", (data: Buffer) => data.subarray(0, data.lastIndexOf("--setenv"))],
    ["cut inside the mark", (data: Buffer) => data.subarray(0, data.length - 4)],
    ["cut inside the command", (data: Buffer) => data.subarray(0, data.indexOf("/skill/scripts/ok.py") + 8)],
  ] as const)
    it(name, async () => {
      const tools = sandboxTools();
      const host = sandboxPrerequisites(tools, "scripts/ok.py", false);
      if (!host.ok) throw new Error("no sandbox on this host");
      const shape = launchShape({
        bwrap: host.bwrap,
        features: host.features,
        tools,
        shell: host.shell,
        dropRoot: runsAsRoot(),
        deathSignal: false,
        resources: DEFAULT_SANDBOX_RESOURCES,
        cgroups: { version: "none", controllers: [], note: "off" },
        env: {},
      });
      const launch = prepareLaunch(shape);
      if ("error" in launch) throw new Error(launch.error);
      const snapshot = snapshotOf({ "scripts/ok.py": "print('ran')\n" });
      const whole = encodeArguments(
        bwrapRunArguments(
          {
            env: { PATH: "/usr/bin" },
            skillSource: snapshot,
            alternatives: false,
            resources: DEFAULT_SANDBOX_RESOURCES,
            prlimit: host.prlimit,
            shell: host.shell,
            command: ["/usr/bin/python3", "-B"],
            scriptInside: "/skill/scripts/ok.py",
            interpreter: "other",
          },
          true,
        ),
      );
      const outcome = await runSandboxProcess({
        chain: launch.chain,
        arguments: cut(whole),
        input: "{}",
        timeoutMs: 20_000,
        maxOutputBytes: 4096,
      });
      await launch.dispose();
      expect(outcome.stdout).toBe("");
      expect(outcome.exitCode).not.toBe(0);
      expect(outcome.ending).toBe("exited");
      await eventually("the launch's processes ended", () =>
        expect(processesNamed(launch.runId)).toEqual([]),
      );
    });
});

describe("the process that keeps sandboxes ahead", () => {
  /** A skillgate process: one run through a pool, then it reports the sandbox it keeps ahead and waits for a line. */
  function startOwner() {
    const module = new URL("../../../src/runners/sandbox/index.ts", import.meta.url).pathname;
    const snapshot = snapshotOf({ "scripts/ok.py": "print('ok')\n" });
    const owner = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "--input-type=module",
        "-e",
        `const { runInSandbox, SandboxPool } = await import(${JSON.stringify(module)});
         const pool = new SandboxPool();
         const result = await runInSandbox({ snapshotFolder: ${JSON.stringify(snapshot)}, script: "scripts/ok.py",
           command: ["/usr/bin/python3", "-B"], argumentsJson: "{}", limits: { timeoutMs: 30000, maxOutputBytes: 4096 },
           network: { mode: "none" }, pool });
         while (pool.size === 0) await new Promise((resolve) => setTimeout(resolve, 5));
         console.log(JSON.stringify({ status: result.status, runId: result.sandbox.runId }));
         process.stdin.once("data", () => process.stdin.destroy());`,
      ],
      { stdio: ["pipe", "pipe", "inherit"] },
    );
    const reported = new Promise<{ status: string; runId: string }>((resolve, reject) => {
      let text = "";
      owner.stdout.on("data", (chunk: Buffer) => {
        text += chunk.toString();
        if (text.includes("\n")) resolve(JSON.parse(text) as { status: string; runId: string });
      });
      owner.once("exit", () => reject(new Error(`the owner exited first: ${text}`)));
    });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      owner.once("exit", (code, signal) => resolve({ code, signal })),
    );
    return { owner, reported, exited };
  }

  it("exits on its own without closing the pool, and takes the sandbox kept ahead with it", async () => {
    const { owner, reported, exited } = startOwner();
    const { status } = await reported;
    expect(status).toBe("ok");
    const { runId } = await keptAheadBy(owner.pid ?? 0, new Set());
    owner.stdin.end("done\n");
    // Nothing keeps it alive: the sandbox kept ahead is not a reason to stay.
    expect(await exited).toEqual({ code: 0, signal: null });
    await eventually(`the processes of ${runId} ended`, () => expect(processesNamed(runId)).toEqual([]));
    expect(cgroupsNamed(runId)).toEqual([]);
  });

  it("SIGKILLed, it leaves a sandbox kept ahead with no arguments: it ends having run nothing, its empty cgroups are swept", async () => {
    const { owner, reported, exited } = startOwner();
    await reported;
    const { runId } = await keptAheadBy(owner.pid ?? 0, new Set());
    expect(launcherName(runId)).toContain(runId);
    owner.kill("SIGKILL");
    await exited;
    await eventually(`the processes of ${runId} ended`, () => expect(processesNamed(runId)).toEqual([]));
    // The kernel may still be tearing the last process down; the sweep removes only empty cgroups.
    const swept = () => {
      detectCgroups(systemCgroupHost());
      return cgroupsOwnedBy(owner.pid ?? 0);
    };
    await eventually("the owner's empty cgroups are swept", () => expect(swept()).toEqual([]));
  });
});
