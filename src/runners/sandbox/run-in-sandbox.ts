import { mkdirSync } from "node:fs";
import { basename, dirname, isAbsolute } from "node:path";
import { performance } from "node:perf_hooks";
import type { RunResult } from "../contract.js";
import type { RunCgroupReport } from "../enforced-limits.js";
import { MAX_ARGUMENTS_JSON_BYTES } from "../local-runner.js";
import { interrupted } from "../process-group.js";
import { checkRunArgv } from "../script-argv.js";
import { type BwrapRun, bwrapRunArguments, encodeArguments, runCommand } from "./bwrap-arguments.js";
import { type CgroupSupport, hostCgroupSupport } from "./cgroup-detect.js";
import { type BwrapFeatures, chainDeathSignal, sandboxTools, shellIsDash } from "./host-tools.js";
import { launchShape } from "./launch-shape.js";
import { portalMountTarget, portalSources, portalTargets } from "./launcher.js";
import {
  PROXY_BRIDGE_PORT,
  resolvesThroughAlternatives,
  SANDBOX_GID,
  SANDBOX_UID,
  SKILL_MOUNT,
} from "./layout.js";
import { nodeHeapOption, sandboxEnforcedLimits, sandboxResources } from "./limits.js";
import * as messages from "./messages.js";
import {
  type LaunchShape,
  PORTAL_UNREACHABLE,
  type PreparedLaunch,
  prepareLaunch,
} from "./prepared-launch.js";
import type { HostIdentity } from "./reachability.js";
import {
  checkCommand,
  checkInterpreterMounts,
  checkScriptPath,
  interpreterMountsByReach,
  resolveSources,
  runsAsRoot,
  sandboxPrerequisites,
} from "./request-checks.js";
import type { SandboxPool } from "./sandbox-pool.js";
import { runSandboxProcess, type SandboxProcessOutcome, type SandboxStatus } from "./sandbox-process.js";
import type { SandboxRunDetails, SandboxRunRequest, SandboxRunResult } from "./sandbox-request.js";

export type {
  SandboxCgroupMode,
  SandboxMount,
  SandboxNetwork,
  SandboxRunDetails,
  SandboxRunRequest,
  SandboxRunResult,
} from "./sandbox-request.js";

/**
 * Runs one script in a bubblewrap sandbox (see docs/running-scripts.md, "Sandbox"): new
 * user, PID, IPC, UTS, cgroup and network namespaces with no nested user namespaces; the
 * seccomp filter of seccomp.ts; no capabilities and no new privileges; uid and gid 65534
 * (host root dropped first); `/usr`, the loader's links and a few `/etc` files read-only;
 * the snapshot read-only at `/skill`; a size-capped private `/tmp` as the only writable
 * place; rlimits inside the sandbox, cgroups where the host allows; no network, or only the
 * proxy bridged in. The timeout and the abort signal kill the whole sandbox. Never throws:
 * anything that stops the script from starting is a `refused` result with a `HOST:` message.
 */
