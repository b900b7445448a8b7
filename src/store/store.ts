import { lstat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { makeFolder, syncTree } from "../core/durable-fs.js";
import { resolveFolders } from "../core/folders.js";
import { builtinSkillsFolder } from "../core/package-root.js";
import { hashSkillFolder } from "../skill/content-hash.js";
import { loadSkillText } from "../skill/load-skill.js";
import { readSkillFileText, SKILL_FILE } from "../skill/read-skill-file.js";
import { type BuiltinSkill, readBuiltins } from "./builtins.js";
import {
  BuiltinReadOnlyError,
  SkillInvalidError,
  SkillNotFoundError,
  StoreArgumentError,
  StoreCorruptError,
} from "./errors.js";
import { readOneFile } from "./file-sets.js";
import { checkSkillFolder } from "./folder-check.js";
import { type IndexEntry, readIndex, readRevisionFile, revisionFileStamp } from "./index-file.js";
import { STAGING_FOLDER, TRASH_FOLDER } from "./journal.js";
import { MAX_SKILLS } from "./limits.js";
import { DEFAULT_LOCK_STALE_MS, DEFAULT_LOCK_WAIT_MS, type LockTiming } from "./lock.js";
import { checkRelativePath, checkSkillName } from "./paths.js";
import { type ReconcileFinding, reconcileFolders } from "./reconcile.js";
import { checkStagingFolder, createStaging, discardStaging } from "./staging.js";
import { checkAuthor, checkEnabled, checkExpected, checkSource } from "./store-arguments.js";
import type {
  ChangeResult,
  CreateOptions,
  ExpectedHash,
  FileChanges,
  InstallOptions,
  StoreOpenReport,
  StoreOptions,
  StoreSkill,
  StoreSkillSummary,
  UpdateOptions,
} from "./store-types.js";
import { StoreWriter, type WriteContext } from "./store-writer.js";

export type {
  ChangeResult,
  ChangeStep,
  ChangeStepObserver,
  CreateOptions,
  ExpectedHash,
  FileChanges,
  FolderChange,
  InstallOptions,
  ListedSource,
  StoreOpenReport,
  StoreOptions,
  StoreSkill,
  StoreSkillSummary,
  UpdateOptions,
  WriteAuthor,
} from "./store-types.js";

/**
 * The managed skill store (docs/store.md): `<data>/skills/index.json` plus one folder per skill
 * in the Agent Skills layout, and the package's built-in skills, always present and
 * read-only. Writes are atomic and serialised across processes (docs/store.md, "Atomicity"
 * and "Locking").
 */
export class Store {
  /** `<data>/skills`, absolute. */
  readonly folder: string;
  /** What the open found; see {@link StoreOpenReport}. */
  readonly report: StoreOpenReport;
  readonly #builtins: ReadonlyMap<string, BuiltinSkill>;
  readonly #writer: StoreWriter;

  private constructor(
    folder: string,
    builtins: ReadonlyMap<string, BuiltinSkill>,
    writer: StoreWriter,
    report: StoreOpenReport,
  ) {
    this.folder = folder;
    this.#builtins = builtins;
    this.#writer = writer;
    this.report = report;
  }

  /**
   * Opens (and if needed creates) the store. Under the lock it finishes or rolls back an
   * interrupted change, removes leftovers of the store's own interrupted writes, and then
   * reconciles index.json with the folders, reporting what disagrees without changing it.
   */
  static async open(options: StoreOptions = {}): Promise<Store> {
    const folder = join(resolve(options.dataFolder ?? resolveFolders().data), "skills");
    await makeFolder(join(folder, STAGING_FOLDER));
    await makeFolder(join(folder, TRASH_FOLDER));
    const builtins = await readBuiltins(resolve(options.builtinFolder ?? builtinSkillsFolder()));
    const timing: LockTiming = {
      staleMs: options.lockStaleMs ?? DEFAULT_LOCK_STALE_MS,
      waitMs: options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS,
    };
    const writer = new StoreWriter(folder, timing, options.now ?? (() => new Date()), options.onChangeStep, {
      enabled: options.checkScripts !== false,
      options: options.scriptCheck ?? {},
    });
    const { revision, findings } = await writer.locked(async (context) => ({
      revision: context.index.revision,
      findings: [...context.cleaned, ...(await reconcileFolders(folder, context.index, builtins.skills))],
    }));
    return new Store(folder, builtins.skills, writer, {
      revision,
      findings,
      builtinDiagnostics: builtins.diagnostics,
    });
  }

  /** True when `name` is a built-in skill (read-only, always present). */
  isBuiltIn(name: string): boolean {
    return this.#builtins.has(name);
  }

  /** The store's revision: one small file read. It increases by one with every change. */
  async revision(): Promise<number> {
    return (await readRevisionFile(this.folder)) ?? (await readIndex(this.folder)).revision;
  }

  /**
   * A stamp that changes whenever {@link revision} may have moved (one `stat` of the revision
   * file; `undefined` when it is missing, then ask {@link revision}). For a long-running
   * reader that keeps what it read by revision and checks on every request.
   */
  async revisionStamp(): Promise<string | undefined> {
    return revisionFileStamp(this.folder);
  }

  /** Every skill, built-ins first where names tie (a stored skill a built-in shadows is left out), sorted by name. */
  async list(): Promise<StoreSkillSummary[]> {
    const index = await readIndex(this.folder);
    const result: StoreSkillSummary[] = [];
    for (const builtin of this.#builtins.values()) result.push(builtinSummary(builtin));
    for (const [name, entry] of index.skills)
      if (!this.#builtins.has(name)) result.push(summary(name, entry));
    return result.sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
  }

  /**
   * The skills that may be offered, with their folders, for a catalog source: every
   * built-in and every enabled stored skill. The hash is the recorded one; whoever runs a
   * script verifies it against the folder first.
   */
  async enabledSkills(): Promise<(StoreSkillSummary & { readonly folder: string })[]> {
    return (await this.list())
      .filter((skill) => skill.enabled)
      .map((skill) => ({
        ...skill,
        folder: this.#builtins.get(skill.name)?.folder ?? join(this.folder, skill.name),
      }));
  }

  /** One skill: state, SKILL.md, files and its current hash, read under the lock so they belong together. */
  async get(name: string): Promise<StoreSkill> {
    checkSkillName(name);
    const builtin = this.#builtins.get(name);
    if (builtin !== undefined) return readSkill(builtin.folder, builtinSummary(builtin), undefined);
    return this.#writer.locked(async ({ index }) => {
      const entry = index.skills.get(name);
      if (entry === undefined) throw new SkillNotFoundError("skill", name);
      return readSkill(join(this.folder, name), summary(name, entry), entry.hash);
    });
  }

  /** One file of a skill, at most 1 MiB, never through a link. */
  async readFile(name: string, path: string): Promise<Uint8Array> {
    checkSkillName(name);
    checkRelativePath(path);
    const builtin = this.#builtins.get(name);
    let folder = builtin?.folder;
    if (folder === undefined) {
      if (!(await readIndex(this.folder)).skills.has(name)) throw new SkillNotFoundError("skill", name);
      folder = join(this.folder, name);
    }
    try {
      return await readOneFile(folder, path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT")
        throw new SkillNotFoundError("file", `${name}/${path}`);
      throw error;
    }
  }

  /**
   * Creates a skill from text files (relative path → content, each at most 256 KiB). The
   * skill is saved disabled unless the owner creates it with `enabled: true`.
   */
  async create(
    name: string,
    files: Record<string, string>,
    options: CreateOptions = {},
  ): Promise<ChangeResult> {
    this.#writable(name);
    const source = checkSource(options.source ?? "owner");
    const enabled = checkEnabled(options.enabled, source);
    return this.#writer.create(name, files, { source, enabled });
  }

  /**
   * Writes and removes files of a stored skill as one change. The enabled state is kept;
   * the hash changes, so grants bound to the old hash no longer match. The scripts written
   * are syntax-checked first (`script_check_failed`). `author` (default `owner`) decides
   * the draft rules: an owner's write locks an assistant's draft; an assistant's write is
   * allowed only on its own untouched draft (`draft_locked`).
   */
  async updateFiles(name: string, changes: FileChanges, options: UpdateOptions = {}): Promise<ChangeResult> {
    this.#writable(name);
    return this.#writer.update(
      name,
      changes,
      checkExpected(options.expectedHash),
      checkAuthor(options.author ?? "owner"),
    );
  }

  /** Writes one text file of a stored skill (created or replaced). */
  async updateFile(
    name: string,
    path: string,
    content: string,
    options: UpdateOptions = {},
  ): Promise<ChangeResult> {
    return this.updateFiles(name, { write: { [path]: content } }, options);
  }

  /** Removes one file of a stored skill. SKILL.md cannot be removed. */
  async removeFile(name: string, path: string, options: UpdateOptions = {}): Promise<ChangeResult> {
    return this.updateFiles(name, { remove: [path] }, options);
  }

  /** Deletes a stored skill: its folder and its index entry, as one change. */
  async deleteSkill(name: string, options: ExpectedHash = {}): Promise<{ revision: number }> {
    this.#writable(name);
    return this.#writer.delete(name, checkExpected(options.expectedHash));
  }

  /**
   * Copies a skill (stored or built-in) under a new name, with the `name` of its SKILL.md
   * rewritten. A copy of a built-in is an ordinary owned skill. Saved disabled unless
   * `enabled: true`.
   */
  async duplicate(
    from: string,
    to: string,
    options: { readonly enabled?: boolean } = {},
  ): Promise<ChangeResult> {
    checkSkillName(from);
    this.#writable(to);
    const builtin = this.#builtins.get(from);
    return this.#writer.duplicate(from, to, builtin?.folder, options.enabled === true);
  }

  /**
   * Enables a stored skill, given the full hash the owner reviewed. A different current
   * hash refuses with `skill_changed` (409): the skill moved since the review.
   */
  async enable(name: string, reviewed: { readonly hash: string }): Promise<ChangeResult> {
    this.#writable(name);
    const hash = checkExpected(reviewed?.hash);
    if (hash === undefined)
      throw new StoreArgumentError("hash", "enabling a skill needs the hash that was reviewed");
    return this.#writer.setEnabled(name, true, hash);
  }

  /** Disables a stored skill. */
  async disable(name: string): Promise<ChangeResult> {
    this.#writable(name);
    return this.#writer.setEnabled(name, false, undefined);
  }

  /**
   * A new empty staging folder, `<data>/skills/.staging/<pid>-<random>/`, for a skill
   * prepared elsewhere (an importer unpacking a zip). Fill it with the skill's files, with
   * SKILL.md at its top, then call {@link Store.installFolder} or
   * {@link Store.discardStagingFolder}. While this process lives, no open removes it.
   */
  async createStagingFolder(): Promise<string> {
    return createStaging(this.folder);
  }

  /** Removes a staging folder that will not be installed. */
  async discardStagingFolder(stagedFolder: string): Promise<void> {
    await discardStaging(checkStagingFolder(this.folder, stagedFolder));
  }

  /**
   * Installs a skill prepared in a staging folder by one rename.
   *
   * Contract: `stagedFolder` must come from {@link Store.createStagingFolder} (so it is on
   * the same file system, under `<data>/skills/.staging/`; anything else is
   * `invalid_argument`), hold the skill itself at its top, and not be touched by the caller
   * once this is called. The folder is validated against every limit (`too_many_files`,
   * `file_too_large`, `skill_too_large`, `path_not_allowed`, `symlink_not_allowed`,
   * `too_many_domains`), its SKILL.md must load with a valid name (`skill_invalid`,
   * `invalid_skill_name`) and no invalid governance key or `parameters_schema`
   * (`skill_invalid`); the name must be free (`skill_exists`, `builtin_read_only`) and the
   * store below {@link MAX_SKILLS} (`too_many_skills`) or, with `replace`, a stored skill
   * (`not_found`), whose files it replaces as one change: saved disabled with the new hash
   * (an identical version changes nothing). File modes are normalised to 0600
   * (folders 0700: modes are not part of a skill) and every file is flushed to disk before
   * the rename. The skill is saved disabled. The staged folder is consumed either way: moved
   * into place on success, removed on refusal. Helper folders the caller makes beside it
   * must be named `.<staging folder name>.<anything>` so no concurrent open removes them.
   */
  async installFolder(stagedFolder: string, options: InstallOptions): Promise<ChangeResult> {
    const staged = checkStagingFolder(this.folder, stagedFolder);
    try {
      const source = checkSource(options.source);
      if (options.name !== undefined) this.#writable(options.name);
      const checked = await checkSkillFolder(staged, {
        normaliseModes: true,
        ...(options.name !== undefined ? { expectedName: options.name } : {}),
      });
      this.#writable(checked.name);
      const scriptWarnings = await this.#writer.checkStagedScripts(checked.name, staged);
      await syncTree(
        staged,
        checked.files.map((file) => file.path),
      );
      return await this.#writer.install(
        staged,
        checked,
        source,
        options.origin,
        scriptWarnings,
        options.replace === true,
      );
    } finally {
      await discardStaging(staged);
    }
  }

  /**
   * Reconciles again (see {@link Store.open}): cleans leftovers of interrupted writes and
   * reports what disagrees between index.json and the folders.
   */
  async reconcile(): Promise<ReconcileFinding[]> {
    return this.#writer.locked(async (context: WriteContext) => [
      ...context.cleaned,
      ...(await reconcileFolders(this.folder, context.index, this.#builtins)),
    ]);
  }

  #writable(name: string): void {
    checkSkillName(name);
    if (this.#builtins.has(name)) throw new BuiltinReadOnlyError(name);
  }
}

