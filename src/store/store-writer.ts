import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import type { Diagnostic } from "../core/diagnostics.js";
import { hashSkillFolder } from "../skill/content-hash.js";
import { SKILL_FILE } from "../skill/read-skill-file.js";
import { removeTree, TEMP_PREFIX } from "./durable-fs.js";
import {
  SkillChangedError,
  SkillExistsError,
  SkillNotFoundError,
  StoreArgumentError,
  StoreCorruptError,
  TooManySkillsError,
} from "./errors.js";
import { checkFileSetLimits, checkTextFiles, type FileSet, readFileSet, writeFileSet } from "./file-sets.js";
import { type CheckedFolder, checkSkillFolder } from "./folder-check.js";
import {
  INDEX_FILE,
  INDEX_VERSION,
  type IndexEntry,
  readIndex,
  readRevisionFile,
  type StoreIndex,
  type StoreSource,
  writeIndexFile,
  writeRevisionFile,
} from "./index-file.js";
import {
  applyFolderChange,
  type ChangeStepObserver,
  type FolderChange,
  recoverJournal,
  TRASH_FOLDER,
} from "./journal.js";
import { MAX_SKILLS } from "./limits.js";
import { type LockTiming, withStoreLock } from "./lock.js";
import { checkRelativePath } from "./paths.js";
import type { ReconcileFinding } from "./reconcile.js";
import { rewriteSkillName } from "./rename-skill-text.js";
import { consumedStaging, createStaging, discardStaging, leftoverStaging } from "./staging.js";
import type { ChangeResult } from "./store-types.js";

/** What a locked operation starts from: the index as on disk now, and what preparing it cleaned up. */
export interface WriteContext {
  readonly index: StoreIndex;
  readonly cleaned: readonly ReconcileFinding[];
}

/**
 * The write half of the store. Every method runs under the store lock, starts from
 * index.json as it is on disk at that moment (another process may have written since),
 * builds the complete new version of one skill in a staging folder, checks it, and
 * publishes it with {@link applyFolderChange}. Arguments are already validated by `Store`
 * except where noted.
 */
export class StoreWriter {
  constructor(
    private readonly folder: string,
    private readonly timing: LockTiming,
    private readonly now: () => Date,
    private readonly onStep: ChangeStepObserver = () => undefined,
  ) {}

  /** Runs `work` under the lock, after recovering an interrupted change and removing leftovers. */
  async locked<Result>(work: (context: WriteContext) => Promise<Result>): Promise<Result> {
    return withStoreLock(this.folder, this.timing, async () => work(await this.#prepare()));
  }

  /** Creates a skill from caller-given text files. */
  async create(
    name: string,
    files: unknown,
    entry: { source: StoreSource; enabled: boolean },
  ): Promise<ChangeResult> {
    const set = checkTextFiles(files, "files");
    checkFileSetLimits(set);
    return this.locked(async ({ index }) => {
      await this.#assertFree(index, name);
      return this.#createFrom(index, name, set, entry);
    });
  }

  /** Installs a checked staging folder under its checked name. */
  async install(
    staged: string,
    checked: CheckedFolder,
    source: StoreSource,
    origin: string | undefined,
  ): Promise<ChangeResult> {
    return this.locked(async ({ index }) => {
      await this.#assertFree(index, checked.name);
      return this.#publishNew(index, staged, checked, {
        source,
        enabled: false,
        ...(origin !== undefined ? { origin } : {}),
      });
    });
  }

  /** Writes and removes files of a stored skill as one replace. `changes` is validated here. */
  async update(
    name: string,
    changes: { readonly write?: unknown; readonly remove?: unknown; readonly replaceAll?: unknown },
    expectedHash: string | undefined,
  ): Promise<ChangeResult> {
    const replaceAll = changes.replaceAll === true;
    const write: FileSet = changes.write === undefined ? new Map() : checkTextFiles(changes.write, "write");
    const remove = changes.remove ?? [];
    if (!Array.isArray(remove)) throw new StoreArgumentError("remove", "remove must be a list of paths");
    for (const path of remove) {
      checkRelativePath(path);
      if (write.has(path)) throw new StoreArgumentError("remove", `${path} is both written and removed`);
    }
    if (write.size === 0 && remove.length === 0 && !replaceAll)
      throw new StoreArgumentError("changes", "nothing to change");
    return this.locked(async ({ index }) => {
      const entry = this.#entry(index, name);
      const files = await this.#readLive(name);
      const currentHash = this.#hashLive(name);
      if (expectedHash !== undefined && expectedHash !== currentHash)
        throw new SkillChangedError(name, expectedHash, currentHash);
      for (const path of remove as string[]) {
        if (!files.delete(path)) throw new SkillNotFoundError("file", `${name}/${path}`);
      }
      if (replaceAll) for (const path of [...files.keys()]) if (!write.has(path)) files.delete(path);
      for (const [path, bytes] of write) files.set(path, bytes);
      checkFileSetLimits(files);
      const staging = await createStaging(this.folder);
      try {
        await writeFileSet(staging, files);
        const checked = await checkSkillFolder(staging, { expectedName: name });
        if (checked.hash === currentHash && currentHash === entry.hash)
          return result(name, entry, index.revision, checked.diagnostics);
        const next = { ...entry, hash: checked.hash, updated: this.now().toISOString() };
        const nextIndex = this.#next(index, name, next);
        await this.#commit({ kind: "replace", name, staged: staging }, nextIndex);
        consumedStaging(staging);
        return result(name, next, nextIndex.revision, checked.diagnostics);
      } finally {
        await discardStaging(staging);
      }
    });
  }

