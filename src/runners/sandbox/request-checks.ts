import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { extname, isAbsolute, join, normalize, posix } from "node:path";
import { leftByEndedProcess } from "../../core/process-groups.js";
import { removeTree } from "../../core/remove-tree.js";
import { parseRelativePath } from "../../core/safe-paths.js";
import type { RunResult } from "../contract.js";
import { type InterpreterMount, inside } from "../interpreters/prefix-mounts.js";
import { type BwrapFeatures, bwrapFeatures, type SandboxTools } from "./host-tools.js";
import { portalTargets } from "./launcher.js";
import { SKILL_MOUNT } from "./layout.js";
import * as messages from "./messages.js";
import { type HostIdentity, reach } from "./reachability.js";
import type { SandboxMount, SandboxRunRequest } from "./run-in-sandbox.js";

/**
 * The checks a run passes before anything is spawned: the host's programs, the script's
 * path and kind, the interpreter, and whether the sandbox user can reach the snapshot and the
 * proxy socket and the workspace (directly, or through the root-only portal).
 */

/** True when skillgate runs as root (and so drops to 65534 and may use the portal). */
export function runsAsRoot(): boolean {
  return process.getuid?.() === 0;
}

/** What the sandbox needs from the host, found; or the refusal that says what is missing. */
export type HostReady =
  | { ok: true; bwrap: string; features: BwrapFeatures; prlimit: string; shell: string }
  | { ok: false; refusal: RunResult };

/**
 * Whether this host has what a sandboxed run needs: bubblewrap with the options used,
 * prlimit and a shell under /usr, setpriv when running as root, socat for a proxy. A
 * refusal names the missing program and how the host's owner installs it.
 */
export function sandboxPrerequisites(tools: SandboxTools, script: string, proxy: boolean): HostReady {
  if (tools.bwrap === undefined) return { ok: false, refusal: messages.bubblewrapMissing(script) };
  const features = bwrapFeatures(tools.bwrap);
  if (features === undefined) return { ok: false, refusal: messages.bubblewrapMissing(script) };
  if (features.missing.length > 0)
    return { ok: false, refusal: messages.bubblewrapTooOld(script, features.version, features.missing) };
  if (tools.prlimit === undefined) return { ok: false, refusal: messages.toolMissing(script, "prlimit") };
  if (tools.shell === undefined) return { ok: false, refusal: messages.toolMissing(script, "sh") };
  if (runsAsRoot() && tools.setpriv === undefined)
    return { ok: false, refusal: messages.toolMissing(script, "setpriv") };
  if (proxy && tools.socat === undefined)
    return { ok: false, refusal: messages.proxyUnavailable(script, "socat is not installed") };
  return { ok: true, bwrap: tools.bwrap, features, prlimit: tools.prlimit, shell: tools.shell };
}

/** The script's path inside the sandbox, or the refusal: a sandboxable kind, a safe relative path ({@link parseRelativePath}). */
export function checkScriptPath(script: string): string | RunResult {
  if (!(messages.SANDBOXABLE_EXTENSIONS as readonly string[]).includes(extname(script).toLowerCase()))
    return messages.notSandboxable(script);
  const checked = parseRelativePath(script);
  if (!checked.ok) return messages.invalidScript(script);
  return posix.join(SKILL_MOUNT, checked.value.path);
}

/**
 * The interpreter must be an absolute path the sandbox shows: under `/usr`, or inside one of
 * the interpreter's mounts (its path inside a target, its real file inside a source).
 */
export function checkCommand(
  command: readonly string[],
  script: string,
  mounts: readonly InterpreterMount[] = [],
): RunResult | undefined {
  const program = command[0];
  if (program === undefined || !isAbsolute(program)) return messages.invalidCommand(script, program ?? "");
  let real: string;
  try {
    real = realpathSync(program);
  } catch {
    return messages.invalidCommand(script, program);
  }
  if (real.startsWith("/usr/")) return undefined;
  const shown =
    mounts.some((mount) => inside(real, mount.source)) &&
    (program.startsWith("/usr/") || mounts.some((mount) => inside(program, mount.target)));
  return shown ? undefined : messages.invalidCommand(script, program);
}

/**
 * Every interpreter mount must be a real, absolute folder the sandbox user can list by name:
 * bubblewrap binds as that user, so a prefix inside a folder closed to it (a version manager
 * under root's 0700 home) would fail inside bubblewrap with a bare "Permission denied". It is
 * refused here instead, saying which folder and what the owner can do.
 */
export function checkInterpreterMounts(
  mounts: readonly InterpreterMount[],
  identity: HostIdentity,
  program: string,
  script: string,
): RunResult | undefined {
  for (const mount of mounts) {
    if (!isAbsolute(mount.source) || !isAbsolute(mount.target) || shadowsTheSandbox(mount.target))
      return messages.invalidCommand(script, program);
    const answer = reach(mount.source, identity, "list");
    if (answer === "ok") continue;
    return messages.interpreterUnreachable(
      script,
      program,
      answer === "folder_closed"
        ? `its folder ${mount.source} is inside a folder the sandbox user (uid ${identity.uid}) cannot enter`
        : answer === "missing"
          ? `its folder ${mount.source} does not exist`
          : `its folder ${mount.source} is not readable by the sandbox user (uid ${identity.uid})`,
    );
  }
  return undefined;
}