function summary(name: string, entry: IndexEntry): StoreSkillSummary {
  return {
    name,
    source: entry.source,
    enabled: entry.enabled,
    hash: entry.hash,
    updated: entry.updated,
    ...(entry.origin !== undefined ? { origin: entry.origin } : {}),
    ...(entry.locked === true ? { locked: true } : {}),
  };
}

function builtinSummary(builtin: BuiltinSkill): StoreSkillSummary {
  return { name: builtin.name, source: "builtin", enabled: true, hash: builtin.hash };
}

async function readSkill(
  folder: string,
  base: StoreSkillSummary,
  recordedHash: string | undefined,
): Promise<StoreSkill> {
  try {
    await lstat(folder);
  } catch {
    throw new SkillNotFoundError("skill", base.name);
  }
  // One walk for the file list and the hash, so they describe the same files; a file added
  // by hand is listed (and changes the hash) rather than making the skill unreadable.
  const hashed = hashSkillFolder(folder);
  if (hashed.hash === undefined) throw new StoreCorruptError(folder, "the folder cannot be hashed");
  const files = hashed.entries
    .filter((entry) => entry.kind === "file")
    .map((entry) => ({ path: entry.path, size: entry.size }));
  const read = readSkillFileText(join(folder, SKILL_FILE));
  if (!read.ok) throw new SkillInvalidError(base.name, [read.diagnostic]);
  const skillFile = read.text;
  const description = loadSkillText(skillFile, folder, { source: base.source }).skill?.description ?? "";
  return {
    ...base,
    hash: hashed.hash,
    folder,
    ...(recordedHash !== undefined && recordedHash !== hashed.hash ? { recordedHash } : {}),
    description,
    skillFile,
    files,
  };
}
