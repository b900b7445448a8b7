import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { CgroupController, CgroupSupport } from "./cgroup-detect.js";
import { RUN_CGROUP_PREFIX } from "./cgroup-detect.js";
import type { SandboxResources } from "./limits.js";

/** The CPU period written with a quota: 100 ms, the kernel's default. */
const CPU_PERIOD_MICROSECONDS = 100_000;
/** The leaf this process moves into when cgroup v2 will not enable controllers while it sits in its group. */
export const SUPERVISOR_CGROUP = `${RUN_CGROUP_PREFIX}supervisor`;

/** The cgroups of one run: how a process joins them, and how to empty and remove them. */
export interface RunCgroup {
  /** The run's `cgroup.procs` files, one per hierarchy. */
  readonly procsFiles: readonly string[];
  /**
   * Moves a process (its whole thread group) into every one of the run's cgroups. Off the
   * event loop: the kernel makes a migration wait for an RCU grace period (several ms).
   */
  join(pid: number): Promise<void>;
  /** Whether `pid` is in every one of the run's cgroups. */
  holds(pid: number): boolean;
  /** The controllers whose limits were written. */
  readonly controllers: readonly CgroupController[];
  readonly version: "v1" | "v2";
  /** SIGKILLs every process still in the run's cgroups. */
  kill(): void;
  /** Kills what is left and removes the folders (retrying while the kernel reaps). */
  remove(): Promise<void>;
  /**
   * The same, blocking, for a process that is exiting and cannot wait: retries for at most
   * `withinMs`; what is still there then is removed by the next skillgate's sweep.
   */
  removeNow(withinMs: number): void;
}

const enabledV2 = new Map<string, true | string>();

/**
 * A run's cgroups, or why there are none: `problem` is set when the host offers cgroups but
 * the run's could not be made (the run then has rlimits only, and says so); neither is set
 * when the host offers none.
 */
export type RunCgroupAttempt =
  | { readonly cgroup: RunCgroup; readonly problem?: undefined }
  | { readonly cgroup?: undefined; readonly problem?: string };

/**
 * Makes the cgroups of one run and writes its limits: pids, memory (no swap) and CPU quota.
 * Never throws: a failure is returned as `problem`, with the folder and the error, so the
 * caller can report it or refuse the run; it is never silently the same as "no cgroups".
 */
export function createRunCgroup(
  support: CgroupSupport,
  name: string,
  resources: SandboxResources,
): RunCgroupAttempt {
  try {
    if (support.version === "v2")
      return { cgroup: createV2(support.folder, support.controllers, name, resources) };
    if (support.version === "v1")
      return { cgroup: createV1(support.folders, support.controllers, name, resources) };
  } catch (error) {
    return { problem: error instanceof Error ? error.message : String(error) };
  }
  return {};
}

/** The folder name of a run's cgroup: owner pid first, so a sweep can tell orphans. */
export function runCgroupName(runId: string): string {
  return `${RUN_CGROUP_PREFIX}${process.pid}-${runId}`;
}

function createV2(
  parent: string,
  controllers: readonly CgroupController[],
  name: string,
  resources: SandboxResources,
): RunCgroup {
  const enabled = enableV2Controllers(parent, controllers);
  if (enabled !== true) throw new Error(`the controllers could not be enabled in ${parent} (${enabled})`);
  const folder = join(parent, name);
  makeFolder(folder);
  const written: CgroupController[] = [];
  const write = (file: string, value: string): boolean => {
    try {
      writeFileSync(join(folder, file), value);
      return true;
    } catch {
      return false;
    }
  };
  if (controllers.includes("pids") && write("pids.max", String(resources.processes))) written.push("pids");
  if (controllers.includes("memory") && write("memory.max", String(resources.memoryBytes))) {
    if (existsSync(join(folder, "memory.swap.max"))) write("memory.swap.max", "0");
    written.push("memory");
  }
  if (controllers.includes("cpu") && write("cpu.max", `${cpuQuota(resources)} ${CPU_PERIOD_MICROSECONDS}`))
    written.push("cpu");
  const folders = [folder];
  return handle("v2", folders, written, () => {
    if (existsSync(join(folder, "cgroup.kill"))) {
      try {
        writeFileSync(join(folder, "cgroup.kill"), "1");
      } catch {
        // fall through to killing one by one
      }
    }
  });
}

/**
 * Turns the controllers on for children of `parent`. cgroup v2 refuses that while processes
 * sit in `parent` itself ("no internal processes"); when the only one there is this
 * process, it moves into a leaf of its own ({@link SUPERVISOR_CGROUP}) first, as systemd's
 * delegation documentation prescribes. Worked out once per parent: `true`, or the error code.
 */
