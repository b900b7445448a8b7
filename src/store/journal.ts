import { readFile } from "node:fs/promises";
import { basename, join } from "node:path";
import {
  exists,
  makeFolder,
  removeFileDurably,
  renameDurably,
  uniqueSuffix,
  writeFileAtomically,
} from "../core/durable-fs.js";
import { removeTree } from "../core/remove-tree.js";
import { StoreCorruptError } from "./errors.js";
import { readIndex } from "./index-file.js";

/**
 * The journal makes a folder change and its index.json update one atomic step. Before a
 * skill folder is renamed, `.journal.json` records what is about to happen and the revision
 * index.json will have once it is done. index.json is the commit point: when a writer dies,
 * the next writer (or the next open) finds the journal and compares revisions — committed
 * means only cleanup is left; not committed means the folder renames are undone, so the
 * folders agree with index.json again. At most one journal exists: it is written and
 * removed under the store's lock.
 */

/** The journal file's name inside `<data>/skills/`. */
export const JOURNAL_FILE = ".journal.json";
/** Folders being prepared: `<data>/skills/.staging/<pid>-<random>`. */
export const STAGING_FOLDER = ".staging";
/** Folders moved aside by a replace or delete, removed once the change is committed. */
export const TRASH_FOLDER = ".trash";

/** A change of one skill folder. `staged` is an absolute folder under `.staging/`. */
export type FolderChange =
  | { readonly kind: "create"; readonly name: string; readonly staged: string }
  | { readonly kind: "replace"; readonly name: string; readonly staged: string }
  | { readonly kind: "delete"; readonly name: string };

interface JournalRecord {
  readonly version: 1;
  /** The revision index.json has once this change is committed. */
  readonly revision: number;
  readonly kind: FolderChange["kind"];
  readonly name: string;
  /** Folder name below `.staging/`, for create and replace. */
  readonly staged?: string;
  /** Folder name below `.trash/`, for replace and delete. */
  readonly trash?: string;
}

/**
 * The points of a folder change, in order: the journal is on disk; the old folder is in
 * `.trash/` (replace, delete); the new folder is in place (create, replace); index.json is
 * written. A crash between any two of them is recovered from the journal.
 */
export type ChangeStep = "journal_written" | "moved_aside" | "moved_in" | "committed";

/** Called after each {@link ChangeStep}: for tracing, and for crash tests that stop a process there. */
export type ChangeStepObserver = (step: ChangeStep, change: FolderChange) => void;

/** What recovery did with a journal it found. */
export interface JournalRecovery {
  readonly outcome: "finished" | "rolled_back";
  readonly kind: FolderChange["kind"];
  readonly name: string;
  readonly revision: number;
}

/**
 * Applies `change` to the folders and commits it by calling `commit`, which must write
 * index.json at `revision` and nothing else. A failure before the commit reached the disk
 * undoes the folder renames before it is rethrown; a failure after it is not a failure.
 * Cleanup after the commit is best effort and finished by the next writer.
 */
export async function applyFolderChange(
  store: string,
  change: FolderChange,
  revision: number,
  commit: () => Promise<void>,
  onStep: ChangeStepObserver = () => undefined,
): Promise<void> {
  const record: JournalRecord = {
    version: 1,
    revision,
    kind: change.kind,
    name: change.name,
    ...(change.kind !== "delete" ? { staged: basename(change.staged) } : {}),
    ...(change.kind !== "create" ? { trash: `${change.name}-${uniqueSuffix()}` } : {}),
  };
  await makeFolder(join(store, TRASH_FOLDER));
  await writeFileAtomically(join(store, JOURNAL_FILE), `${JSON.stringify(record)}\n`);
  onStep("journal_written", change);
  const live = join(store, change.name);
  try {
    if (record.trash !== undefined) {
      await renameDurably(live, join(store, TRASH_FOLDER, record.trash));
      onStep("moved_aside", change);
    }
    if (change.kind !== "delete") {
      await renameDurably(change.staged, live);
      onStep("moved_in", change);
    }
    await commit();
    onStep("committed", change);
  } catch (error) {
    // The commit may have reached the disk before the failure: index.json decides.
    const onDisk = await readIndex(store).then(
      (index) => index.revision,
      () => -1,
    );
    if (onDisk >= revision) {
      await finish(store, record).catch(() => undefined);
      return;
    }
    await rollBack(store, record).catch(() => undefined);
    throw error;
  }
  await finish(store, record).catch(() => undefined);
}

/**
 * Finishes or undoes an interrupted change, given the revision index.json has now. Call
 * only while holding the lock. Returns `undefined` when there was no journal.
 */
export async function recoverJournal(
  store: string,
  indexRevision: number,
): Promise<JournalRecovery | undefined> {
  const file = join(store, JOURNAL_FILE);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  const record = parseJournal(text, file);
  const committed = indexRevision >= record.revision;
  if (committed) await finish(store, record);
  else await rollBack(store, record);
  return {
    outcome: committed ? "finished" : "rolled_back",
    kind: record.kind,
    name: record.name,
    revision: record.revision,
  };
}

async function finish(store: string, record: JournalRecord): Promise<void> {
  await removeFileDurably(join(store, JOURNAL_FILE));
  if (record.trash !== undefined) removeTree(join(store, TRASH_FOLDER, record.trash));
  if (record.staged !== undefined) removeTree(join(store, STAGING_FOLDER, record.staged));
}

/** Puts the folders back as index.json (not yet committed) describes them, then drops the journal. */
async function rollBack(store: string, record: JournalRecord): Promise<void> {
  const live = join(store, record.name);
  const staged = record.staged === undefined ? undefined : join(store, STAGING_FOLDER, record.staged);
  const trash = record.trash === undefined ? undefined : join(store, TRASH_FOLDER, record.trash);
  const liveExists = await exists(live);
  if (trash !== undefined && (await exists(trash))) {
    // The old folder was moved aside: whatever is live now is the new one.
    if (liveExists) await renameDurably(live, `${trash}-new`);
    await renameDurably(trash, live);
    removeTree(`${trash}-new`);
  } else if (record.kind === "create" && staged !== undefined && !(await exists(staged)) && liveExists) {
    // The staged folder was renamed in: the name did not exist before, so the live one is the new one.
    const aside = join(store, TRASH_FOLDER, `${record.name}-${uniqueSuffix()}`);
    await renameDurably(live, aside);
    removeTree(aside);
  }
  if (staged !== undefined) removeTree(staged);
  await removeFileDurably(join(store, JOURNAL_FILE));
}

function parseJournal(text: string, file: string): JournalRecord {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new StoreCorruptError(file, `not JSON (${(error as Error).message})`);
  }
  const value = raw as Partial<Record<keyof JournalRecord, unknown>> | null;
  const safeName = (name: unknown) => typeof name === "string" && /^[a-z0-9][a-z0-9-]*$/.test(name);
  if (
    value === null ||
    typeof value !== "object" ||
    value.version !== 1 ||
    typeof value.revision !== "number" ||
    !["create", "replace", "delete"].includes(value.kind as string) ||
    !safeName(value.name) ||
    (value.staged !== undefined && !safeName(value.staged)) ||
    (value.trash !== undefined && !safeName(value.trash))
  ) {
    throw new StoreCorruptError(file, "the journal does not have the expected shape");
  }
  return value as JournalRecord;
}
