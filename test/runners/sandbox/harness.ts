import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, afterEach, expect } from "vitest";
import { removeTree } from "../../../src/core/remove-tree.js";
import { hostCgroupSupport, RUN_CGROUP_PREFIX } from "../../../src/runners/sandbox/cgroup-detect.js";
import { sandboxTools } from "../../../src/runners/sandbox/host-tools.js";
import {
  runInSandbox,
  type SandboxNetwork,
  type SandboxRunRequest,
  type SandboxRunResult,
} from "../../../src/runners/sandbox/run-in-sandbox.js";
import { SandboxPool } from "../../../src/runners/sandbox/sandbox-pool.js";
import { sandboxInterpreter } from "../../../src/runners/sandbox/sandbox-runner.js";
import { hashSkillFolder } from "../../../src/skill/content-hash.js";
import { eventually } from "../../helpers/eventually.js";

/**
 * Real snapshots and real bubblewrap runs for the sandbox tests, plus the evidence every
 * case checks afterwards: nothing of the run left running and nothing outside `/tmp` changed.
 */

const made: string[] = [];

afterEach(() => {
  for (const folder of made.splice(0)) removeTree(folder);
});

/**
 * The pool runs take unless they ask not to, as SandboxRunner's runs do: after a file's first
 * run of a shape, runs are served by a sandbox started ahead, which is what a host runs.
 */
let pool: SandboxPool | undefined;

/** The test file's pool, made on first use and closed after the file's last test. */
export function sharedPool(): SandboxPool {
  pool ??= new SandboxPool();
  return pool;
}

afterAll(async () => {
  await pool?.close();
  pool = undefined;
});

/** Waits until the file's pool keeps a sandbox ahead: it starts one after a run answered. */
export async function poolReady(): Promise<void> {
  await eventually("the file's pool keeps a sandbox ahead", () => sharedPool().size > 0);
}

/**
 * Fails (never skips) when this host cannot run the sandbox: the suite exists to prove the
 * containment, and a skipped suite proves nothing.
 */
export function requireBubblewrap(): void {
  const tools = sandboxTools();
  if (tools.bwrap === undefined || tools.prlimit === undefined || tools.socat === undefined)
    throw new Error(
      "bubblewrap, socat and util-linux's prlimit are needed for the sandbox tests: run scripts/install-test-deps.sh (or apt-get install bubblewrap socat util-linux)",
    );
}

/** A fresh folder under the system temp folder, removed after the test; `mode` 0755 lets the sandbox user in. */
export function temporaryFolder(prefix: string, mode = 0o755): string {
  const folder = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  chmodSync(folder, mode);
  made.push(folder);
  return folder;
}

/**
 * A snapshot the way the runners make them: files 0444, folders 0555, in a folder the
 * sandbox user can reach (`parentMode` 0700 puts it behind a closed folder instead).
 */
export function snapshotOf(files: Record<string, string>, parentMode = 0o755): string {
  const parent = temporaryFolder("skillgate-sandbox-test-", parentMode);
  const folder = join(parent, "snapshot");
  const all = { "SKILL.md": "---\nname: probe\ndescription: A sandbox probe.\n---\nBody.\n", ...files };
  for (const [path, text] of Object.entries(all)) {
    mkdirSync(dirname(join(folder, path)), { recursive: true });
    writeFileSync(join(folder, path), text, { mode: 0o444 });
  }
  sealFolders(folder);
  return folder;
}

function sealFolders(folder: string): void {
  for (const entry of readdirSync(folder, { withFileTypes: true }))
    if (entry.isDirectory()) sealFolders(join(folder, entry.name));
  chmodSync(folder, 0o555);
}

/** The snapshot's content hash, to compare before and after a run. */
export function hashOf(folder: string): string {
  const hash = hashSkillFolder(folder).hash;
  if (hash === undefined) throw new Error(`${folder} has no hash`);
  return hash;
}

