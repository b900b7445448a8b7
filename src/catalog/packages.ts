import { readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { type Diagnostic, diagnostic } from "../core/diagnostics.js";
import { folderStamp, rereadIfChanged, type StampedRead, settledBefore } from "../core/file-stamps.js";
import { isPlainObject, parseJsonSafely } from "../core/safe-json.js";
import type { SkillFolderSource } from "./sources.js";
import { isInside } from "./walk.js";

/**
 * npm packages that publish skills: a `skills` field in `package.json` naming one folder
 * or a list of folders, relative to the package, each either a skill or a folder of
 * skills. They are found in the `node_modules` of each project root (top level and
 * `@scope/` folders), and by name for packages listed explicitly (the equivalent of
 * extra modules that are skills but are not installed as a project dependency).
 */
export interface PackageSkillsResult {
  readonly sources: SkillFolderSource[];
  readonly diagnostics: Diagnostic[];
}

interface Listing {
  /** The stamp of `node_modules` and of each `@scope` folder in it, by path. */
  readonly stamps: ReadonlyMap<string, string>;
  /**
   * Each package folder with its real path, resolved when the listing was made: a package
   * folder or link can only be replaced by changing `node_modules` (or its scope folder),
   * which makes a new listing. Undefined when it could not be resolved (a broken link).
   */
  readonly packages: readonly { readonly folder: string; readonly real: string | undefined }[];
  readonly listedAt: number;
  /** What each package's `package.json` said, by the package's real path; dropped with the listing. */
  readonly manifests: Map<string, StampedRead<PackageSkillsResult>>;
}

const listingCache = new Map<string, Listing>();

/** Finds the skill folders published by packages under `roots` and by the named packages. */
export function packageSkillSources(
  roots: readonly string[],
  packageNames: readonly string[],
  searchFrom: readonly string[],
): PackageSkillsResult {
  const sources: SkillFolderSource[] = [];
  const diagnostics: Diagnostic[] = [];
  const seen = new Set<string>();
  const add = (real: string | undefined, manifests?: Map<string, StampedRead<PackageSkillsResult>>): void => {
    if (real === undefined || seen.has(real)) return;
    seen.add(real);
    const result = manifests === undefined ? readPackageSkills(real) : cachedPackageSkills(real, manifests);
    sources.push(...result.sources);
    diagnostics.push(...result.diagnostics);
  };
  for (const root of roots) {
    const listing = listInstalledPackages(join(resolve(root), "node_modules"));
    if (listing === undefined) continue;
    for (const installed of listing.packages) add(installed.real, listing.manifests);
  }
  for (const name of packageNames) {
    const folder = findPackage(name, [...roots, ...searchFrom]);
    if (folder === undefined) {
      diagnostics.push(
        diagnostic(
          "not_found",
          "warning",
          `package ${name} is listed in skills.packages but is not installed`,
          {
            hint: `npm install ${name}`,
          },
        ),
      );
      continue;
    }
    add(realPathOrUndefined(folder));
  }
  return { sources, diagnostics };
}

/**
 * The package folders directly inside a `node_modules` folder and its `@scope` folders,
 * cached while neither `node_modules` nor any scope folder changed; undefined when there
 * is no `node_modules`.
 */
function listInstalledPackages(nodeModules: string): Listing | undefined {
  const cached = listingCache.get(nodeModules);
  if (cached !== undefined && listingStillGood(cached)) return cached;
  const listedAt = Date.now();
  const top = folderStamp(nodeModules);
  if (top === undefined) {
    listingCache.delete(nodeModules);
    return undefined;
  }
  const stamps = new Map<string, string>([[nodeModules, top.stamp]]);
  const packages: { folder: string; real: string | undefined }[] = [];
  const addPackage = (folder: string): void => {
    packages.push({ folder, real: realPathOrUndefined(folder) });
  };
  for (const entry of safeList(nodeModules)) {
    if (entry.startsWith(".")) continue;
    if (entry.startsWith("@")) {
      const scope = join(nodeModules, entry);
      stamps.set(scope, folderStamp(scope)?.stamp ?? "missing");
      for (const inner of safeList(scope)) addPackage(join(scope, inner));
    } else {
      addPackage(join(nodeModules, entry));
    }
  }
  const listing: Listing = { stamps, packages, listedAt, manifests: new Map() };
  listingCache.set(nodeModules, listing);
  return listing;
}

/**
 * {@link readPackageSkills}, reused while the package's `package.json` is the version read
 * (one `stat` a package on a repeat instead of a read and a parse). A result with problems
 * (a declared folder missing, say) is not kept: the folder may appear without the manifest
 * changing.
 */
function cachedPackageSkills(
  packageFolder: string,
  manifests: Map<string, StampedRead<PackageSkillsResult>>,
): PackageSkillsResult {
  const read = rereadIfChanged(join(packageFolder, "package.json"), manifests.get(packageFolder), () =>
    readPackageSkills(packageFolder),
  );
  if (read.value.diagnostics.length > 0) manifests.delete(packageFolder);
  else manifests.set(packageFolder, read);
  return read.value;
}

function listingStillGood(listing: Listing): boolean {
  for (const [folder, stamp] of listing.stamps) {
    const now = folderStamp(folder);
    if (now === undefined || now.stamp !== stamp || !settledBefore(now, listing.listedAt)) return false;
  }
  return true;
}

function realPathOrUndefined(path: string): string | undefined {
  try {
    return realpathSync.native(path);
  } catch {
    return undefined;
  }
}

function safeList(folder: string): string[] {
  try {
    return readdirSync(folder);
  } catch {
    return [];
  }
}

function findPackage(name: string, startFolders: readonly string[]): string | undefined {
  for (const start of startFolders) {
    let folder = resolve(start);
    for (;;) {
      const candidate = join(folder, "node_modules", name);
      try {
        if (statSync(join(candidate, "package.json")).isFile()) return candidate;
      } catch {
        // not here; look one level up
      }
      const parent = dirname(folder);
      if (parent === folder) break;
      folder = parent;
    }
  }
  return undefined;
}

function readPackageSkills(packageFolder: string): PackageSkillsResult {
  const manifestPath = join(packageFolder, "package.json");
  let manifest: unknown;
  try {
    manifest = parseJsonSafely(readFileSync(manifestPath, "utf8"));
  } catch {
    return { sources: [], diagnostics: [] };
  }
  if (!isPlainObject(manifest) || manifest.skills === undefined) return { sources: [], diagnostics: [] };
  const name = typeof manifest.name === "string" ? manifest.name : packageFolder;
  const declared = typeof manifest.skills === "string" ? [manifest.skills] : manifest.skills;
  if (!Array.isArray(declared) || !declared.every((entry) => typeof entry === "string")) {
    return {
      sources: [],
      diagnostics: [
        diagnostic(
          "invalid_field",
          "error",
          `package ${name}: "skills" must be a folder or a list of folders`,
          { path: manifestPath },
        ),
      ],
    };
  }
  const sources: SkillFolderSource[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const entry of declared) {
    const folder = resolve(packageFolder, entry);
    let real: string | undefined;
    try {
      real = realpathSync(folder);
    } catch {
      diagnostics.push(
        diagnostic("not_found", "warning", `package ${name}: skills folder ${entry} does not exist`, {
          path: folder,
        }),
      );
      continue;
    }
    if (!isInside(real, [packageFolder])) {
      diagnostics.push(
        diagnostic(
          "path_not_allowed",
          "error",
          `package ${name}: skills folder ${entry} is outside the package`,
          { path: folder },
        ),
      );
      continue;
    }
    sources.push({
      kind: "package",
      source: `package:${name}`,
      folder: real,
      reason: `published by npm package ${name}`,
    });
  }
  return { sources, diagnostics };
}