function enableV2Controllers(parent: string, controllers: readonly CgroupController[]): true | string {
  const known = enabledV2.get(parent);
  if (known !== undefined) return known;
  const wanted = controllers.map((controller) => `+${controller}`).join(" ");
  const control = join(parent, "cgroup.subtree_control");
  let enabled: true | string;
  try {
    writeFileSync(control, wanted);
    enabled = true;
  } catch (error) {
    enabled = errorCode(error);
    if (enabled === "EBUSY" && onlyThisProcess(parent)) {
      try {
        const supervisor = join(parent, SUPERVISOR_CGROUP);
        mkdirSync(supervisor, { recursive: true });
        writeFileSync(join(supervisor, "cgroup.procs"), String(process.pid));
        writeFileSync(control, wanted);
        enabled = true;
      } catch (inner) {
        enabled = errorCode(inner);
      }
    }
  }
  enabledV2.set(parent, enabled);
  return enabled;
}

function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? String(error);
}

/** mkdir, with the folder named in the error. */
function makeFolder(folder: string): void {
  try {
    mkdirSync(folder);
  } catch (error) {
    throw new Error(`${folder} could not be made (${errorCode(error)})`);
  }
}

function onlyThisProcess(folder: string): boolean {
  const pids = readPids(join(folder, "cgroup.procs"));
  return pids.length === 1 && pids[0] === process.pid;
}

function createV1(
  folders: Readonly<Partial<Record<CgroupController, string>>>,
  controllers: readonly CgroupController[],
  name: string,
  resources: SandboxResources,
): RunCgroup {
  const made: string[] = [];
  const written: CgroupController[] = [];
  try {
    for (const controller of controllers) {
      const parent = folders[controller];
      if (parent === undefined) continue;
      const folder = join(parent, name);
      makeFolder(folder);
      made.push(folder);
      if (controller === "pids") writeFileSync(join(folder, "pids.max"), String(resources.processes));
      if (controller === "memory") {
        writeFileSync(join(folder, "memory.limit_in_bytes"), String(resources.memoryBytes));
        // Memory plus swap no larger than memory: no swapping past the cap (absent without swap accounting).
        if (existsSync(join(folder, "memory.memsw.limit_in_bytes")))
          writeFileSync(join(folder, "memory.memsw.limit_in_bytes"), String(resources.memoryBytes));
      }
      if (controller === "cpu") {
        writeFileSync(join(folder, "cpu.cfs_period_us"), String(CPU_PERIOD_MICROSECONDS));
        writeFileSync(join(folder, "cpu.cfs_quota_us"), String(cpuQuota(resources)));
      }
      written.push(controller);
    }
  } catch (error) {
    for (const folder of made.reverse()) removeQuietly(folder);
    // A write's own error names the file (ENOENT: …, open '<folder>/pids.max').
    throw error;
  }
  if (made.length === 0) throw new Error("no cgroup v1 hierarchy to make the run's group in");
  return handle("v1", made, written, () => undefined);
}

function cpuQuota(resources: SandboxResources): number {
  return Math.max(1000, Math.round(resources.cpus * CPU_PERIOD_MICROSECONDS));
}

function handle(
  version: "v1" | "v2",
  folders: readonly string[],
  controllers: readonly CgroupController[],
  killAll: () => void,
): RunCgroup {
  const kill = (): void => {
    killAll();
    for (const folder of folders)
      for (const pid of readPids(join(folder, "cgroup.procs"))) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
  };
  const procsFiles = folders.map((folder) => join(folder, "cgroup.procs"));
  return {
    procsFiles,
    controllers,
    version,
    async join(pid: number): Promise<void> {
      await Promise.all(procsFiles.map((file) => writeFile(file, String(pid))));
    },
    holds(pid: number): boolean {
      return procsFiles.every((file) => readPids(file).includes(pid));
    },
    kill,
    async remove(): Promise<void> {
      for (const folder of folders) {
        for (let attempt = 0; ; attempt += 1) {
          kill();
          try {
            rmdirSync(folder);
            break;
          } catch (error) {
            const code = (error as NodeJS.ErrnoException).code;
            if (code === "ENOENT" || attempt >= 50) break;
            await sleep(Math.min(100, 2 ** attempt));
          }
        }
      }
    },
    removeNow(withinMs: number): void {
      const deadline = Date.now() + withinMs;
      const pause = new Int32Array(new SharedArrayBuffer(4));
      for (const folder of folders) {
        for (;;) {
          kill();
          try {
            rmdirSync(folder);
            break;
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code === "ENOENT" || Date.now() >= deadline) break;
            Atomics.wait(pause, 0, 0, 1);
          }
        }
      }
    },
  };
}

function readPids(path: string): number[] {
  try {
    return readFileSync(path, "utf8")
      .split("\n")
      .filter(Boolean)
      .map(Number)
      .filter((pid) => Number.isInteger(pid) && pid > 0);
  } catch {
    return [];
  }
}

function removeQuietly(folder: string): void {
  try {
    rmdirSync(folder);
  } catch {
    // a later sweep removes it
  }
}