/** Runs `script` of the snapshot with the interpreter its extension names. */
export async function runScript(
  snapshotFolder: string,
  script: string,
  options: Partial<Omit<SandboxRunRequest, "snapshotFolder" | "script" | "pool">> & {
    readonly arguments?: unknown;
    /** `false`: start this run's own sandbox, without the file's pool. */
    readonly prestart?: boolean;
  } = {},
): Promise<SandboxRunResult> {
  // One turn of the event loop first: the pool starts its next sandbox after the previous run
  // answered, as it would between a model's calls, so sequential cases run prestarted.
  await new Promise((resolve) => setImmediate(resolve));
  // Kinds the sandbox refuses still need some interpreter to be refused with.
  const interpreter = sandboxInterpreter(script);
  const command = options.command ?? (interpreter.ok ? interpreter.command : ["/usr/bin/node"]);
  const interpreterMounts = options.interpreterMounts ?? (interpreter.ok ? interpreter.mounts : []);
  const network: SandboxNetwork = options.network ?? { mode: "none" };
  return await runInSandbox({
    snapshotFolder,
    script,
    command,
    interpreterMounts,
    argumentsJson: options.argumentsJson ?? JSON.stringify(options.arguments ?? {}),
    limits: { timeoutMs: 30_000, maxOutputBytes: 64 * 1024, ...options.limits },
    network,
    ...(options.signal !== undefined ? { signal: options.signal } : {}),
    ...(options.onOutput !== undefined ? { onOutput: options.onOutput } : {}),
    ...(options.cgroups !== undefined ? { cgroups: options.cgroups } : {}),
    ...(options.cgroupSupport !== undefined ? { cgroupSupport: options.cgroupSupport } : {}),
    ...(options.skillName !== undefined ? { skillName: options.skillName } : {}),
    ...(options.prestart === false ? {} : { pool: sharedPool() }),
  });
}

/** A host process, as the leftover check reports it. */
export interface HostProcess {
  readonly pid: number;
  readonly uid: number;
  readonly command: string;
}

/**
 * Host processes that belong to a run: those in its PID namespace (every process the run
 * started is in it, whatever it did with sessions and groups), and those whose command line
 * or environment names the run id.
 */
export function processesOfRun(result: SandboxRunResult): HostProcess[] {
  const details = result.sandbox;
  return details === undefined ? [] : processesNamed(details.runId, details.pidNamespace);
}

/** Host processes naming a run id (command line or environment), or in the given PID namespace. */
export function processesNamed(runId: string, pidNamespace?: number): HostProcess[] {
  const namespace = pidNamespace !== undefined ? `pid:[${pidNamespace}]` : undefined;
  const found: HostProcess[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    const read = (file: string): string => {
      try {
        return readFileSync(`/proc/${pid}/${file}`, "latin1");
      } catch {
        return "";
      }
    };
    let inNamespace = false;
    try {
      inNamespace = namespace !== undefined && readlinkSync(`/proc/${pid}/ns/pid`) === namespace;
    } catch {
      inNamespace = false;
    }
    const command = read("cmdline").replaceAll("\0", " ").trim();
    const named = command.includes(runId) || read("environ").includes(runId);
    if (!inNamespace && !named) continue;
    if (/\sZ\s/.test(read("stat").slice(read("stat").lastIndexOf(")")))) continue;
    const uid = Number(/^Uid:\s+(\d+)/m.exec(read("status"))?.[1] ?? -1);
    found.push({ pid, uid, command });
  }
  return found;
}

/** The pids of the sandboxes a process keeps ahead now: a test's starting point for {@link sandboxesStartedSince}. */
export function keptAheadPids(parent = process.pid): ReadonlySet<number> {
  return new Set(sandboxesKeptAhead(parent).map((kept) => kept.pid));
}

/**
 * The sandboxes a process keeps ahead that were not there at `before`: the ones a test's own
 * pool started. Another pool in the same process (an earlier test's, the file's shared one)
 * is not the test's to count.
 */
export function sandboxesStartedSince(
  before: ReadonlySet<number>,
  parent = process.pid,
): { pid: number; runId: string }[] {
  return sandboxesKeptAhead(parent).filter((kept) => !before.has(kept.pid));
}

/** The launch chains a process keeps ahead: its children whose bubblewrap names a run but has no sandbox yet. */
export function sandboxesKeptAhead(parent = process.pid): { pid: number; runId: string }[] {
  const found: { pid: number; runId: string }[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, "utf8");
      if (Number(/^PPid:\s+(\d+)/m.exec(status)?.[1]) !== parent) continue;
      const runId = /skillgate-sandbox-([0-9a-f]{16})/.exec(
        readFileSync(`/proc/${entry}/cmdline`, "latin1"),
      )?.[1];
      if (runId !== undefined) found.push({ pid: Number(entry), runId });
    } catch {
      // gone while listing
    }
  }
  return found;
}

/**
 * Portal folders under the system's temporary folder that no live process names: a launch
 * waiting ahead through the portal (this test file's, or another's running alongside) names
 * its folder on its command line until it starts.
 */
export function portalsLeft(): string[] {
  const named = new Set<string>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      for (const arg of readFileSync(`/proc/${entry}/cmdline`, "latin1").split("\0"))
        if (arg.includes("skillgate-portal-")) named.add(arg);
    } catch {
      // gone while listing
    }
  }
  // Only this process's folders: other test files run sandboxes in parallel in the same tmpdir.
  return readdirSync(tmpdir())
    .filter((name) => name.startsWith(`skillgate-portal-${process.pid}-`))
    .filter((name) => !named.has(join(tmpdir(), name)));
}

