import { lstatSync, mkdirSync, readdirSync, renameSync } from "node:fs";
import { join } from "node:path";
import { FOLDER_MODE, readSmallFile, uniqueSuffix, writeFileAtomicallySync } from "../../core/durable-fs.js";
import { removeTree } from "../../core/remove-tree.js";
import { hashSkillFolder } from "../../skill/content-hash.js";
import { PackageError } from "../packages/package-errors.js";
import { extractPackage } from "../packages/package-extract.js";
import { isFullHash, isPackageName, packageKey, parsePackageKey } from "../packages/package-format.js";
import { DEFAULT_PACKAGE_LIMITS, type PackageLimits } from "../packages/package-limits.js";

/** Options of {@link SkillCache}. */
export interface SkillCacheOptions {
  /** The agent's data folder: the cache is `<agent data>/skills/`. */
  readonly dataFolder: string;
  readonly limits?: PackageLimits;
}

/** What the cache holds: the set SkillSync last committed, and the last sequence it accepted. */
interface HeldState {
  /** The highest manifest sequence accepted (verified), whether its sync completed or not. */
  readonly sequence: number;
  /** `name → hash` of the last complete sync. */
  readonly skills: Readonly<Record<string, string>>;
}

const STATE_FILE = "held.json";
const STAGING_PREFIX = ".staging-";
const MAX_STATE_BYTES = 1024 * 1024;

/**
 * The agent's verified skill copies (docs/nodes.md, "SkillSync"): one folder per
 * `<agent data>/skills/<name>@<hash>/`, folders 0700 and files 0600, each installed by one
 * rename from a staging folder beside it once its files hash to `hash`. Which copy of each
 * name is held (the set a run may use) is `held.json`, switched by one atomic write when a
 * sync completes, with the last accepted manifest sequence. A folder in the cache that the
 * held set does not name (left by a failed sync) is reused, after hashing it again, or pruned.
 */
export class SkillCache {
  /** `<agent data>/skills`. */
  readonly folder: string;
  readonly #limits: PackageLimits;
  #state: HeldState;

  constructor(options: SkillCacheOptions) {
    this.folder = join(options.dataFolder, "skills");
    this.#limits = options.limits ?? DEFAULT_PACKAGE_LIMITS;
    mkdirSync(this.folder, { recursive: true, mode: FOLDER_MODE });
    this.#state = this.#readState();
    for (const name of readdirSync(this.folder))
      if (name.startsWith(STAGING_PREFIX)) removeTree(join(this.folder, name));
    this.#dropDamagedCopies();
  }