  /** Deletes a stored skill (its folder may already be missing). */
  async delete(name: string, expectedHash: string | undefined): Promise<{ revision: number }> {
    return this.locked(async ({ index }) => {
      this.#entry(index, name);
      const present = await exists(join(this.folder, name));
      if (expectedHash !== undefined) {
        const currentHash = present ? this.#hashLive(name) : "";
        if (currentHash !== expectedHash) throw new SkillChangedError(name, expectedHash, currentHash);
      }
      const nextIndex = this.#next(index, name, undefined);
      if (present) await this.#commit({ kind: "delete", name }, nextIndex);
      else await this.#commitIndex(nextIndex);
      return { revision: nextIndex.revision };
    });
  }

  /** Copies `from` (a stored skill, or the built-in in `builtinFolder`) to the new name `to`. */
  async duplicate(
    from: string,
    to: string,
    builtinFolder: string | undefined,
    enabled: boolean,
  ): Promise<ChangeResult> {
    return this.locked(async ({ index }) => {
      if (builtinFolder === undefined) this.#entry(index, from);
      await this.#assertFree(index, to);
      const files =
        builtinFolder === undefined ? await this.#readLive(from) : await readFileSet(builtinFolder);
      const skillFile = files.get(SKILL_FILE);
      if (skillFile !== undefined) {
        files.set(
          SKILL_FILE,
          Buffer.from(rewriteSkillName(Buffer.from(skillFile).toString("utf8"), to), "utf8"),
        );
      }
      checkFileSetLimits(files);
      return this.#createFrom(index, to, files, { source: "owner", enabled, origin: `duplicate:${from}` });
    });
  }

  /** Enables (given the reviewed hash) or disables a stored skill; only index.json changes. */
  async setEnabled(name: string, enabled: boolean, reviewedHash: string | undefined): Promise<ChangeResult> {
    return this.locked(async ({ index }) => {
      const entry = this.#entry(index, name);
      await this.#readLive(name);
      let next: IndexEntry;
      let diagnostics: readonly Diagnostic[] = [];
      if (enabled) {
        const checked = await checkSkillFolder(join(this.folder, name), { expectedName: name });
        if (checked.hash !== reviewedHash)
          throw new SkillChangedError(name, reviewedHash ?? "", checked.hash);
        diagnostics = checked.diagnostics;
        if (entry.enabled && entry.hash === checked.hash)
          return result(name, entry, index.revision, diagnostics);
        next = { ...entry, enabled: true, hash: checked.hash, updated: this.now().toISOString() };
      } else {
        if (!entry.enabled) return result(name, entry, index.revision, diagnostics);
        next = { ...entry, enabled: false, updated: this.now().toISOString() };
      }
      const nextIndex = this.#next(index, name, next);
      await this.#commitIndex(nextIndex);
      return result(name, next, nextIndex.revision, diagnostics);
    });
  }

