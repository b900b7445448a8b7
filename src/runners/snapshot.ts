import { randomBytes } from "node:crypto";
import {
  chmodSync,
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  type Stats,
  utimesSync,
  writeSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { removeTree } from "../core/remove-tree.js";
import { type ContentHash, type HashedEntry, hashSkillFolder } from "../skill/content-hash.js";
import type { RunRequest, RunResult, VerifiedSnapshot } from "./contract.js";
import { refusal } from "./refusal.js";
import { runsFolders } from "./runs-folder.js";
import { discard, pruneSnapshots } from "./snapshot-prune.js";

/** Snapshots kept by default; older ones (by last use) are removed when a new one is made. */
export const DEFAULT_SNAPSHOTS_KEPT = 50;
/** The most bytes one snapshot may hold: a skill larger than this is refused, not copied. */
export const MAX_SNAPSHOT_BYTES = 256 * 1024 * 1024;

// S_ISUID | S_ISGID: Node's typings do not list them in fs.constants.
const SETUID_OR_SETGID = 0o4000 | 0o2000;

/** Options of {@link SnapshotStore}. */
export interface SnapshotStoreOptions {
  /** The data folder: snapshots live in `<data>/runs/snapshots/<full hash>/`. */
  readonly dataFolder: string;
  /** How many snapshots to keep (a number, or read each time from the configuration). */
  readonly keep?: number | (() => number);
  /**
   * Called after the live folder was verified and before its bytes are copied. Tests use it
   * to swap a file in that window and show the copy's own check catches it.
   */
  readonly beforeCopy?: (folder: string) => void;
}

/** A verified snapshot, or the refusal to run. */
export type SnapshotOutcome =
  | { readonly ok: true; readonly snapshot: VerifiedSnapshot }
  | { readonly ok: false; readonly refusal: RunResult };

/** What a snapshot is made for: the skill, the approved hash and the live folder. */
export type SnapshotRequest = Pick<RunRequest, "skill" | "hash" | "folder" | "script">;

/**
 * Verified, content-addressed, read-only copies of skills (invariant 3: what runs is what
 * was approved). {@link prepare} hashes the live folder and compares it with the approved
 * hash, refuses links, hardlinks, special and setuid/setgid files, then reuses the snapshot
 * of that hash or copies the bytes into a new one and hashes the copy again, so a file
 * swapped between the check and the copy is caught. Synchronous on purpose: within one
 * process two runs never copy the same skill at once; across processes the final rename
 * decides and the loser uses the winner's snapshot.
 */
export class SnapshotStore {
  /** `<data>/runs/snapshots`. */
  readonly folder: string;
  readonly #keep: () => number;
  readonly #beforeCopy: ((folder: string) => void) | undefined;
  readonly #inUse = new Map<string, number>();

  constructor(options: SnapshotStoreOptions) {
    this.folder = runsFolders(options.dataFolder).snapshots;
    const keep = options.keep ?? DEFAULT_SNAPSHOTS_KEPT;
    this.#keep = typeof keep === "function" ? keep : () => keep;
    this.#beforeCopy = options.beforeCopy;
  }

  /** The folder a snapshot of `hash` has (or would have). */
  folderOf(hash: string): string {
    return join(this.folder, hash);
  }

  /**
   * Verifies the live folder against the approved hash and returns the snapshot to run
   * from. The snapshot counts as in use (pruning skips it) until {@link release}.
   */
  prepare(request: SnapshotRequest): SnapshotOutcome {
    if (!/^[0-9a-f]{64}$/.test(request.hash))
      return fail(
        refusal(
          "skill_changed",
          `${request.skill} has no valid approved hash; ${request.script} did not run.`,
        ),
      );
    const live = hashSkillFolder(request.folder);
    if (live.hash === undefined) return fail(unreadable(request, live));
    if (live.hash !== request.hash) return fail(changed(request, "after this call was approved"));
    const problem = checkEntries(request, live.entries);
    if (problem !== undefined) return fail(problem);
    const target = this.folderOf(request.hash);
    try {
      const existing = this.#reuse(target, request.hash);
      if (existing !== undefined) return this.#acquire(existing);
      this.#beforeCopy?.(request.folder);
      const created = this.#create(request, live.entries, target);
      if (!created.ok) return created;
      pruneSnapshots(this.folder, this.#keep(), new Set(this.#inUse.keys()));
      return this.#acquire(created.snapshot);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      return fail(
        refusal(
          "snapshot_failed",
          `${request.skill} could not be copied to a snapshot (${code}), so ${request.script} did not run; tell the host's owner.`,
        ),
      );
    }
  }

  /** Ends a run's use of a snapshot. */
  release(snapshot: VerifiedSnapshot): void {
    const count = (this.#inUse.get(snapshot.hash) ?? 1) - 1;
    if (count <= 0) this.#inUse.delete(snapshot.hash);
    else this.#inUse.set(snapshot.hash, count);
  }

  #acquire(snapshot: VerifiedSnapshot): SnapshotOutcome {
    this.#inUse.set(snapshot.hash, (this.#inUse.get(snapshot.hash) ?? 0) + 1);
    return { ok: true, snapshot };
  }

  /**
   * An existing snapshot of `hash`, hashed again (it is the owner's folder, and a trusted
   * local script runs as the owner) and marked as just used. A snapshot that no longer
   * matches is removed so it is made anew.
   */
  #reuse(target: string, hash: string): VerifiedSnapshot | undefined {
    const stats = lstatSync(target, { throwIfNoEntry: false });
    if (stats === undefined) return undefined;
    if (stats.isDirectory()) {
      const again = hashSkillFolder(target);
      if (again.hash === hash && again.entries.every((entry) => entry.kind === "file")) {
        const now = new Date();
        utimesSync(target, now, now);
        return { folder: target, hash, reused: true };
      }
    }
    discard(target, this.folder);
    return undefined;
  }

  #create(request: SnapshotRequest, entries: readonly HashedEntry[], target: string): SnapshotOutcome {
    mkdirSync(this.folder, { recursive: true, mode: 0o700 });
    const temporary = join(this.folder, `.tmp-${request.hash.slice(0, 8)}-${randomBytes(6).toString("hex")}`);
    mkdirSync(temporary, { mode: 0o700 });
    try {
      const copied = copyEntries(request, entries, temporary);
      if (copied !== undefined) return fail(copied);
      const again = hashSkillFolder(temporary);
      if (again.hash !== request.hash) return fail(changed(request, "while it was being copied"));
      sealFolders(temporary, entries);
      try {
        renameSync(temporary, target);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== "ENOTEMPTY" && code !== "EEXIST") throw error;
        // Another process made the same snapshot first: use it (it is verified like any other).
        const existing = this.#reuse(target, request.hash);
        if (existing === undefined) throw error;
        return { ok: true, snapshot: existing };
      }
      return { ok: true, snapshot: { folder: target, hash: request.hash, reused: false } };
    } finally {
      removeTree(temporary);
    }
  }
}