export async function runInSandbox(request: SandboxRunRequest): Promise<SandboxRunResult> {
  const startedAt = performance.now();
  const script = request.script;
  if (request.signal?.aborted) return interrupted(startedAt);
  const scriptInside = checkScriptPath(script);
  if (typeof scriptInside !== "string") return scriptInside;
  if (Buffer.byteLength(request.argumentsJson, "utf8") > MAX_ARGUMENTS_JSON_BYTES)
    return messages.argumentsTooLarge(MAX_ARGUMENTS_JSON_BYTES);
  const badArgv = checkRunArgv(request.argv, script);
  if (badArgv !== undefined) return badArgv;
  const tools = sandboxTools();
  const ready = sandboxPrerequisites(tools, script, request.network.mode === "proxy");
  if (!ready.ok) return ready.refusal;
  const commandProblem = checkCommand(request.command, script, request.interpreterMounts ?? []);
  if (commandProblem !== undefined) return commandProblem;

  // Text with a NUL cannot be an argument or environment variable (and must never reach --args).
  if (request.argumentsJson.includes("\0") || request.skillName?.includes("\0"))
    return messages.sandboxFailed(script, "the arguments or the skill's name hold a NUL byte");

  const identity: HostIdentity = runsAsRoot()
    ? { uid: SANDBOX_UID, gid: SANDBOX_GID }
    : { uid: process.getuid?.() ?? SANDBOX_UID, gid: process.getgid?.() ?? SANDBOX_GID };
  const { direct: interpreterMounts, portal: portalInterpreter } = interpreterMountsByReach(
    request.interpreterMounts ?? [],
    identity,
  );
  const sources = resolveSources(
    portalInterpreter.length === 0
      ? request
      : { ...request, mounts: [...(request.mounts ?? []), ...portalInterpreter] },
    identity,
    script,
  );
  if (!sources.ok) return sources.refusal;
  const mountProblem = checkInterpreterMounts(interpreterMounts, identity, request.command[0] ?? "", script);
  if (mountProblem !== undefined) return mountProblem;
  const workspace = request.workspace;

  const pool = request.pool;
  let launch: PreparedLaunch | undefined;
  let reusable: LaunchShape | undefined;
  try {
    const throughPortal =
      sources.skill.portal ||
      sources.socket?.portal === true ||
      sources.workspace?.portal === true ||
      sources.mounts.some((mount) => mount.portal);
    const resources = sandboxResources(request.limits);
    // Joining cgroups while the sandbox starts needs bubblewrap to hold it (--block-fd).
    const support: CgroupSupport =
      request.cgroups === "off"
        ? { version: "none", controllers: [], note: "turned off" }
        : !ready.features.blockFd || !ready.features.jsonStatus
          ? { version: "none", controllers: [], note: BWRAP_CANNOT_HOLD }
          : (request.cgroupSupport ?? hostCgroupSupport());
    if (request.cgroups === "required" && support.version === "none")
      return messages.cgroupUnavailable(script, support.note);
    const interpreter =
      request.runsNode === true || basename(request.command[0] ?? "").startsWith("node") ? "node" : "other";
    const env = sandboxEnvironment(request, interpreter, resources);
    // Without --clearenv the environment is the spawn's own, so no launch can be made ahead;
    // nor without a death signal: a launch kept ahead must die with this process.
    const clearEnv = ready.features.clearEnv;
    const deathSignal = tools.setpriv !== undefined && chainDeathSignal(tools.setpriv, ready.bwrap);
    const shape = launchShape({
      bwrap: ready.bwrap,
      features: ready.features,
      tools,
      shell: ready.shell,
      dropRoot: runsAsRoot(),
      deathSignal: deathSignal && (runsAsRoot() || pool !== undefined),
      ...(throughPortal ? { portal: { identity } } : {}),
      resources,
      cgroups: support,
      env: clearEnv ? {} : env,
    });
    if (clearEnv && deathSignal) reusable = shape;
    const run: BwrapRun = {
      ...(clearEnv ? { env } : {}),
      skillSource: sources.skill.path,
      ...(sources.socket !== undefined ? { proxySocketSource: sources.socket.path } : {}),
      mounts: sources.mounts.map((mount) => ({
        source: mount.path,
        target: mount.target,
        writable: mount.writable,
      })),
      alternatives: request.command.some((part) => isAbsolute(part) && resolvesThroughAlternatives(part)),
      interpreterMounts,
      resources,
      prlimit: ready.prlimit,
      shell: ready.shell,
      ...(tools.socat !== undefined ? { socat: tools.socat } : {}),
      command: request.command,
      scriptInside,
      ...(request.argv !== undefined ? { argv: request.argv } : {}),
      interpreter,
      ...(workspace !== undefined
        ? {
            workspace: {
              source: workspace.source,
              path: workspace.path,
              writable: workspace.access === "write",
              readOnlyFiles: workspace.readOnlyFiles,
            },
          }
        : {}),
    };
    const prestarted =
      reusable !== undefined && pool !== undefined ? await takeReady(pool, reusable.key) : undefined;
    if (prestarted === undefined) {
      const fresh = prepareLaunch(shape, { command: runCommand(run) });
      if ("error" in fresh)
        return fresh.error === PORTAL_UNREACHABLE
          ? messages.snapshotUnreachable(script, PORTAL_UNREACHABLE)
          : messages.sandboxFailed(script, `the launcher did not start: ${fresh.error}`);
      launch = fresh;
    } else launch = prestarted;
    const current = launch;
    // Through the portal, bubblewrap binds the portal's targets, where the sources are bound first.
    const folder = current.portalFolder;
    const targets = folder !== undefined ? portalTargets(folder) : undefined;
    const portalMounts = sources.mounts.filter((mount) => mount.portal);
    if (folder !== undefined)
      for (const index of portalMounts.keys()) mkdirSync(portalMountTarget(folder, index), { mode: 0o755 });
    let portalIndex = 0;
    const bound: BwrapRun = {
      ...run,
      mounts: sources.mounts.map((mount) => ({
        source: mount.portal && folder !== undefined ? portalMountTarget(folder, portalIndex++) : mount.path,
        target: mount.target,
        writable: mount.writable,
      })),
      ...(targets !== undefined && sources.skill.portal ? { skillSource: targets.skill } : {}),
      ...(targets !== undefined && sources.socket?.portal === true
        ? { proxySocketSource: targets.socket }
        : {}),
      ...(targets !== undefined && sources.workspace?.portal === true && run.workspace !== undefined
        ? { workspace: { ...run.workspace, source: targets.workspace } }
        : {}),
    };
    const cgroupReport = cgroupReportOf(support, current);
    if (request.cgroups === "required" && cgroupReport.version === "none")
      return messages.cgroupUnavailable(script, cgroupReport.reason ?? "none was made");
    // A launch made for this run is moved into its cgroups while it starts, and held until it is inside.
    const held = current.chain.block !== undefined;
    // A launcher that is dash sets the limits itself: one exec (prlimit) fewer.
    const data = encodeArguments(
      bwrapRunArguments(
        { ...bound, block: held, shellLimits: shellIsDash(ready.shell) },
        prestarted !== undefined,
      ),
    );
    const outcome = await runSandboxProcess({
      chain: current.chain,
      arguments: data,
      ...(targets !== undefined
        ? {
            portal: portalSources(
              sources.skill.portal ? sources.skill.path : undefined,
              sources.socket?.portal === true ? sources.socket.path : undefined,
              sources.workspace?.portal === true ? sources.workspace.path : undefined,
              portalMounts.map((mount) => mount.path),
            ),
          }
        : {}),
      input: request.argumentsJson,
      timeoutMs: request.limits.timeoutMs,
      maxOutputBytes: request.limits.maxOutputBytes,
      ...(request.signal !== undefined ? { signal: request.signal } : {}),
      ...(request.onOutput !== undefined ? { onOutput: request.onOutput } : {}),
      ...(held ? { beforeRelease: releaseWhenInside(current) } : {}),
    });
    const details: SandboxRunDetails = {
      runId: current.runId,
      ...(outcome.status.pidNamespace !== undefined ? { pidNamespace: outcome.status.pidNamespace } : {}),
      cgroup: current.cgroup?.version ?? "none",
      portal: folder !== undefined,
      prestarted: prestarted !== undefined,
    };
    const result = toResult(outcome, ready.features, script, startedAt);
    if (result.status === "refused") return { ...result, sandbox: details };
    return {
      ...result,
      limits: sandboxEnforcedLimits(resources, request.limits, cgroupReport),
      sandbox: details,
    };
  } catch (error) {
    // A host failure before the run (a temporary folder that cannot be made): nothing ran.
    return messages.sandboxFailed(script, (error as NodeJS.ErrnoException).code ?? String(error));
  } finally {
    if (launch !== undefined) {
      // A pool cleans up after the answer (close() waits for it); a closed one keeps nothing.
      if (pool !== undefined && !pool.closed) pool.retire(launch);
      else await launch.dispose();
    }
    if (pool !== undefined && reusable !== undefined) pool.refill(reusable);
  }
}