  /** `name → hash` of what the agent holds after its last good sync (the heartbeat's `skills`). */
  held(): Map<string, string> {
    return new Map(Object.entries(this.#state.skills));
  }

  /** The last manifest sequence accepted (0 before the first). */
  lastSequence(): number {
    return this.#state.sequence;
  }

  /**
   * The folder of `name@hash` when that is the copy held, else undefined: a run of any other
   * hash (an older edit, one never synced) is refused by the caller. The caller hashes the
   * folder again before it runs anything from it.
   */
  folderOf(name: string, hash: string): string | undefined {
    if (this.#state.skills[name] !== hash) return undefined;
    const folder = this.#pathOf(name, hash);
    return lstatSync(folder, { throwIfNoEntry: false })?.isDirectory() === true ? folder : undefined;
  }

  /**
   * True when a verified copy of `name@hash` is in the cache: the held one, or one left by a
   * failed sync that still hashes to `hash` (one that does not is removed).
   */
  has(name: string, hash: string): boolean {
    const folder = this.#pathOf(name, hash);
    const stats = lstatSync(folder, { throwIfNoEntry: false });
    if (stats === undefined) return false;
    if (this.#state.skills[name] === hash && stats.isDirectory()) return true;
    if (stats.isDirectory() && hashSkillFolder(folder).hash === hash) return true;
    removeTree(folder);
    return false;
  }

  /**
   * Unpacks a package (already checked against the manifest's SHA-256 and size) into a
   * staging folder, checks its files hash to `hash` (`package_hash_mismatch`), and installs
   * it with one rename to `<name>@<hash>`. It is not held until {@link commit}.
   *
   * @throws PackageError from the extractor or `package_hash_mismatch`; nothing is installed
   */
  install(name: string, hash: string, bytes: Uint8Array): string {
    if (!isPackageName(name) || !isFullHash(hash))
      throw new PackageError("package_invalid", "a package needs a skill name and a full hash", {
        name,
        hash,
      });
    const staging = join(this.folder, `${STAGING_PREFIX}${uniqueSuffix()}`);
    const target = this.#pathOf(name, hash);
    extractPackage(bytes, staging, this.#limits);
    try {
      const hashed = hashSkillFolder(staging);
      if (hashed.hash !== hash)
        throw new PackageError(
          "package_hash_mismatch",
          `the package of ${name}@${hash.slice(0, 8)} holds other files (they hash to ${hashed.hash?.slice(0, 8) ?? "nothing"})`,
          { name, hash, expected: hash, actual: hashed.hash },
        );
      if (lstatSync(target, { throwIfNoEntry: false }) !== undefined) removeTree(target);
      // Not flushed here: the held set's atomic write flushes this same folder, which makes
      // every install rename before it durable at once (one flush a sync, not one a package).
      renameSync(staging, target);
      return target;
    } finally {
      removeTree(staging);
    }
  }

  /**
   * Makes `skills` the held set and `sequence` the last accepted, in one atomic write, then
   * removes every cached copy the set does not name. Returns the `name@hash` keys removed.
   */
  commit(skills: ReadonlyMap<string, string>, sequence: number): string[] {
    this.#writeState({
      sequence: Math.max(sequence, this.#state.sequence),
      skills: Object.fromEntries(skills),
    });
    const keep = new Set([...skills].map(([name, hash]) => packageKey(name, hash)));
    return this.prune(keep);
  }

  /**
   * Drops a held copy that no longer hashes to its hash (the run path found it changed on
   * disk): it leaves the held set and is removed, so the next sync downloads it again.
   * Returns false when `name@hash` was not held.
   */
  discard(name: string, hash: string): boolean {
    if (this.#state.skills[name] !== hash) return false;
    const skills = { ...this.#state.skills };
    delete skills[name];
    this.#writeState({ sequence: this.#state.sequence, skills });
    removeTree(this.#pathOf(name, hash));
    return true;
  }

  /** Records an accepted sequence without changing the held set (a sync that did not complete). */
  recordSequence(sequence: number): void {
    if (sequence <= this.#state.sequence) return;
    this.#writeState({ sequence, skills: this.#state.skills });
  }

  /**
   * Removes every cached copy whose `name@hash` is not in `keep` and not held. Returns the
   * keys removed, sorted.
   */
  prune(keep: ReadonlySet<string>): string[] {
    const held = new Set(Object.entries(this.#state.skills).map(([name, hash]) => packageKey(name, hash)));
    const removed: string[] = [];
    for (const entry of readdirSync(this.folder)) {
      if (entry === STATE_FILE || entry.startsWith(".tmp-")) continue;
      const parsed = parsePackageKey(entry);
      if (parsed !== undefined && (keep.has(entry) || held.has(entry))) continue;
      removeTree(join(this.folder, entry));
      if (parsed !== undefined) removed.push(entry);
    }
    return removed.sort();
  }

  /**
   * Files are not flushed one by one before the install rename (a sync of hundreds of
   * skills would wait on each): a crash can leave a held copy with lost bytes. So at start
   * every held copy is hashed once, and one that no longer matches is dropped from the held
   * set and removed; the next sync downloads it again.
   */
  #dropDamagedCopies(): void {
    const kept: Record<string, string> = {};
    let dropped = false;
    for (const [name, hash] of Object.entries(this.#state.skills)) {
      const folder = this.#pathOf(name, hash);
      if (hashSkillFolder(folder).hash === hash) kept[name] = hash;
      else {
        dropped = true;
        removeTree(folder);
      }
    }
    if (dropped) this.#writeState({ sequence: this.#state.sequence, skills: kept });
  }

  #pathOf(name: string, hash: string): string {
    return join(this.folder, packageKey(name, hash));
  }

  #readState(): HeldState {
    const text = readSmallFile(join(this.folder, STATE_FILE), MAX_STATE_BYTES);
    if (text === undefined) return { sequence: 0, skills: {} };
    try {
      const parsed = JSON.parse(text) as { sequence?: unknown; skills?: unknown };
      const sequence =
        typeof parsed.sequence === "number" && Number.isSafeInteger(parsed.sequence) ? parsed.sequence : 0;
      const skills: Record<string, string> = {};
      if (typeof parsed.skills === "object" && parsed.skills !== null)
        for (const [name, hash] of Object.entries(parsed.skills))
          if (isPackageName(name) && isFullHash(hash)) skills[name] = hash;
      return { sequence, skills };
    } catch {
      // A state file that cannot be read holds nothing: the next sync installs everything again.
      return { sequence: 0, skills: {} };
    }
  }

  #writeState(state: HeldState): void {
    writeFileAtomicallySync(join(this.folder, STATE_FILE), `${JSON.stringify(state)}\n`);
    this.#state = state;
  }
}
