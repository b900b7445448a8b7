import { accessSync, constants, existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync } from "node:fs";
import { join } from "node:path";
import { leftByEndedProcess } from "../../core/process-groups.js";

/** The cgroup controllers the sandbox uses: processes, memory and CPU time. */
export type CgroupController = "pids" | "memory" | "cpu";
/** In the order limits are reported. */
export const CGROUP_CONTROLLERS: readonly CgroupController[] = ["pids", "memory", "cpu"];

/** What the process can see of the host's cgroups: `/proc/self/cgroup`, `/proc/self/mountinfo` and who it is. */
export interface CgroupHost {
  readonly selfCgroup: string;
  readonly mountInfo: string;
  readonly isRoot: boolean;
  readonly pid: number;
}

/**
 * Where run cgroups can be made. `v2`: one folder (this process's own cgroup, which must be
 * writable: delegated, or root) for every controller it offers. `v1`: a folder per
 * controller, this process's own cgroup in each hierarchy, only as root. `none`: rlimits only.
 */
export type CgroupSupport =
  | {
      readonly version: "v2";
      readonly folder: string;
      readonly controllers: readonly CgroupController[];
      readonly note: string;
    }
  | {
      readonly version: "v1";
      readonly folders: Readonly<Partial<Record<CgroupController, string>>>;
      readonly controllers: readonly CgroupController[];
      readonly note: string;
    }
  | { readonly version: "none"; readonly controllers: readonly []; readonly note: string };

/** Prefix of every cgroup folder skillgate makes; the rest is `<pid>-<run id>`. */
export const RUN_CGROUP_PREFIX = "skillgate-";

/** One line of `/proc/self/mountinfo` that mounts a cgroup filesystem. */
interface CgroupMount {
  readonly root: string;
  readonly mountPoint: string;
  readonly type: "cgroup" | "cgroup2";
  readonly superOptions: readonly string[];
}

/** The current process's view of the host, read from `/proc`. */
export function systemCgroupHost(): CgroupHost {
  const read = (path: string): string => {
    try {
      return readFileSync(path, "utf8");
    } catch {
      return "";
    }
  };
  return {
    selfCgroup: read("/proc/self/cgroup"),
    mountInfo: read("/proc/self/mountinfo"),
    isRoot: process.getuid?.() === 0,
    pid: process.pid,
  };
}

let cached: CgroupSupport | undefined;

/**
 * Names the cgroup v2 group run cgroups are made under, instead of detecting one: for a host
 * whose delegated group is known, and for checking what a run does when its cgroup cannot be
 * made. Read on every call; detection is cached.
 */
export const CGROUP_PARENT_VARIABLE = "SKILLGATE_CGROUP_V2_PARENT";

/**
 * {@link detectCgroups} for this process, worked out once; or the group named by
 * {@link CGROUP_PARENT_VARIABLE}, taken as it is (every controller wanted, nothing probed: a
 * group that is not usable shows as a failed cgroup in each run's limits).
 */
export function hostCgroupSupport(): CgroupSupport {
  const parent = process.env[CGROUP_PARENT_VARIABLE];
  if (parent !== undefined && parent !== "")
    return {
      version: "v2",
      folder: parent,
      controllers: CGROUP_CONTROLLERS,
      note: `cgroup v2 in ${parent} (from ${CGROUP_PARENT_VARIABLE})`,
    };
  cached ??= detectCgroups(systemCgroupHost());
  return cached;
}

/**
 * Finds where this process may make cgroups with the controllers it needs: cgroup v2 first
 * (its own cgroup, when writable and offering pids, memory or cpu), then v1 as root. Each
 * candidate is proven by making and removing a probe child and seeing its limit files; left
 * over run cgroups of processes that died are removed on the way (empty ones only).
 */
export function detectCgroups(host: CgroupHost): CgroupSupport {
  const mounts = parseCgroupMounts(host.mountInfo);
  const v2 = detectV2(host, mounts);
  if (v2.version === "v2") return v2;
  const v1 = detectV1(host, mounts);
  if (v1.version === "v1") return v1;
  return { version: "none", controllers: [], note: `${v2.note}; ${v1.note}` };
}

function detectV2(host: CgroupHost, mounts: readonly CgroupMount[]): CgroupSupport {
  const mount = mounts.find((candidate) => candidate.type === "cgroup2");
  if (mount === undefined) return none("no cgroup v2 hierarchy is mounted");
  const own = selfPaths(host.selfCgroup).get("");
  if (own === undefined) return none("this process is not in a cgroup v2 group");
  const folder = folderOf(mount, own);
  if (folder === undefined) return none("this process's cgroup v2 group is outside the mounted hierarchy");
  const offered = readWords(join(folder, "cgroup.controllers"));
  const controllers = CGROUP_CONTROLLERS.filter((controller) => offered.includes(controller));
  if (controllers.length === 0)
    return none(`cgroup v2 offers none of pids, memory, cpu in ${folder} (not delegated)`);
  if (!writable(folder) || !writable(join(folder, "cgroup.subtree_control")))
    return none(`cgroup v2 group ${folder} is not writable by this user (not delegated)`);
  sweep(folder);
  return {
    version: "v2",
    folder,
    controllers,
    note: `cgroup v2 in ${folder} (${controllers.join(", ")})`,
  };
}