/** Why a run has no cgroups when bubblewrap cannot hold its first process while it joins them. */
const BWRAP_CANNOT_HOLD = "this bubblewrap lacks --block-fd or --json-status-fd, which joining cgroups needs";

/** The run's cgroup as the result and the audit report it: which, or why none. */
function cgroupReportOf(support: CgroupSupport, launch: PreparedLaunch): RunCgroupReport {
  if (launch.cgroup !== undefined)
    return { version: launch.cgroup.version, controllers: launch.cgroup.controllers };
  if (launch.cgroupProblem !== undefined)
    return { version: "none", controllers: [], reason: launch.cgroupProblem, failed: true };
  return { version: "none", controllers: [], reason: support.note };
}

/** The pool's launch of this shape, once it is in its cgroups; `undefined` when none is ready or usable. */
async function takeReady(pool: SandboxPool, key: string): Promise<PreparedLaunch | undefined> {
  const launch = pool.take(key);
  if (launch === undefined) return undefined;
  if ((await launch.joined) && launch.chain.alive()) return launch;
  pool.retire(launch);
  return undefined;
}

/**
 * For a launch moved into its cgroups as it starts: bubblewrap was moved as soon as it was
 * spawned (the kernel holds any fork that races the move until it is done, so the sandbox's
 * first process is created inside), and once bubblewrap reports that first process, still
 * held by --block-fd, it is checked and, if it got out first, moved too before it may go on.
 */
