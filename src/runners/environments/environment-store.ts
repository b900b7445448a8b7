import { randomBytes } from "node:crypto";
import {
  chmodSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { writeFileAtomicallySync } from "../../core/durable-fs.js";
import { removeTree } from "../../core/remove-tree.js";
import { discard, pruneSnapshots } from "../snapshot-prune.js";

/** The folder of package environments in the data folder. */
export const ENVIRONMENTS_FOLDER = "environments";

/** The file that marks a finished environment; written last, before the rename. */
const MANIFEST = "environment.json";
/** The build's log, kept in the environment (and, for a failed build, in `failed/`). */
export const BUILD_LOG = "build.log";

/** A built package environment of one skill hash, read-only on disk. */
export interface PackageEnvironment {
  /** `<data>/environments/<full hash>`. */
  readonly folder: string;
  readonly hash: string;
  /** `<folder>/python`, pip's `--target`, when Python packages were installed. */
  readonly python?: string;
  /** `<folder>/node/node_modules`, when Node packages were installed. */
  readonly nodeModules?: string;
  /** `<folder>/build.log`: what the build printed. */
  readonly log: string;
}

/** What an environment's manifest records. */
interface Manifest {
  readonly hash: string;
  readonly builtAt: string;
  readonly python: readonly string[];
  readonly node: readonly string[];
}

/** Options of {@link EnvironmentStore}. */
export interface EnvironmentStoreOptions {
  readonly dataFolder: string;
  /** Environments kept; the least recently used beyond this are removed (default 20). */
  readonly keep?: number | (() => number);
}

/**
 * One package environment per skill hash in `<data>/environments/<full hash>/`
 * (docs/running-scripts.md, "Packages"). A build writes into a temporary folder beside them
 * (`.tmp-…`), which is sealed read-only (files 0444 or 0555, folders 0555), given its manifest
 * and renamed into place in one step: readers see a whole environment or none. A use touches
 * the folder's time; after each new environment the `keep` most recently used are kept and
 * the rest removed (moved aside first), except those in use by this process.
 */
export class EnvironmentStore {
  readonly root: string;
  readonly #keep: () => number;
  readonly #inUse = new Map<string, number>();

  constructor(options: EnvironmentStoreOptions) {
    this.root = join(options.dataFolder, ENVIRONMENTS_FOLDER);
    const keep = options.keep ?? 20;
    this.#keep = typeof keep === "function" ? keep : () => keep;
  }

  /** The finished environment of a hash, touched as used; `undefined` when there is none. */
  find(hash: string): PackageEnvironment | undefined {
    if (!/^[0-9a-f]{64}$/.test(hash)) return undefined;
    const folder = join(this.root, hash);
    let manifest: Manifest;
    try {
      manifest = JSON.parse(readFileSync(join(folder, MANIFEST), "utf8")) as Manifest;
    } catch {
      return undefined;
    }
    if (manifest.hash !== hash) return undefined;
    try {
      const now = new Date();
      utimesSync(folder, now, now);
    } catch {
      // A read-only data folder: the environment is still usable, only its age is not kept.
    }
    return environmentAt(folder, hash, manifest);
  }

  /** A fresh temporary folder for a build of `hash`, with `python/`, `node/` and `tmp/` made. */
  staging(hash: string): string {
    mkdirSync(this.root, { recursive: true, mode: 0o755 });
    const folder = join(this.root, `.tmp-${hash.slice(0, 8)}-${randomBytes(6).toString("hex")}`);
    mkdirSync(folder, { mode: 0o755 });
    for (const part of ["python", "node", "tmp", "inputs"]) mkdirSync(join(folder, part), { mode: 0o755 });
    return folder;
  }

  /**
   * Seals a finished build and renames it into place; when another process finished the same
   * hash first, its environment is kept and this one discarded. Then prunes.
   */
  commit(
    staging: string,
    hash: string,
    installed: { python: readonly string[]; node: readonly string[] },
  ): PackageEnvironment {
    removeTree(join(staging, "tmp"));
    removeTree(join(staging, "inputs"));
    const manifest: Manifest = { hash, builtAt: new Date().toISOString(), ...installed };
    writeFileSync(join(staging, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o444 });
    sealTree(staging);
    const target = join(this.root, hash);
    try {
      renameSync(staging, target);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOTEMPTY" && code !== "EEXIST") throw error;
      removeTree(staging);
      const existing = this.find(hash);
      if (existing === undefined) throw error;
      return existing;
    }
    this.prune();
    return environmentAt(target, hash, manifest);
  }

  /** Keeps a failed build's log in `failed/<hash>.log` and removes its folder. */
  discardFailed(staging: string, hash: string, log: string): string {
    const folder = join(this.root, "failed");
    mkdirSync(folder, { recursive: true, mode: 0o755 });
    const path = join(folder, `${hash}.log`);
    writeFileAtomicallySync(path, log);
    removeTree(staging);
    return path;
  }

  /** Removes the environment of a hash (`skillgate deps --rebuild`); nothing there is fine. */
  remove(hash: string): void {
    if (!/^[0-9a-f]{64}$/.test(hash)) return;
    discard(join(this.root, hash), this.root);
  }

  /** Marks an environment in use by a run of this process, so a prune leaves it alone until released. */
  acquire(hash: string): void {
    this.#inUse.set(hash, (this.#inUse.get(hash) ?? 0) + 1);
  }

  release(hash: string): void {
    const count = (this.#inUse.get(hash) ?? 1) - 1;
    if (count <= 0) this.#inUse.delete(hash);
    else this.#inUse.set(hash, count);
  }

  /** The environments on disk, by hash (finished ones only). */
  hashes(): string[] {
    try {
      return readdirSync(this.root).filter((name) => /^[0-9a-f]{64}$/.test(name));
    } catch {
      return [];
    }
  }

  prune(): void {
    pruneSnapshots(this.root, this.#keep(), new Set(this.#inUse.keys()));
  }
}

function environmentAt(folder: string, hash: string, manifest: Manifest): PackageEnvironment {
  return {
    folder,
    hash,
    ...(manifest.python.length > 0 ? { python: join(folder, "python") } : {}),
    ...(manifest.node.length > 0 ? { nodeModules: join(folder, "node", "node_modules") } : {}),
    log: join(folder, BUILD_LOG),
  };
}

/**
 * Makes a built tree read-only and this process's own (as root, the build wrote it as the
 * sandbox user): folders 0555, files 0444 or 0555 when executable. Links are left as they
 * are, never followed.
 */
function sealTree(root: string): void {
  const uid = process.getuid?.();
  const gid = process.getgid?.();
  const walk = (path: string): void => {
    const stats = lstatSync(path);
    if (uid === 0 && gid !== undefined && (stats.uid !== 0 || stats.gid !== gid)) lchownSync(path, 0, gid);
    if (stats.isSymbolicLink()) return;
    if (stats.isDirectory()) {
      for (const name of readdirSync(path)) walk(join(path, name));
      chmodSync(path, 0o555);
    } else chmodSync(path, stats.mode & 0o111 ? 0o555 : 0o444);
  };
  walk(root);
}