function detectV1(host: CgroupHost, mounts: readonly CgroupMount[]): CgroupSupport {
  if (!host.isRoot) return none("cgroup v1 is used only when skillgate runs as root");
  const paths = selfPaths(host.selfCgroup);
  const folders: Partial<Record<CgroupController, string>> = {};
  const found: CgroupController[] = [];
  for (const controller of CGROUP_CONTROLLERS) {
    const mount = mounts.find(
      (candidate) => candidate.type === "cgroup" && candidate.superOptions.includes(controller),
    );
    const own = paths.get(controller);
    if (mount === undefined || own === undefined) continue;
    const folder = folderOf(mount, own);
    if (folder === undefined || !writable(join(folder, "cgroup.procs"))) continue;
    if (!probe(folder, host.pid, V1_LIMIT_FILES[controller])) continue;
    sweep(folder);
    folders[controller] = folder;
    found.push(controller);
  }
  if (found.length === 0) return none("no writable cgroup v1 hierarchy with pids, memory or cpu");
  return { version: "v1", folders, controllers: found, note: `cgroup v1 as root (${found.join(", ")})` };
}

/** The file that must appear in a new child for a v1 controller to limit anything. */
export const V1_LIMIT_FILES: Readonly<Record<CgroupController, string>> = {
  pids: "pids.max",
  memory: "memory.limit_in_bytes",
  cpu: "cpu.cfs_quota_us",
};

function none(note: string): CgroupSupport {
  return { version: "none", controllers: [], note };
}

/** The cgroup mounts of a mountinfo text, with their escaped characters (`\040`) decoded. */
export function parseCgroupMounts(mountInfo: string): CgroupMount[] {
  const mounts: CgroupMount[] = [];
  for (const line of mountInfo.split("\n")) {
    const separator = line.indexOf(" - ");
    if (separator < 0) continue;
    const before = line.slice(0, separator).split(" ");
    const after = line.slice(separator + 3).split(" ");
    const type = after[0];
    if (type !== "cgroup" && type !== "cgroup2") continue;
    const root = before[3];
    const mountPoint = before[4];
    if (root === undefined || mountPoint === undefined) continue;
    mounts.push({
      root: unescapeMountField(root),
      mountPoint: unescapeMountField(mountPoint),
      type,
      superOptions: (after[2] ?? "").split(","),
    });
  }
  return mounts;
}

/**
 * `/proc/self/cgroup` as controller → path: `""` for the v2 line (`0::/path`), each v1
 * controller of a line (`4:memory:/path`, `2:cpu,cpuacct:/path`) for itself.
 */
export function selfPaths(selfCgroup: string): Map<string, string> {
  const paths = new Map<string, string>();
  for (const line of selfCgroup.split("\n")) {
    const first = line.indexOf(":");
    const second = line.indexOf(":", first + 1);
    if (first < 0 || second < 0) continue;
    const path = line.slice(second + 1);
    const controllers = line.slice(first + 1, second);
    if (controllers === "") paths.set("", path);
    else for (const controller of controllers.split(",")) paths.set(controller, path);
  }
  return paths;
}

function folderOf(mount: CgroupMount, own: string): string | undefined {
  if (mount.root === "/") return join(mount.mountPoint, own);
  if (own === mount.root || own.startsWith(`${mount.root}/`))
    return join(mount.mountPoint, own.slice(mount.root.length));
  return undefined;
}

function unescapeMountField(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}

function readWords(path: string): string[] {
  try {
    return readFileSync(path, "utf8").split(/\s+/).filter(Boolean);
  } catch {
    return [];
  }
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** Makes and removes a child to see that the controller really limits here. */
function probe(folder: string, pid: number, limitFile: string): boolean {
  const child = join(folder, `${RUN_CGROUP_PREFIX}${pid}-probe`);
  try {
    mkdirSync(child);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") return false;
  }
  try {
    return existsSync(join(child, limitFile));
  } finally {
    try {
      rmdirSync(child);
    } catch {
      // a later sweep removes it
    }
  }
}

/**
 * Removes run cgroups left by skillgate processes that no longer exist. Only empty ones go:
 * `rmdir` refuses a cgroup with processes in it, which is what we want.
 */
function sweep(folder: string): void {
  let entries: string[];
  try {
    entries = readdirSync(folder);
  } catch {
    return;
  }
  for (const entry of entries) {
    if (!leftByEndedProcess(entry, RUN_CGROUP_PREFIX)) continue;
    try {
      rmdirSync(join(folder, entry));
    } catch {
      // not empty, or already gone
    }
  }
}