function fail(result: RunResult): SnapshotOutcome {
  return { ok: false, refusal: result };
}

function changed(request: SnapshotRequest, when: string): RunResult {
  return refusal(
    "skill_changed",
    `${request.skill} changed ${when} (its files no longer match hash ${request.hash.slice(0, 8)}), so ${request.script} did not run. Load the skill again and retry; the person may be asked again.`,
  );
}

function unreadable(request: SnapshotRequest, live: ContentHash): RunResult {
  const detail = live.diagnostics[0]?.message ?? "it cannot be read";
  return refusal(
    "skill_unreadable",
    `${request.skill} cannot be read right now (${detail}), so ${request.script} did not run; tell its owner.`,
  );
}

/**
 * Refuses what a snapshot never holds: symbolic links, hardlinked files (a second name for
 * a file outside the skill), devices, FIFOs, sockets, setuid/setgid files, and more than
 * {@link MAX_SNAPSHOT_BYTES} in all.
 */
function checkEntries(request: SnapshotRequest, entries: readonly HashedEntry[]): RunResult | undefined {
  let total = 0;
  for (const entry of entries) {
    const stats = lstatSync(join(request.folder, entry.path), { throwIfNoEntry: false });
    if (stats === undefined) return changed(request, "after this call was approved");
    const problem = entryProblem(request, entry.path, stats);
    if (problem !== undefined) return problem;
    total += stats.size;
  }
  if (total > MAX_SNAPSHOT_BYTES)
    return refusal(
      "snapshot_failed",
      `${request.skill} holds ${total} bytes, more than the ${MAX_SNAPSHOT_BYTES} a snapshot may hold, so ${request.script} did not run; tell its owner.`,
    );
  return undefined;
}

