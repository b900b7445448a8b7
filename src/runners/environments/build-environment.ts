import { chmodSync, chownSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { DeclaredPackages } from "../../skill/packages/declared.js";
import { normalisePackageName } from "../../skill/packages/requirements.js";
import type { RunResult } from "../contract.js";
import { findOnSearchPath } from "../interpreters/resolve-interpreter.js";
import { refusal } from "../refusal.js";
import { SANDBOX_GID, SANDBOX_UID } from "../sandbox/layout.js";
import { runInSandbox, type SandboxMount, type SandboxNetwork } from "../sandbox/run-in-sandbox.js";
import type { SandboxProxyLease, SandboxProxyProvider } from "../sandbox/sandbox-runner.js";
import {
  buildScript,
  ENVIRONMENT_MOUNTS,
  folderNames,
  lockForFolder,
  npmCommand,
  pipCommand,
  pipMissingPackage,
  wheellessInFolder,
} from "./build-script.js";
import { BUILD_LOG, type EnvironmentStore, type PackageEnvironment } from "./environment-store.js";
import type { PackageIndexes } from "./index-settings.js";

/** The longest a build may take by default, and the output of it kept in its log. */
export const DEFAULT_BUILD_LIMITS = { timeoutMs: 600_000, maxOutputBytes: 1024 * 1024 } as const;

/** One environment to build, from a skill's verified snapshot. */
export interface EnvironmentBuild {
  readonly skill: string;
  readonly hash: string;
  /** The verified snapshot: the declarations are read from it, never from the live folder. */
  readonly snapshotFolder: string;
  readonly declared: DeclaredPackages;
  readonly signal?: AbortSignal;
}

/** What a build needs of its host. */
export interface EnvironmentBuilderParts {
  readonly store: EnvironmentStore;
  readonly indexes: PackageIndexes;
  readonly proxy: SandboxProxyProvider;
  readonly limits?: { readonly timeoutMs: number; readonly maxOutputBytes: number };
}

/** A build's outcome: the environment, or a refusal (`package_without_wheel`, `environment_build_failed`, …). */
export type EnvironmentBuildOutcome =
  | { readonly ok: true; readonly environment: PackageEnvironment }
  | { readonly ok: false; readonly result: RunResult; readonly log?: string };

/**
 * Builds one skill hash's environment (docs/running-scripts.md, "Packages"): a temporary
 * folder in the environments folder; the build's inputs (the requirements, the package.json
 * and its lock, the build script) bound read-only at `/skill`; pip and npm run in the sandbox
 * as any script does, writing only the environment's own folders, reaching only the index's
 * hosts through the domain proxy, or nothing at all with a folder index (bound read-only).
 * Success seals the folder and renames it into place; failure keeps the log in `failed/`.
 */
export async function buildEnvironment(
  parts: EnvironmentBuilderParts,
  build: EnvironmentBuild,
): Promise<EnvironmentBuildOutcome> {
  const { store, indexes } = parts;
  const python = build.declared.python;
  const node = build.declared.node;
  if (python === undefined && node === undefined)
    return {
      ok: false,
      result: refusal(
        "environment_not_declared",
        `${build.skill} declares no packages; there is nothing to build.`,
      ),
    };
  if (python !== undefined && indexes.python.kind === "folder") {
    const names = python.requirements.map((item) =>
      normalisePackageName(/^[A-Za-z0-9._-]+/.exec(item)?.[0] ?? item),
    );
    const wheelless = wheellessInFolder(folderNames(indexes.python.folder), names);
    if (wheelless.length > 0)
      return { ok: false, result: noWheel(build.skill, wheelless.join(", "), indexes.python.folder) };
  }
  const pythonCommand = python !== undefined ? systemProgram("python3") : undefined;
  if (python !== undefined && pythonCommand === undefined)
    return {
      ok: false,
      result: refusal(
        "language_unavailable",
        `${build.skill} declares Python packages, but python3 is not installed under /usr on this host; tell the host's owner.`,
      ),
    };
  const npm = node !== undefined ? systemProgram("npm") : undefined;
  if (node !== undefined && npm === undefined)
    return {
      ok: false,
      result: refusal(
        "language_unavailable",
        `${build.skill} declares Node packages, but npm is not installed under /usr on this host; tell the host's owner.`,
      ),
    };

  const staging = store.staging(build.hash);
  const inputs = join(staging, "inputs");
  const commands: string[] = [];
  if (python !== undefined && pythonCommand !== undefined) {
    writeFileSync(join(inputs, "requirements.txt"), `${python.requirements.join("\n")}\n`);
    commands.push(pipCommand(pythonCommand, indexes.python));
  }
  if (node !== undefined && npm !== undefined) {
    const prepared = nodeInputs(build, node.folder, node.lock, join(inputs, "node"), indexes);
    if (prepared !== undefined) {
      store.discardFailed(staging, build.hash, prepared.message ?? "");
      return { ok: false, result: prepared };
    }
    commands.push(npmCommand(npm, indexes.node));
  }
  writeFileSync(join(inputs, "build.sh"), buildScript(commands));
  prepareOwnership(staging);

  let lease: SandboxProxyLease | undefined;
  const hosts = [
    ...(python !== undefined && indexes.python.kind === "url" ? indexes.python.hosts : []),
    ...(node !== undefined && indexes.node.kind === "url" ? indexes.node.hosts : []),
  ];
  try {
    if (hosts.length > 0) lease = await parts.proxy.open({ skill: build.skill, allowedDomains: hosts });
  } catch (error) {
    store.discardFailed(staging, build.hash, String(error));
    return {
      ok: false,
      result: refusal(
        "proxy_unavailable",
        `the package index could not be reached: the network proxy did not start (${error instanceof Error ? error.message : String(error)}); nothing was installed.`,
      ),
    };
  }
  const network: SandboxNetwork =
    lease === undefined
      ? { mode: "none" }
      : { mode: "proxy", socketPath: lease.socketPath, allowedDomains: hosts };
  const limits = parts.limits ?? DEFAULT_BUILD_LIMITS;
  const shell = systemProgram("sh") ?? systemProgram("bash");
  let result: RunResult;
  try {
    result = await runInSandbox({
      snapshotFolder: inputs,
      script: "build.sh",
      command: shell !== undefined ? [shell] : [],
      argumentsJson: "{}",
      limits: { ...limits, fileSizeBytes: 1024 * 1024 * 1024 },
      network,
      mounts: buildMounts(staging, indexes, python !== undefined, node !== undefined),
      skillName: build.skill,
      runsNode: node !== undefined,
      ...(build.signal !== undefined ? { signal: build.signal } : {}),
    });
  } finally {
    await lease?.release();
  }
  const log = [
    `skillgate environment build of ${build.skill} (${build.hash})`,
    `python: ${python?.requirements.join(", ") ?? "none"}`,
    `node: ${node?.dependencies.join(", ") ?? "none"}`,
    `status: ${result.status}, exit code ${result.exitCode ?? "none"}`,
    "--- stdout ---",
    result.stdout,
    "--- stderr ---",
    result.stderr,
    result.message ?? "",
  ].join("\n");
  if (result.status !== "ok" || result.exitCode !== 0) {
    const logPath = store.discardFailed(staging, build.hash, log);
    return { ok: false, result: failed(build.skill, result, log, logPath, indexes), log };
  }
  writeFileSync(join(staging, BUILD_LOG), log);
  const environment = store.commit(staging, build.hash, {
    python: python?.requirements ?? [],
    node: node?.dependencies ?? [],
  });
  return { ok: true, environment };
}

/** The package.json and its lock for `npm ci`, the lock pointed at the tarball folder when offline; a refusal when a tarball is missing. */
function nodeInputs(
  build: EnvironmentBuild,
  folder: string,
  lockName: string,
  target: string,
  indexes: PackageIndexes,
): RunResult | undefined {
  mkdirSync(target, { mode: 0o755 });
  const from = folder === "" ? build.snapshotFolder : join(build.snapshotFolder, folder);
  writeFileSync(join(target, "package.json"), readFileSync(join(from, "package.json")));
  const lockText = readFileSync(join(from, lockName), "utf8");
  if (indexes.node.kind === "url") {
    writeFileSync(join(target, "package-lock.json"), lockText);
    return undefined;
  }
  let rewritten: ReturnType<typeof lockForFolder>;
  try {
    rewritten = lockForFolder(lockText, folderNames(indexes.node.folder));
  } catch {
    return refusal(
      "invalid_package_json",
      `${build.skill}'s ${lockName} is not valid JSON; nothing was installed.`,
    );
  }
  if (!rewritten.ok)
    return refusal(
      "package_not_found",
      `${rewritten.missing}, which ${build.skill}'s lock names, has no tarball in the package folder ${indexes.node.folder}; nothing was installed.`,
    );
  writeFileSync(join(target, "package-lock.json"), rewritten.lock);
  return undefined;
}

/** The build's extra folders: its outputs writable, the folder indexes read-only. */
function buildMounts(
  staging: string,
  indexes: PackageIndexes,
  python: boolean,
  node: boolean,
): SandboxMount[] {
  const mounts: SandboxMount[] = [
    { source: join(staging, "tmp"), target: ENVIRONMENT_MOUNTS.tmp, writable: true },
  ];
  if (python)
    mounts.push({ source: join(staging, "python"), target: ENVIRONMENT_MOUNTS.python, writable: true });
  if (node) mounts.push({ source: join(staging, "node"), target: ENVIRONMENT_MOUNTS.node, writable: true });
  if (python && indexes.python.kind === "folder")
    mounts.push({ source: indexes.python.folder, target: ENVIRONMENT_MOUNTS.pythonIndex, writable: false });
  if (node && indexes.node.kind === "folder")
    mounts.push({ source: indexes.node.folder, target: ENVIRONMENT_MOUNTS.nodeIndex, writable: false });
  return mounts;
}

/**
 * The inputs become read-only (0444 files, 0555 folders); the outputs are the sandbox user's
 * to write when skillgate runs as root (bubblewrap then runs as that user).
 */
function prepareOwnership(staging: string): void {
  const inputs = join(staging, "inputs");
  for (const file of ["build.sh", "requirements.txt", "node/package.json", "node/package-lock.json"])
    try {
      chmodSync(join(inputs, file), 0o444);
    } catch {
      // not written for this build
    }
  try {
    chmodSync(join(inputs, "node"), 0o555);
  } catch {
    // no Node packages
  }
  chmodSync(inputs, 0o555);
  if (process.getuid?.() !== 0) return;
  for (const part of ["python", "node", "tmp"]) chownSync(join(staging, part), SANDBOX_UID, SANDBOX_GID);
}

function noWheel(skill: string, packages: string, where: string, certain = true): RunResult {
  const found = certain
    ? "has only a source archive, no wheel,"
    : "has no wheel for this Python (or is not there at all)";
  return refusal(
    "package_without_wheel",
    `${packages}, which ${skill} needs, ${found} on ${where}: skillgate installs wheels only, so that no package's build script runs; nothing was installed. Ask the skill's author for a package with wheels, or the host's owner to add a wheel to the index.`,
  );
}

function failed(
  skill: string,
  result: RunResult,
  log: string,
  logPath: string,
  indexes: PackageIndexes,
): RunResult {
  if (result.status === "refused") return result;
  const missing = pipMissingPackage(log);
  if (missing !== undefined)
    return noWheel(
      skill,
      missing,
      indexes.python.kind === "url" ? indexes.python.url : indexes.python.folder,
      false,
    );
  const tail = `${result.stderr}\n${result.stdout}`.trim().split("\n").slice(-3).join(" | ").slice(0, 400);
  const how =
    result.status === "timed_out" ? "took too long" : `failed (exit code ${result.exitCode ?? "none"})`;
  return refusal(
    "environment_build_failed",
    `the package environment of ${skill} ${how}, so nothing was installed and the script did not run. Its log is ${logPath}. Last lines: ${tail}`,
  );
}

/**
 * A program of the system under `/usr` (which every sandbox sees), or undefined. Builds use the
 * system's python3 and npm, not the interpreter a run resolves: docs/running-scripts.md,
 * "Packages", says so.
 */
function systemProgram(program: string): string | undefined {
  const found = findOnSearchPath(program, "/usr/local/bin:/usr/bin:/bin");
  if (found === undefined) return undefined;
  try {
    return realpathSync(found).startsWith("/usr/") ? found : undefined;
  } catch {
    return undefined;
  }
}
