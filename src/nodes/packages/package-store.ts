import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { makeFolder, removeFileDurably, TEMP_PREFIX, writeFileAtomically } from "../../core/durable-fs.js";
import { sha256Hex } from "../../core/hashing.js";
import { SnapshotStore } from "../../runners/snapshot.js";
import { buildVerifiedPackage, type PackageSource } from "./package-builder.js";
import { PackageError } from "./package-errors.js";
import { isFullHash, isPackageName, packageKey, parsePackageKey } from "./package-format.js";
import { DEFAULT_PACKAGE_LIMITS, type PackageLimits } from "./package-limits.js";

/** A package kept by the controller, and what a manifest says of it. */
export interface StoredPackage {
  readonly name: string;
  readonly hash: string;
  /** SHA-256 (hex) of the file's bytes. */
  readonly sha256: string;
  readonly size: number;
  /** `<data>/nodes/packages/<name>@<hash>.tar.gz`. */
  readonly path: string;
}

/** A package to serve: the file's description and its bytes. */
export interface OpenedPackage {
  readonly package: StoredPackage;
  readonly bytes: Buffer;
}

/** Options of {@link PackageStore}. */
export interface PackageStoreOptions {
  /** The controller's data folder: packages live in `<data>/nodes/packages/`. */
  readonly dataFolder: string;
  /**
   * The verified snapshots packages are built from. Default: a store of its own under
   * `<data>/nodes/build/`, keeping 4, so building many packages never evicts a run's snapshot.
   */
  readonly snapshots?: SnapshotStore;
  readonly limits?: PackageLimits;
}

const SUFFIX = ".tar.gz";

/**
 * The controller's packages (docs/nodes.md, "Packages"): one `tar.gz` per `name@hash`,
 * built once from a verified snapshot and written atomically (core's durable-fs), served
 * only while the store's hash of that skill is still the package's hash, and removed when
 * no manifest lists it. Packages of one hash are deterministic, so two processes building
 * the same one write the same bytes and the last rename is as good as the first.
 */
export class PackageStore {
  /** `<data>/nodes/packages`. */
  readonly folder: string;
  readonly #snapshots: SnapshotStore;
  readonly #limits: PackageLimits;
  /** SHA-256 and size per key, known from the build or the first read. */
  readonly #known = new Map<string, StoredPackage>();
  /** Builds in flight per key, so concurrent callers share one. */
  readonly #building = new Map<string, Promise<StoredPackage>>();

  constructor(options: PackageStoreOptions) {
    this.folder = join(options.dataFolder, "nodes", "packages");
    this.#snapshots =
      options.snapshots ??
      new SnapshotStore({ dataFolder: join(options.dataFolder, "nodes", "build"), keep: 4 });
    this.#limits = options.limits ?? DEFAULT_PACKAGE_LIMITS;
  }

  /** Where the package of `name@hash` is (or would be) kept. */
  pathOf(name: string, hash: string): string {
    return join(this.folder, `${packageKey(name, hash)}${SUFFIX}`);
  }

  /**
   * The package of `source.name@source.hash`, built now when this process has not built it
   * yet (a file kept by an earlier process is checked against the build and kept). The build
   * goes through a verified snapshot: a live folder that no longer matches the hash is
   * refused (`package_build_failed`), and nothing is written.
   *
   * @throws PackageError `package_build_failed`, `package_invalid` (a bad name or hash) or a limit code
   */
  async ensure(source: PackageSource): Promise<StoredPackage> {
    checkKey(source.name, source.hash);
    const key = packageKey(source.name, source.hash);
    const known = this.#known.get(key);
    if (known !== undefined) return known;
    const pending = this.#building.get(key);
    if (pending !== undefined) return pending;
    const build = this.#build(source).finally(() => this.#building.delete(key));
    this.#building.set(key, build);
    return build;
  }

  /** The kept package of `name@hash`, or undefined when there is none. */
  get(name: string, hash: string): StoredPackage | undefined {
    if (!isPackageName(name) || !isFullHash(hash)) return undefined;
    return this.#known.get(packageKey(name, hash)) ?? this.#read(name, hash);
  }