function entryProblem(request: SnapshotRequest, path: string, stats: Stats): RunResult | undefined {
  const tail = `so ${request.script} did not run; tell its owner.`;
  if (stats.isSymbolicLink())
    return refusal(
      "symlink_not_allowed",
      `${request.skill} holds a symbolic link (${path}); skills may hold only regular files, ${tail}`,
    );
  if (!stats.isFile()) {
    const kind = stats.isFIFO()
      ? "a FIFO"
      : stats.isSocket()
        ? "a socket"
        : stats.isBlockDevice() || stats.isCharacterDevice()
          ? "a device"
          : "a special file";
    return refusal(
      "special_file_not_allowed",
      `${request.skill} holds ${kind} (${path}); skills may hold only regular files, ${tail}`,
    );
  }
  if (stats.nlink > 1)
    return refusal(
      "hardlink_not_allowed",
      `${request.skill} holds a file with other names on this host (${path} is hardlinked); skills may hold only files of their own, ${tail}`,
    );
  if ((stats.mode & SETUID_OR_SETGID) !== 0)
    return refusal(
      "setuid_not_allowed",
      `${request.skill} holds a setuid or setgid file (${path}); skills may not, ${tail}`,
    );
  return undefined;
}

/**
 * Copies each regular file read with `O_NOFOLLOW | O_NONBLOCK` (a link or a pipe swapped
 * in is not followed and does not block) and checked again on its descriptor, into a
 * new file of mode 0444.
 */
function copyEntries(
  request: SnapshotRequest,
  entries: readonly HashedEntry[],
  temporary: string,
): RunResult | undefined {
  for (const entry of entries) {
    const source = join(request.folder, entry.path);
    let descriptor: number;
    try {
      descriptor = openSync(source, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ELOOP" || code === "ENOENT" || code === "ENXIO")
        return changed(request, "while it was being copied");
      throw error;
    }
    let bytes: Buffer;
    try {
      const stats = fstatSync(descriptor);
      const problem = entryProblem(request, entry.path, stats);
      if (problem !== undefined) return problem;
      bytes = readFileSync(descriptor);
    } finally {
      closeSync(descriptor);
    }
    const destination = join(temporary, entry.path);
    mkdirSync(dirname(destination), { recursive: true, mode: 0o700 });
    const output = openSync(
      destination,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o600,
    );
    try {
      let offset = 0;
      while (offset < bytes.length) offset += writeSync(output, bytes, offset, bytes.length - offset);
      // Set explicitly: the process umask must not decide whether a sandbox user can read it.
      fchmodSync(output, 0o444);
    } finally {
      closeSync(output);
    }
  }
  return undefined;
}

/** Folders become 0555, deepest first, once every file is in place. */
function sealFolders(root: string, entries: readonly HashedEntry[]): void {
  const folders = new Set<string>();
  for (const entry of entries) {
    let parent = dirname(entry.path);
    while (parent !== "." && parent !== "/" && !folders.has(parent)) {
      folders.add(parent);
      parent = dirname(parent);
    }
  }
  const deepestFirst = [...folders].sort((left, right) => right.split("/").length - left.split("/").length);
  for (const folder of deepestFirst) chmodSync(join(root, folder), 0o555);
  chmodSync(root, 0o555);
}