/** The environment variables a sandboxed script sees, by name: nothing of the host's. */
export const SANDBOX_ENVIRONMENT_KEYS = [
  "HOME",
  "LANG",
  "PATH",
  "PWD",
  "PYTHONDONTWRITEBYTECODE",
  "SKILLGATE_RUN_ID",
  "SKILLGATE_SKILL_ARGS",
  "SKILLGATE_SKILL_DIR",
  "SKILLGATE_SKILL_NAME",
  "TMPDIR",
];

/**
 * The names of the run cgroups a process (by default this one) made that still exist, in
 * every hierarchy; the probes cgroup detection makes are left out unless `withProbes`.
 */
export function cgroupsOwnedBy(owner = process.pid, withProbes = false): string[] {
  const support = hostCgroupSupport();
  const folders =
    support.version === "v2"
      ? [support.folder]
      : support.version === "v1"
        ? Object.values(support.folders)
        : [];
  return folders.flatMap((folder) =>
    readdirSync(folder).filter(
      (name) => name.startsWith(`${RUN_CGROUP_PREFIX}${owner}-`) && (withProbes || !name.endsWith("-probe")),
    ),
  );
}

/** The run's cgroup folders that still exist. */
export function cgroupsOfRun(result: SandboxRunResult): string[] {
  const runId = result.sandbox?.runId;
  return runId === undefined ? [] : cgroupsNamed(runId);
}

/** The cgroup folders named after a run id (any owner) that still exist. */
export function cgroupsNamed(runId: string): string[] {
  const roots = ["/sys/fs/cgroup"];
  const found: string[] = [];
  const visit = (folder: string, depth: number): void => {
    if (depth > 6) return;
    let entries: import("node:fs").Dirent[];
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (!entry.isDirectory()) continue;
      const path = join(folder, entry.name);
      if (entry.name.startsWith(RUN_CGROUP_PREFIX) && entry.name.endsWith(runId)) found.push(path);
      else visit(path, depth + 1);
    }
  };
  for (const root of roots) if (existsSync(root)) visit(root, 0);
  return found;
}

/**
 * The run's cgroup folders still there after up to two seconds: a run through a pool
 * answers first and removes its cgroups right after.
 */
export async function cgroupsLeft(result: SandboxRunResult): Promise<string[]> {
  await eventually("the run's cgroups are removed", () => cgroupsOfRun(result).length === 0, {
    timeoutMs: 2_000,
  }).catch(() => undefined);
  return cgroupsOfRun(result);
}

/**
 * The evidence after every case: the run reported its PID namespace, nothing of the run is
 * left running, its cgroups are gone and the snapshot hashes as before.
 */
export async function expectContained(
  result: SandboxRunResult,
  snapshot: string,
  hashBefore: string,
): Promise<void> {
  expect(result.sandbox?.pidNamespace, "bubblewrap reported the run's PID namespace").toBeTypeOf("number");
  // The kernel tears the namespace down before bubblewrap's wait returns; the grace only absorbs a slow reap.
  await eventually("the run's processes ended", () =>
    expect(processesOfRun(result), "processes of the run still running").toEqual([]),
  );
  expect(await cgroupsLeft(result), "cgroups of the run left behind").toEqual([]);
  expect(hashOf(snapshot), "the snapshot changed").toBe(hashBefore);
}

/** Parses the JSON line a probe script printed last on stdout. */
export function lastJson(result: SandboxRunResult): Record<string, unknown> {
  const lines = result.stdout.trim().split("\n");
  const last = lines[lines.length - 1] ?? "";
  try {
    return JSON.parse(last) as Record<string, unknown>;
  } catch {
    throw new Error(`no JSON on the last line of stdout:\n${result.stdout}\nstderr:\n${result.stderr}`);
  }
}

/** Asserts a run's status, showing its stderr when it differs. */
export function expectStatus(result: SandboxRunResult, status: SandboxRunResult["status"]): void {
  expect(
    result.status,
    `status (stderr: ${result.stderr.slice(0, 2000)}; message: ${result.message ?? ""})`,
  ).toBe(status);
}

/** A Python prelude for probes: `attempt(action)` is "ok" or the errno's name. */
export const PYTHON_ATTEMPT = `
import errno, json, os, sys
def attempt(action):
    try:
        action()
        return "ok"
    except OSError as error:
        return errno.errorcode.get(error.errno, str(error.errno))
`;

/** Runs a Python probe from a fresh snapshot and checks containment afterwards. */
export async function probe(
  source: string,
  options: Parameters<typeof runScript>[2] & { files?: Record<string, string>; script?: string } = {},
) {
  const script = options.script ?? "scripts/probe.py";
  const snapshot = snapshotOf({ [script]: source, ...options.files });
  const before = hashOf(snapshot);
  const result = await runScript(snapshot, script, options);
  await expectContained(result, snapshot, before);
  return result;
}
