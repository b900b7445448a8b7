import { readdirSync } from "node:fs";
import { normalisePackageName } from "../../skill/packages/requirements.js";
import type { PackageSource } from "./index-settings.js";

/** Where a build and a run see an environment's parts inside the sandbox. */
export const ENVIRONMENT_MOUNTS = {
  /** pip's `--target`; `PYTHONPATH` of a run. */
  python: "/packages/python",
  /** The npm project folder of a build (`npm ci` runs there). */
  node: "/packages/node",
  /** The build's temporary folder (pip unpacks, npm caches there), on disk rather than the capped `/tmp`. */
  tmp: "/packages/tmp",
  /** A folder index of Python wheels, read-only. */
  pythonIndex: "/packages/index/python",
  /** A folder of npm tarballs, read-only. */
  nodeIndex: "/packages/index/node",
  /**
   * A run's `node_modules`: at the root, so that Node finds packages from a script under
   * `/skill` by its own lookup (which walks up to `/node_modules`, for `import` and `require`).
   */
  nodeModules: "/node_modules",
} as const;

/** Quotes one word for a POSIX shell. */
export function shellQuote(word: string): string {
  return `'${word.replaceAll("'", "'\\''")}'`;
}

/**
 * The pip command of a build: wheels only (`--only-binary=:all:`, so no sdist's build script
 * ever runs), into the environment's folder, from the index URL or, offline, from the wheel
 * folder alone (`--no-index --find-links`). No cache, no prompt, no version check.
 */
export function pipCommand(python: string, source: PackageSource): string {
  const where =
    source.kind === "url"
      ? ["--index-url", shellQuote(source.url)]
      : ["--no-index", "--find-links", ENVIRONMENT_MOUNTS.pythonIndex];
  return [
    shellQuote(python),
    "-m pip install",
    `--target ${ENVIRONMENT_MOUNTS.python}`,
    "--only-binary=:all:",
    "--no-cache-dir --disable-pip-version-check --no-input --no-warn-script-location --progress-bar off",
    ...where,
    "-r /skill/requirements.txt",
  ].join(" ");
}

/**
 * The npm command of a build: `npm ci --ignore-scripts` (no package's install script ever
 * runs), production dependencies only, from the registry URL or, offline, from the tarballs
 * the lock was rewritten to name (see {@link lockForFolder}).
 */
export function npmCommand(npm: string, source: PackageSource): string {
  const where = source.kind === "url" ? ["--registry", shellQuote(source.url)] : ["--offline"];
  return [
    `cd ${ENVIRONMENT_MOUNTS.node} && cp /skill/node/package.json /skill/node/package-lock.json . &&`,
    shellQuote(npm),
    "ci --ignore-scripts --omit=dev --no-audit --no-fund --no-update-notifier",
    `--cache ${ENVIRONMENT_MOUNTS.tmp}/npm-cache`,
    ...where,
    // npm writes its reasons to a debug log in the cache, which goes with the build: keep them.
    `|| { tail -n 40 ${ENVIRONMENT_MOUNTS.tmp}/npm-cache/_logs/*.log >&2; exit 1; }`,
  ].join(" ");
}

/** The build's shell script: each language's command in turn, stopping at the first failure. */
export function buildScript(commands: readonly string[]): string {
  return ["set -e", `export TMPDIR=${ENVIRONMENT_MOUNTS.tmp}`, ...commands, ""].join("\n");
}

/** A package lock rewritten for a tarball folder, or the name of a package the folder lacks. */
export type FolderLock =
  | { readonly ok: true; readonly lock: string }
  | { readonly ok: false; readonly missing: string };

/**
 * Points every package of an npm lock at its tarball in the folder index (`npm pack`'s file
 * name: `name-version.tgz`, a scope as `scope-name-version.tgz`), keeping its `integrity`,
 * which `npm ci` still checks. A package whose tarball is not in the folder is named.
 */
export function lockForFolder(lockText: string, tarballs: ReadonlySet<string>): FolderLock {
  const lock = JSON.parse(lockText) as {
    packages?: Record<string, { version?: string; resolved?: string; link?: boolean }>;
  };
  for (const [path, entry] of Object.entries(lock.packages ?? {})) {
    if (path === "" || entry.link === true || typeof entry.version !== "string") continue;
    const name = path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length);
    const file = `${name.replace(/^@/, "").replace("/", "-")}-${entry.version}.tgz`;
    if (!tarballs.has(file)) return { ok: false, missing: `${name}@${entry.version}` };
    entry.resolved = `file:${ENVIRONMENT_MOUNTS.nodeIndex}/${file}`;
  }
  return { ok: true, lock: JSON.stringify(lock, null, 2) };
}

/** The file names of a folder, or none when it cannot be read. */
export function folderNames(folder: string): Set<string> {
  try {
    return new Set(readdirSync(folder));
  } catch {
    return new Set();
  }
}

/**
 * The direct requirements a wheel folder holds only as source archives (an sdist and no
 * wheel of that name): refused before anything runs. Packages missing altogether, and
 * dependencies of dependencies, are left to pip, whose failure is read afterwards.
 */
export function wheellessInFolder(names: ReadonlySet<string>, requirementNames: readonly string[]): string[] {
  const wheels = new Set<string>();
  const sdists = new Set<string>();
  for (const file of names) {
    if (file.endsWith(".whl")) wheels.add(normalisePackageName(file.split("-")[0] ?? ""));
    const sdist = /^(.+)-[^-]+\.(tar\.gz|zip|tar\.bz2)$/.exec(file);
    if (sdist !== null) sdists.add(normalisePackageName(sdist[1] ?? ""));
  }
  return requirementNames.filter((name) => !wheels.has(name) && sdists.has(name));
}

/** The package pip could not find as a wheel, read from its output. */
export function pipMissingPackage(output: string): string | undefined {
  return /No matching distribution found for ([^\s]+)/.exec(output)?.[1];
}
