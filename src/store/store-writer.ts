import { join } from "node:path";
import type { Diagnostic } from "../core/diagnostics.js";
import { exists } from "../core/durable-fs.js";
import { announceFolderWrite } from "../core/folder-writes.js";
import { hashSkillFolder } from "../skill/content-hash.js";
import { SKILL_FILE } from "../skill/read-skill-file.js";
import { changeResult } from "./change-result.js";
import { checkDraftWritable } from "./draft-guard.js";
import { enabledEntry } from "./enabling.js";
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
import { withPreviousHashes } from "./hash-history.js";
import type { ScriptProblem } from "./import/script-problems.js";
import {
  INDEX_VERSION,
  type IndexEntry,
  readIndex,
  type StoreIndex,
  type StoreSource,
  writeIndexFile,
  writeRevisionFile,
} from "./index-file.js";
import { applyFolderChange, type ChangeStepObserver, type FolderChange } from "./journal.js";
import { MAX_SKILLS } from "./limits.js";
import { type LockTiming, withStoreLock } from "./lock.js";
import { checkRelativePath } from "./paths.js";
import { prepareStore, type WriteContext } from "./prepare.js";
import { rewriteSkillName } from "./rename-skill-text.js";
import { gateFolderScripts, gateWrittenScripts, type ScriptGate } from "./script-gate.js";
import { consumedStaging, createStaging, discardStaging } from "./staging.js";
import type { ChangeResult, WriteAuthor } from "./store-types.js";

export type { WriteContext } from "./prepare.js";

/** A new version of a skill staged and checked (limits, SKILL.md, scripts), ready to publish. */
interface StagedVersion {
  readonly folder: string;
  readonly checked: CheckedFolder;
  readonly scriptWarnings: readonly ScriptProblem[];
}

/**
 * The write half of the store. Every method runs under the store lock, starts from
 * index.json as it is on disk at that moment (another process may have written since),
 * builds the complete new version of one skill in a staging folder, checks it, and
 * publishes it with {@link applyFolderChange}. Arguments are already validated by `Store`
 * except where noted. The script check, which runs child processes, runs before the lock
 * is taken wherever the new version does not depend on the store's state (create,
 * duplicate, install, and the files an update writes), so the lock is held only briefly.
 */
export class StoreWriter {
  constructor(
    private readonly folder: string,
    private readonly timing: LockTiming,
    private readonly now: () => Date,
    private readonly onStep: ChangeStepObserver = () => undefined,
    private readonly scriptGate: ScriptGate = { enabled: true, options: {} },
  ) {}

  /** Runs `work` under the lock, after recovering an interrupted change and removing leftovers. */
  async locked<Result>(work: (context: WriteContext) => Promise<Result>): Promise<Result> {
    return withStoreLock(this.folder, this.timing, async () => work(await prepareStore(this.folder)));
  }

  /** Creates a skill from caller-given text files. */
  async create(
    name: string,
    files: unknown,
    entry: { source: StoreSource; enabled: boolean },
  ): Promise<ChangeResult> {
    const set = checkTextFiles(files, "files");
    checkFileSetLimits(set);
    // A cheap early refusal (taken name, full store) before anything is staged or checked.
    await this.#assertFree(await readIndex(this.folder), name);
    const staged = await this.#stage(name, set);
    try {
      return await this.locked(async ({ index }) => {
        await this.#assertFree(index, name);
        return this.#publishNew(index, staged, entry);
      });
    } finally {
      await discardStaging(staged.folder);
    }
  }

  /**
   * Checks the scripts of a staging folder an importer filled (before {@link install}):
   * throws `script_check_failed` when one does not parse, returns the warnings.
   */
  async checkStagedScripts(name: string, staged: string): Promise<ScriptProblem[]> {
    return gateFolderScripts(this.scriptGate, name, staged);
  }