  async #createFrom(
    index: StoreIndex,
    name: string,
    files: FileSet,
    entry: { source: StoreSource; enabled: boolean; origin?: string },
  ): Promise<ChangeResult> {
    const staging = await createStaging(this.folder);
    try {
      await writeFileSet(staging, files);
      const checked = await checkSkillFolder(staging, { expectedName: name });
      return await this.#publishNew(index, staging, checked, entry);
    } finally {
      await discardStaging(staging);
    }
  }

  async #publishNew(
    index: StoreIndex,
    staged: string,
    checked: CheckedFolder,
    base: { source: StoreSource; enabled: boolean; origin?: string },
  ): Promise<ChangeResult> {
    const entry: IndexEntry = {
      enabled: base.enabled,
      source: base.source,
      updated: this.now().toISOString(),
      hash: checked.hash,
      ...(base.origin !== undefined ? { origin: base.origin } : {}),
    };
    const nextIndex = this.#next(index, checked.name, entry);
    await this.#commit({ kind: "create", name: checked.name, staged }, nextIndex);
    consumedStaging(staged);
    return result(checked.name, entry, nextIndex.revision, checked.diagnostics);
  }

  /** Refuses a name that is taken (in the index, or by a folder nobody indexed) or a full store. */
  async #assertFree(index: StoreIndex, name: string): Promise<void> {
    if (index.skills.has(name)) throw new SkillExistsError(name);
    if (await exists(join(this.folder, name)))
      throw new SkillExistsError(name, " (a folder of that name that is not in index.json)");
    if (index.skills.size >= MAX_SKILLS) throw new TooManySkillsError(index.skills.size, MAX_SKILLS);
  }

  #entry(index: StoreIndex, name: string): IndexEntry {
    const entry = index.skills.get(name);
    if (entry === undefined) throw new SkillNotFoundError("skill", name);
    return entry;
  }

  async #readLive(name: string): Promise<FileSet> {
    const live = join(this.folder, name);
    if (!(await exists(live))) throw new SkillNotFoundError("skill", name);
    return readFileSet(live);
  }

  #hashLive(name: string): string {
    const hashed = hashSkillFolder(join(this.folder, name));
    if (hashed.hash === undefined)
      throw new StoreCorruptError(join(this.folder, name), "the folder cannot be hashed");
    return hashed.hash;
  }

  /** The index after setting (or, with `undefined`, removing) one entry, one revision later. */
  #next(index: StoreIndex, name: string, entry: IndexEntry | undefined): StoreIndex {
    const skills = new Map(index.skills);
    if (entry === undefined) skills.delete(name);
    else skills.set(name, entry);
    return {
      version: INDEX_VERSION,
      revision: index.revision + 1,
      updated: this.now().toISOString(),
      skills,
    };
  }

  async #commit(change: FolderChange, nextIndex: StoreIndex): Promise<void> {
    await applyFolderChange(
      this.folder,
      change,
      nextIndex.revision,
      () => writeIndexFile(this.folder, nextIndex),
      this.onStep,
    );
    await writeRevisionFile(this.folder, nextIndex.revision).catch(() => undefined);
  }

  async #commitIndex(nextIndex: StoreIndex): Promise<void> {
    await writeIndexFile(this.folder, nextIndex);
    await writeRevisionFile(this.folder, nextIndex.revision).catch(() => undefined);
  }

  /**
   * Brings the store to a clean state before any locked work: an interrupted change is
   * finished or rolled back from the journal, the revision file is caught up with
   * index.json, and leftovers of the store's own interrupted writes are removed: trash,
   * staging folders of processes that are gone, temporary files. Each is reported.
   */
  async #prepare(): Promise<WriteContext> {
    const cleaned: ReconcileFinding[] = [];
    const index = await readIndex(this.folder);
    // A store that was never written gets an empty index.json, so the file always exists.
    if (index.revision === 0 && !(await exists(join(this.folder, INDEX_FILE))))
      await writeIndexFile(this.folder, index);
    const recovery = await recoverJournal(this.folder, index.revision);
    if (recovery !== undefined) {
      cleaned.push({
        kind: "interrupted_change",
        name: recovery.name,
        path: join(this.folder, recovery.name),
        message: `an interrupted ${recovery.kind} of ${recovery.name} was ${
          recovery.outcome === "finished" ? "finished" : "rolled back"
        }`,
      });
    }
    if ((await readRevisionFile(this.folder)) !== index.revision)
      await writeRevisionFile(this.folder, index.revision);
    for (const name of await listOrEmpty(join(this.folder, TRASH_FOLDER))) {
      const path = join(this.folder, TRASH_FOLDER, name);
      await removeTree(path);
      cleaned.push({
        kind: "leftover_trash",
        path,
        message: `removed ${name}, left over from a change`,
        removed: true,
      });
    }
    for (const path of await leftoverStaging(this.folder)) {
      await removeTree(path);
      cleaned.push({
        kind: "leftover_staging",
        path,
        message: "removed a staging folder of a write that did not finish",
        removed: true,
      });
    }
    for (const name of await listOrEmpty(this.folder)) {
      if (!name.startsWith(TEMP_PREFIX)) continue;
      const path = join(this.folder, name);
      await removeTree(path);
      cleaned.push({
        kind: "leftover_temporary",
        path,
        message: `removed temporary file ${name}`,
        removed: true,
      });
    }
    return { index, cleaned };
  }
}

function result(
  name: string,
  entry: IndexEntry,
  revision: number,
  diagnostics: readonly Diagnostic[],
): ChangeResult {
  return {
    name,
    hash: entry.hash,
    enabled: entry.enabled,
    source: entry.source,
    updated: entry.updated,
    revision,
    diagnostics,
  };
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

async function listOrEmpty(folder: string): Promise<string[]> {
  try {
    return await readdir(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}