  /**
   * The package to serve for `name@hash`, while `currentHash` (the store's hash of that
   * skill now, undefined when it is gone or disabled) is still `hash`.
   *
   * @throws PackageError `package_stale` (the skill moved to another hash), `package_not_found`
   */
  open(name: string, hash: string, currentHash: string | undefined): OpenedPackage {
    if (!isPackageName(name) || !isFullHash(hash) || currentHash === undefined)
      throw new PackageError("package_not_found", `no package ${name}@${hash.slice(0, 8)} is served`, {
        name,
        hash,
      });
    if (currentHash !== hash)
      throw new PackageError(
        "package_stale",
        `${name}@${hash.slice(0, 8)} is no longer the skill's hash (it is ${currentHash.slice(0, 8)} now)`,
        { name, hash, expected: currentHash },
      );
    const stored = this.get(name, hash);
    if (stored === undefined)
      throw new PackageError("package_not_found", `no package ${name}@${hash.slice(0, 8)} is kept`, {
        name,
        hash,
      });
    let bytes: Buffer;
    try {
      bytes = readFileSync(stored.path);
    } catch {
      this.#known.delete(packageKey(name, hash));
      throw new PackageError("package_not_found", `no package ${name}@${hash.slice(0, 8)} is kept`, {
        name,
        hash,
      });
    }
    return { package: stored, bytes };
  }

  /** Every kept package, by name then hash. */
  list(): StoredPackage[] {
    const result: StoredPackage[] = [];
    for (const key of this.#keys()) {
      const parsed = parsePackageKey(key);
      const stored = parsed === undefined ? undefined : this.get(parsed.name, parsed.hash);
      if (stored !== undefined) result.push(stored);
    }
    return result.sort((left, right) => (left.path < right.path ? -1 : left.path > right.path ? 1 : 0));
  }

  /**
   * Removes every package whose `name@hash` is not in `keep` (the union of what current
   * manifests list), and leftover temporary files. Returns the keys removed.
   */
  async prune(keep: ReadonlySet<string>): Promise<string[]> {
    const removed: string[] = [];
    let names: string[];
    try {
      names = readdirSync(this.folder);
    } catch {
      return removed;
    }
    for (const file of names) {
      const key = file.endsWith(SUFFIX) ? file.slice(0, -SUFFIX.length) : undefined;
      const stale =
        key === undefined ? file.startsWith(TEMP_PREFIX) : !keep.has(key) && !this.#building.has(key);
      if (!stale) continue;
      await removeFileDurably(join(this.folder, file));
      if (key !== undefined) {
        this.#known.delete(key);
        removed.push(key);
      }
    }
    return removed.sort();
  }

  /**
   * Builds the package and writes it unless the file kept by an earlier process already holds
   * exactly these bytes: packages are deterministic, so a kept file that differs was damaged
   * on disk and is replaced. This is the one build per `name@hash` a process makes.
   */
  async #build(source: PackageSource): Promise<StoredPackage> {
    // A build is synchronous (snapshot, hash, gzip: milliseconds for a skill, seconds for a
    // first manifest of hundreds); yielding first lets the controller answer heartbeats and
    // runs between two builds.
    await new Promise((resolve) => setImmediate(resolve));
    const built = buildVerifiedPackage(this.#snapshots, source, this.#limits);
    await makeFolder(this.folder);
    const path = this.pathOf(source.name, source.hash);
    if (!sameBytes(path, built.bytes)) await writeFileAtomically(path, built.bytes);
    const stored: StoredPackage = {
      name: source.name,
      hash: source.hash,
      sha256: built.sha256,
      size: built.size,
      path,
    };
    this.#known.set(packageKey(source.name, source.hash), stored);
    return stored;
  }

  /** A package kept by an earlier process: its SHA-256 is computed once and remembered. */
  #read(name: string, hash: string): StoredPackage | undefined {
    const path = this.pathOf(name, hash);
    let bytes: Buffer;
    try {
      if (!statSync(path).isFile()) return undefined;
      bytes = readFileSync(path);
    } catch {
      return undefined;
    }
    const stored: StoredPackage = { name, hash, sha256: sha256Hex(bytes), size: bytes.length, path };
    this.#known.set(packageKey(name, hash), stored);
    return stored;
  }

  #keys(): string[] {
    try {
      return readdirSync(this.folder)
        .filter((file) => file.endsWith(SUFFIX))
        .map((file) => file.slice(0, -SUFFIX.length));
    } catch {
      return [];
    }
  }
}

function sameBytes(path: string, bytes: Buffer): boolean {
  try {
    return readFileSync(path).equals(bytes);
  } catch {
    return false;
  }
}

function checkKey(name: string, hash: string): void {
  if (!isPackageName(name))
    throw new PackageError("package_invalid", `"${String(name).slice(0, 80)}" cannot name a package`, {
      name,
    });
  if (!isFullHash(hash))
    throw new PackageError("package_invalid", `${name} has no full content hash to package`, { name, hash });
}