function releaseWhenInside(launch: PreparedLaunch): (status: SandboxStatus) => Promise<boolean> {
  return async (status) => {
    const cgroup = launch.cgroup;
    const first = status.childPid;
    if (cgroup === undefined || first === undefined) return false;
    await launch.joined;
    if (!cgroup.holds(first)) await cgroup.join(first).catch(() => undefined);
    return cgroup.holds(first);
  };
}

/** The script's whole environment: nothing of skillgate's own process reaches it. */
function sandboxEnvironment(
  request: SandboxRunRequest,
  interpreter: "node" | "other",
  resources: ReturnType<typeof sandboxResources>,
): Record<string, string> {
  // A venv's or version manager's bin folder first, so a script's own `python3` or `node` is the same one.
  const program = request.command[0] ?? "";
  const programFolder = dirname(program);
  const systemPath = "/usr/local/bin:/usr/bin:/bin";
  const env: Record<string, string> = {
    ...request.extraEnvironment,
    PATH:
      isAbsolute(program) && !programFolder.startsWith("/usr/") && programFolder !== "/bin"
        ? `${programFolder}:${systemPath}`
        : systemPath,
    HOME: "/tmp",
    TMPDIR: "/tmp",
    LANG: "C.UTF-8",
    PYTHONDONTWRITEBYTECODE: "1",
    SKILLGATE_SKILL_ARGS: request.argumentsJson,
    SKILLGATE_SKILL_DIR: SKILL_MOUNT,
  };
  if (request.skillName !== undefined) env.SKILLGATE_SKILL_NAME = request.skillName;
  if (interpreter === "node") env.NODE_OPTIONS = nodeHeapOption(resources);
  if (request.network.mode === "proxy") {
    const proxy = `http://127.0.0.1:${PROXY_BRIDGE_PORT}`;
    for (const name of ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"]) env[name] = proxy;
    env.NO_PROXY = "";
    env.no_proxy = "";
  }
  return env;
}

function toResult(
  outcome: SandboxProcessOutcome,
  features: BwrapFeatures,
  script: string,
  started: number,
): RunResult {
  if (outcome.ending === "spawn_failed")
    return messages.sandboxFailed(script, `the launcher did not start: ${outcome.spawnError ?? "unknown"}`);
  const base = {
    exitCode: outcome.exitCode,
    stdout: outcome.stdout,
    stderr: outcome.stderr,
    stdoutTruncated: outcome.stdoutTruncated,
    stderrTruncated: outcome.stderrTruncated,
    durationMs: performance.now() - started,
  };
  if (outcome.ending === "setup_failed")
    return messages.sandboxFailed(script, "its first process could not be put in the run's cgroups");
  if (outcome.ending === "timed_out") return { status: "timed_out", ...base };
  if (outcome.ending === "interrupted") return { status: "interrupted", ...base };
  const sandboxStarted = features.jsonStatus
    ? outcome.status.childPid !== undefined
    : !/^bwrap: /m.test(outcome.stderr);
  if (!sandboxStarted) return messages.sandboxFailed(script, firstLine(outcome.stderr));
  if (outcome.exitCode === 125 && outcome.stderr.includes("HOST: the sandbox's launch arguments"))
    return messages.sandboxFailed(script, "its launch arguments did not arrive whole");
  if (outcome.exitCode === 125 && outcome.stderr.includes("HOST: the sandbox's network bridge"))
    return messages.proxyUnavailable(script, "the bridge to it did not start in the sandbox");
  return { status: outcome.exitCode === 0 ? "ok" : "failed", ...base };
}

function firstLine(text: string): string {
  return (text.split("\n").find((line) => line.trim() !== "") ?? "").slice(0, 300);
}