/**
 * The interpreter's folders split by how they reach the sandbox: those the sandbox user can
 * open by name are bound directly; as root, one behind a closed folder (a version manager
 * under root's own `0700` home, say) becomes a read-only extra mount, which goes through the
 * root-only portal like a closed snapshot or workspace. Only that folder is shown, read-only,
 * never what is beside it. A folder under the sandbox's own places (`/tmp`) is not moved: extra
 * mounts may not go there, so it is refused as unreachable. As any other user nothing moves: a closed folder is refused by
 * {@link checkInterpreterMounts}.
 */
export function interpreterMountsByReach(
  mounts: readonly InterpreterMount[],
  identity: HostIdentity,
): { direct: InterpreterMount[]; portal: SandboxMount[] } {
  const direct: InterpreterMount[] = [];
  const portal: SandboxMount[] = [];
  for (const mount of mounts) {
    if (interpreterMountViaPortal(mount, identity))
      portal.push({ source: mount.source, target: mount.target, writable: false });
    else direct.push(mount);
  }
  return { direct, portal };
}

/** Whether {@link interpreterMountsByReach} sends this interpreter folder through the portal. */
export function interpreterMountViaPortal(mount: InterpreterMount, identity: HostIdentity): boolean {
  return (
    runsAsRoot() &&
    isAbsolute(mount.source) &&
    isAbsolute(mount.target) &&
    !shadowsTheSandbox(mount.target) &&
    !RESERVED_TARGETS.some((taken) => mount.target.startsWith(`${taken}/`)) &&
    reach(mount.source, identity, "list") === "folder_closed"
  );
}

/** Mount points of the sandbox's own that an interpreter mount may not cover or replace. */
const SANDBOX_OWN = [
  "/usr",
  "/proc",
  "/dev",
  "/sys",
  "/etc",
  SKILL_MOUNT,
  "/proxy.sock",
  "/bin",
  "/lib",
  "/lib64",
];

/** Whether a bind at `target` would hide or replace part of the sandbox itself (or be all of `/tmp`). */
function shadowsTheSandbox(target: string): boolean {
  const path = posix.normalize(target);
  if (path === "/" || path === "/tmp" || path.split("/").includes("..")) return true;
  return SANDBOX_OWN.some((own) => inside(path, own) || inside(own, path));
}

/** A bind source: its resolved path, and whether it needs the portal. */
export interface Source {
  readonly path: string;
  readonly portal: boolean;
}

/** An extra folder of the run, resolved: where it is bound inside and whether it may be written. */
export interface MountSource extends Source {
  readonly target: string;
  readonly writable: boolean;
}

/** The run's sources: the snapshot, the proxy socket and the extra folders, each direct or through the portal. */
export type ResolvedSources =
  | { ok: true; skill: Source; socket?: Source; workspace?: Source; mounts: readonly MountSource[] }
  | { ok: false; refusal: RunResult };

/**
 * Resolves each extra folder of the run: it must exist and be a folder the sandbox user can
 * list (directly or, as root, through the portal); its target must be an absolute path
 * outside the places the sandbox already uses (`/usr`, `/proc`, `/dev`, `/tmp`, `/skill`).
 */
export function resolveMounts(
  request: SandboxRunRequest,
  identity: HostIdentity,
  script: string,
): readonly MountSource[] | RunResult {
  const mounts: MountSource[] = [];
  for (const mount of request.mounts ?? []) {
    const target = posix.normalize(mount.target);
    if (
      !isAbsolute(target) ||
      target === "/" ||
      RESERVED_TARGETS.some((taken) => target === taken || target.startsWith(`${taken}/`))
    )
      return messages.sandboxFailed(script, `an extra folder may not be bound at ${mount.target}`);
    let folder: string;
    try {
      folder = realpathSync(mount.source);
    } catch {
      return messages.sandboxFailed(script, `its folder ${mount.source} does not exist`);
    }
    if (lstatSync(folder).isDirectory() !== true)
      return messages.sandboxFailed(script, `${mount.source} is not a folder`);
    const source = sourceFor(folder, identity, "list");
    if (source === "denied" || source === "closed")
      return messages.sandboxFailed(script, `the sandbox user cannot reach ${mount.source}`);
    mounts.push({ ...source, target, writable: mount.writable });
  }
  return mounts;
}

const RESERVED_TARGETS = [
  "/usr",
  "/proc",
  "/dev",
  "/tmp",
  SKILL_MOUNT,
  "/etc",
  "/bin",
  "/sbin",
  "/lib",
  "/lib64",
] as const;

export function resolveSources(
  request: SandboxRunRequest,
  identity: HostIdentity,
  script: string,
): ResolvedSources {
  const mounts = resolveMounts(request, identity, script);
  if (!Array.isArray(mounts)) return { ok: false, refusal: mounts as RunResult };
  const found = resolveSkillAndSocket(request, identity, script);
  return found.ok ? { ...found, mounts } : found;
}