  /** Installs a checked staging folder under its checked name. */
  async install(
    staged: string,
    checked: CheckedFolder,
    source: StoreSource,
    origin: string | undefined,
    scriptWarnings: readonly ScriptProblem[] = [],
    replace = false,
  ): Promise<ChangeResult> {
    return this.locked(async ({ index }) => {
      if (replace)
        return this.#publishReplacement(index, { folder: staged, checked, scriptWarnings }, source, origin);
      await this.#assertFree(index, checked.name);
      return this.#publishNew(
        index,
        { folder: staged, checked, scriptWarnings },
        { source, enabled: false, ...(origin !== undefined ? { origin } : {}) },
      );
    });
  }

  /**
   * Writes and removes files of a stored skill as one replace. `changes` is validated here.
   * An owner's write to an assistant's draft locks the draft; an assistant's write is
   * allowed only on an unlocked draft (`draft_locked` otherwise).
   */
  async update(
    name: string,
    changes: { readonly write?: unknown; readonly remove?: unknown; readonly replaceAll?: unknown },
    expectedHash: string | undefined,
    author: WriteAuthor = "owner",
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
    // Early refusals from the index as it is now, before the scripts are checked; the same
    // checks run again under the lock, where they decide.
    const before = this.#entry(await readIndex(this.folder), name);
    if (author === "assistant") checkDraftWritable(name, before, before.hash);
    const scriptWarnings = await gateWrittenScripts(this.scriptGate, this.folder, name, write);
    return this.locked(async ({ index }) => {
      const entry = this.#entry(index, name);
      const files = await this.#readLive(name);
      const currentHash = this.#hashLive(name);
      if (expectedHash !== undefined && expectedHash !== currentHash)
        throw new SkillChangedError(name, expectedHash, currentHash);
      if (author === "assistant") checkDraftWritable(name, entry, currentHash);
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
          return changeResult(name, entry, index.revision, checked.diagnostics, scriptWarnings);
        const next: IndexEntry = {
          ...entry,
          hash: checked.hash,
          updated: this.now().toISOString(),
          ...(author === "owner" && entry.source === "assistant" ? { locked: true } : {}),
        };
        const nextIndex = this.#next(index, name, next);
        await this.#commit({ kind: "replace", name, staged: staging }, nextIndex);
        consumedStaging(staging);
        return changeResult(name, next, nextIndex.revision, checked.diagnostics, scriptWarnings);
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

  /**
   * Copies `from` (a stored skill, or the built-in in `builtinFolder`) to the new name `to`.
   * The copy is read, staged and checked before the lock is taken; under the lock it is
   * published only if a stored source still has the hash it was read at (`skill_changed`
   * otherwise: it was written meanwhile).
   */
  async duplicate(
    from: string,
    to: string,
    builtinFolder: string | undefined,
    enabled: boolean,
  ): Promise<ChangeResult> {
    const before = await readIndex(this.folder);
    if (builtinFolder === undefined) this.#entry(before, from);
    await this.#assertFree(before, to);
    const source = builtinFolder === undefined ? await this.#readStable(from) : undefined;
    const files = source?.files ?? (await readFileSet(builtinFolder as string));
    const skillFile = files.get(SKILL_FILE);
    if (skillFile !== undefined) {
      files.set(
        SKILL_FILE,
        Buffer.from(rewriteSkillName(Buffer.from(skillFile).toString("utf8"), to), "utf8"),
      );
    }
    checkFileSetLimits(files);
    const staged = await this.#stage(to, files);
    try {
      return await this.locked(async ({ index }) => {
        if (source !== undefined) {
          this.#entry(index, from);
          await this.#readLive(from);
          const currentHash = this.#hashLive(from);
          if (currentHash !== source.hash) throw new SkillChangedError(from, source.hash, currentHash);
        }
        await this.#assertFree(index, to);
        return this.#publishNew(index, staged, { source: "owner", enabled, origin: `duplicate:${from}` });
      });
    } finally {
      await discardStaging(staged.folder);
    }
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
        diagnostics = checked.diagnostics;
        const changed = enabledEntry(name, entry, checked.hash, reviewedHash, this.now());
        if (changed === undefined) return changeResult(name, entry, index.revision, diagnostics);
        next = changed;
      } else {
        if (!entry.enabled) return changeResult(name, entry, index.revision, diagnostics);
        next = { ...entry, enabled: false, updated: this.now().toISOString() };
      }
      const nextIndex = this.#next(index, name, next);
      await this.#commitIndex(nextIndex);
      return changeResult(name, next, nextIndex.revision, diagnostics);
    });
  }

  /**
   * Writes `files` to a new staging folder and checks it whole: limits, SKILL.md, scripts.
   * The caller publishes or discards the folder; on a refusal it is already removed.
   */
  async #stage(name: string, files: FileSet): Promise<StagedVersion> {
    const folder = await createStaging(this.folder);
    try {
      await writeFileSet(folder, files);
      const checked = await checkSkillFolder(folder, { expectedName: name });
      const scriptWarnings = await gateFolderScripts(this.scriptGate, name, folder);
      return { folder, checked, scriptWarnings };
    } catch (error) {
      await discardStaging(folder);
      throw error;
    }
  }

  /** Reads a stored skill's files without the lock, with the hash they have; `skill_changed` if it kept moving. */
  async #readStable(name: string): Promise<{ files: FileSet; hash: string }> {
    for (let attempt = 1; ; attempt += 1) {
      await this.#readLive(name);
      const before = this.#hashLive(name);
      const files = await readFileSet(join(this.folder, name));
      const after = this.#hashLive(name);
      if (before === after) return { files, hash: after };
      if (attempt === 3) throw new SkillChangedError(name, before, after);
    }
  }

  async #publishNew(
    index: StoreIndex,
    staged: StagedVersion,
    base: { source: StoreSource; enabled: boolean; origin?: string },
  ): Promise<ChangeResult> {
    const checked = staged.checked;
    const entry: IndexEntry = {
      enabled: base.enabled,
      source: base.source,
      updated: this.now().toISOString(),
      hash: checked.hash,
      ...(base.origin !== undefined ? { origin: base.origin } : {}),
    };
    const nextIndex = this.#next(index, checked.name, entry);
    await this.#commit({ kind: "create", name: checked.name, staged: staged.folder }, nextIndex);
    consumedStaging(staged.folder);
    return changeResult(checked.name, entry, nextIndex.revision, checked.diagnostics, staged.scriptWarnings);
  }

  /**
   * Puts a new version of a stored skill in place of the old one (an import with `replace`):
   * saved disabled, with the new hash, so enabling needs the hash of what was reviewed now; the
   * old hash joins the earlier ones. An identical version changes nothing.
   */
  async #publishReplacement(
    index: StoreIndex,
    staged: StagedVersion,
    source: StoreSource,
    origin: string | undefined,
  ): Promise<ChangeResult> {
    const checked = staged.checked;
    const before = this.#entry(index, checked.name);
    if (before.hash === checked.hash)
      return changeResult(checked.name, before, index.revision, checked.diagnostics, staged.scriptWarnings);
    const { locked: _locked, origin: _origin, ...kept } = before;
    const entry: IndexEntry = {
      ...kept,
      enabled: false,
      source,
      updated: this.now().toISOString(),
      hash: checked.hash,
      ...(origin !== undefined ? { origin } : {}),
    };
    const nextIndex = this.#next(index, checked.name, entry);
    await this.#commit({ kind: "replace", name: checked.name, staged: staged.folder }, nextIndex);
    consumedStaging(staged.folder);
    return changeResult(checked.name, entry, nextIndex.revision, checked.diagnostics, staged.scriptWarnings);
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
    else skills.set(name, withPreviousHashes(index.skills.get(name), entry));
    return {
      version: INDEX_VERSION,
      revision: index.revision + 1,
      updated: this.now().toISOString(),
      skills,
    };
  }

  async #commit(change: FolderChange, nextIndex: StoreIndex): Promise<void> {
    try {
      await applyFolderChange(
        this.folder,
        change,
        nextIndex.revision,
        () => writeIndexFile(this.folder, nextIndex),
        this.onStep,
      );
      await writeRevisionFile(this.folder, nextIndex.revision).catch(() => undefined);
    } finally {
      // Catalogs of this process look again on their next call, even after a failed change.
      announceFolderWrite(this.folder);
    }
  }

  async #commitIndex(nextIndex: StoreIndex): Promise<void> {
    try {
      await writeIndexFile(this.folder, nextIndex);
      await writeRevisionFile(this.folder, nextIndex.revision).catch(() => undefined);
    } finally {
      announceFolderWrite(this.folder);
    }
  }
}