function resolveSkillAndSocket(
  request: SandboxRunRequest,
  identity: HostIdentity,
  script: string,
): { ok: true; skill: Source; socket?: Source; workspace?: Source } | { ok: false; refusal: RunResult } {
  let folder: string;
  try {
    folder = realpathSync(request.snapshotFolder);
  } catch {
    return { ok: false, refusal: messages.snapshotUnreachable(script, "the snapshot folder does not exist") };
  }
  const scriptFile = join(folder, normalize(script));
  if (lstatSync(scriptFile, { throwIfNoEntry: false })?.isFile() !== true)
    return { ok: false, refusal: messages.invalidScript(script) };
  const skill = sourceFor(folder, identity, "list");
  if (skill === "denied" || reach(scriptFile, identity, "read") === "denied")
    return {
      ok: false,
      refusal: messages.snapshotUnreachable(
        script,
        "its files are not readable by others (they must be 0444, folders 0555)",
      ),
    };
  if (skill === "closed")
    return {
      ok: false,
      refusal: messages.snapshotUnreachable(script, `${folder} is in a folder closed to it`),
    };
  let workspace: Source | undefined;
  if (request.workspace !== undefined) {
    const found = sourceFor(request.workspace.source, identity, "list");
    if (typeof found === "string")
      return { ok: false, refusal: messages.workspaceUnreachable(script, request.workspace.path) };
    workspace = found;
  }
  const withWorkspace = workspace !== undefined ? { workspace } : {};
  if (request.network.mode !== "proxy") return { ok: true, skill, ...withWorkspace };
  const socketPath = request.network.socketPath;
  let resolved: string;
  try {
    resolved = realpathSync(socketPath);
  } catch {
    return { ok: false, refusal: messages.proxyUnavailable(script, "its socket does not exist") };
  }
  if (lstatSync(resolved, { throwIfNoEntry: false })?.isSocket() !== true)
    return { ok: false, refusal: messages.proxyUnavailable(script, "its socket path is not a socket") };
  const socket = sourceFor(resolved, identity, "connect");
  if (socket === "denied")
    return {
      ok: false,
      refusal: messages.proxyUnavailable(script, "its socket is not writable by the sandbox user"),
    };
  if (socket === "closed")
    return {
      ok: false,
      refusal: messages.proxyUnavailable(script, "its socket is in a folder closed to the sandbox user"),
    };
  return { ok: true, skill, socket, ...withWorkspace };
}

/**
 * A source the sandbox user can open by name is bound directly; one behind a closed folder
 * goes through the portal when skillgate runs as root (only root can make it), and is
 * refused otherwise; one whose own mode refuses the sandbox user is refused.
 */
function sourceFor(
  path: string,
  identity: HostIdentity,
  access: "list" | "connect",
): Source | "denied" | "closed" {
  const answer = reach(path, identity, access);
  if (answer === "ok") return { path, portal: false };
  if (answer === "denied" || answer === "missing") return "denied";
  return runsAsRoot() ? { path, portal: true } : "closed";
}

/** Prefix of the portal folders under the system's temporary folder; the owner's pid follows. */
export const PORTAL_FOLDER_PREFIX = "skillgate-portal-";

let swept = false;

/**
 * A fresh 0755 folder under the system's temporary folder with the portal's bind targets (an
 * empty `skill` folder and `proxy.sock` file), if the sandbox user can reach it. Named
 * `skillgate-portal-<pid>-…`: the first call in a process removes this user's portal folders
 * of processes that no longer exist (one kept ahead by a skillgate killed outright). They
 * are always empty on the host: the binds live only in a run's private mount namespace.
 */
export function portalFolder(identity: HostIdentity): string | undefined {
  if (!swept) {
    swept = true;
    sweepPortalFolders();
  }
  const folder = mkdtempSync(join(tmpdir(), `${PORTAL_FOLDER_PREFIX}${process.pid}-`));
  chmodSync(folder, 0o755);
  if (reach(folder, identity, "list") !== "ok") {
    removeTree(folder);
    return undefined;
  }
  const targets = portalTargets(folder);
  mkdirSync(targets.skill, { mode: 0o755 });
  mkdirSync(targets.workspace, { mode: 0o755 });
  writeFileSync(targets.socket, "", { mode: 0o644 });
  return folder;
}

/** Removes this user's portal folders whose owner process is gone. */
export function sweepPortalFolders(): void {
  let entries: string[];
  try {
    entries = readdirSync(tmpdir());
  } catch {
    return;
  }
  for (const entry of entries) {
    if (!leftByEndedProcess(entry, PORTAL_FOLDER_PREFIX)) continue;
    const folder = join(tmpdir(), entry);
    try {
      const stats = lstatSync(folder);
      if (stats.isDirectory() && stats.uid === process.getuid?.()) removeTree(folder);
    } catch {
      // gone, or not removable: left alone
    }
  }
}
