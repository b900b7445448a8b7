import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomically } from "../core/durable-fs.js";
import { isValidSkillName } from "../skill/fields.js";
import { StoreCorruptError } from "./errors.js";

/**
 * `index.json`: what the store knows about each skill beyond its files (docs/store.md, "Layout":
 * enabled state, source, updated time, hash), plus the store's revision. It is always replaced
 * whole and atomically, so a reader never sees half of it.
 */

/** The file name of the index inside `<data>/skills/`. */
export const INDEX_FILE = "index.json";
/**
 * A copy of the index's revision as a few bytes of text, so a poll is one small read. It
 * is written after index.json; index.json is the authority when they disagree.
 */
export const REVISION_FILE = ".revision";
/** The index format this code writes and reads. */
export const INDEX_VERSION = 1;

/** Who put a stored skill there. Built-in skills are not in the index; they are listed as `builtin`. */
export type StoreSource = "owner" | "assistant" | "zip" | "folder" | "github";
/** Every {@link StoreSource}, for validation and help texts. */
export const STORE_SOURCES: readonly StoreSource[] = ["owner", "assistant", "zip", "folder", "github"];

/** One skill's record in the index. */
export interface IndexEntry {
  readonly enabled: boolean;
  readonly source: StoreSource;
  /** When the skill's files or state last changed, as an ISO 8601 time. */
  readonly updated: string;
  /** The content hash of the folder (hex SHA-256) as of the last write. */
  readonly hash: string;
  /** Where an imported skill came from (a file name or an address), when known. */
  readonly origin?: string;
  /**
   * Set, for good, on an assistant's draft once the owner enabled it or wrote to it: the assistant
   * may never rewrite it again (docs/drafts-and-edits.md, "The lock on reviewed skills"). Absent
   * otherwise.
   */
  readonly locked?: true;
  /**
   * Hashes the skill had before, newest first, at most {@link MAX_PREVIOUS_HASHES}: so enabling
   * with an older hash can be told apart from a hash that was never this skill's.
   */
  readonly previousHashes?: readonly string[];
}

/** How many earlier hashes an index entry keeps. */
export const MAX_PREVIOUS_HASHES = 20;

/** The whole index. `skills` is a Map, so names like `constructor` are plain keys. */
export interface StoreIndex {
  readonly version: number;
  /** Increases by one with every change to the store. 0 for a store never written. */
  readonly revision: number;
  /** When the index was last written, as an ISO 8601 time; empty for a store never written. */
  readonly updated: string;
  readonly skills: ReadonlyMap<string, IndexEntry>;
}

/** The index of a store that was never written. */
export function emptyIndex(): StoreIndex {
  return { version: INDEX_VERSION, revision: 0, updated: "", skills: new Map() };
}

const HASH_PATTERN = /^[0-9a-f]{64}$/;
const ISO_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z$/;

/** Reads `index.json` from a store folder; a missing file is an empty index, a bad one is `store_corrupt`. */
export async function readIndex(storeFolder: string): Promise<StoreIndex> {
  const file = join(storeFolder, INDEX_FILE);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return emptyIndex();
    throw error;
  }
  return parseIndex(text, file);
}

/** Parses index text, checking every field; anything unexpected is a {@link StoreCorruptError}. */
export function parseIndex(text: string, file: string): StoreIndex {
  let raw: unknown;
  try {
    // Plain JSON.parse: own "constructor" keys are legal skill names and must survive.
    raw = JSON.parse(text);
  } catch (error) {
    throw new StoreCorruptError(file, `not JSON (${(error as Error).message})`);
  }
  const problem = (message: string): never => {
    throw new StoreCorruptError(file, message);
  };
  if (!isRecord(raw)) return problem("the top level is not an object");
  if (raw.version !== INDEX_VERSION)
    problem(`version is ${JSON.stringify(raw.version)}, not ${INDEX_VERSION}`);
  const revision = raw.revision;
  if (typeof revision !== "number" || !Number.isSafeInteger(revision) || revision < 0)
    problem("revision is not a whole number");
  const updated = raw.updated;
  if (typeof updated !== "string" || (updated !== "" && !ISO_PATTERN.test(updated)))
    problem("updated is not an ISO time");
  if (!isRecord(raw.skills)) return problem("skills is not an object");
  const skills = new Map<string, IndexEntry>();
  for (const name of Object.keys(raw.skills)) {
    if (!isValidSkillName(name)) problem(`${JSON.stringify(name)} is not a valid skill name`);
    skills.set(name, parseEntry(raw.skills[name], name, problem));
  }
  return { version: INDEX_VERSION, revision: revision as number, updated: updated as string, skills };
}

function parseEntry(raw: unknown, name: string, problem: (message: string) => never): IndexEntry {
  if (!isRecord(raw)) return problem(`the entry of "${name}" is not an object`);
  if (typeof raw.enabled !== "boolean") problem(`"${name}".enabled is not true or false`);
  if (typeof raw.source !== "string" || !(STORE_SOURCES as readonly string[]).includes(raw.source))
    problem(`"${name}".source is not one of ${STORE_SOURCES.join(", ")}`);
  if (typeof raw.updated !== "string" || !ISO_PATTERN.test(raw.updated))
    problem(`"${name}".updated is not an ISO time`);
  if (typeof raw.hash !== "string" || !HASH_PATTERN.test(raw.hash))
    problem(`"${name}".hash is not a hex SHA-256`);
  if (raw.origin !== undefined && typeof raw.origin !== "string") problem(`"${name}".origin is not text`);
  if (raw.locked !== undefined && raw.locked !== true) problem(`"${name}".locked is not true`);
  const previous = raw.previousHashes;
  if (
    previous !== undefined &&
    (!Array.isArray(previous) ||
      !previous.every((hash) => typeof hash === "string" && HASH_PATTERN.test(hash)))
  )
    problem(`"${name}".previousHashes is not a list of hex SHA-256`);
  const entry: IndexEntry = {
    enabled: raw.enabled as boolean,
    source: raw.source as StoreSource,
    updated: raw.updated as string,
    hash: raw.hash as string,
    ...(typeof raw.origin === "string" ? { origin: raw.origin } : {}),
    ...(raw.locked === true ? { locked: true } : {}),
    ...(Array.isArray(previous) && previous.length > 0
      ? { previousHashes: (previous as string[]).slice(0, MAX_PREVIOUS_HASHES) }
      : {}),
  };
  return entry;
}

/** The index as the text written to disk: names sorted, two-space indent, a final newline. */
export function serialiseIndex(index: StoreIndex): string {
  const skills: Record<string, IndexEntry> = {};
  for (const name of [...index.skills.keys()].sort()) {
    const entry = index.skills.get(name) as IndexEntry;
    Object.defineProperty(skills, name, {
      value: entry,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  const document = { version: index.version, revision: index.revision, updated: index.updated, skills };
  return `${JSON.stringify(document, null, 2)}\n`;
}

/**
 * Writes the index atomically, then the revision file. A crash between the two leaves the
 * revision file one behind; the next store open or write rewrites it.
 */
export async function writeIndex(storeFolder: string, index: StoreIndex): Promise<void> {
  await writeIndexFile(storeFolder, index);
  await writeRevisionFile(storeFolder, index.revision);
}

/** Writes index.json alone, atomically: the commit point of every change. */
export async function writeIndexFile(storeFolder: string, index: StoreIndex): Promise<void> {
  await writeFileAtomically(join(storeFolder, INDEX_FILE), serialiseIndex(index));
}

/** Writes the revision file alone (used when it is found behind index.json). */
export async function writeRevisionFile(storeFolder: string, revision: number): Promise<void> {
  await writeFileAtomically(join(storeFolder, REVISION_FILE), `${revision}\n`);
}

/** Reads the revision file; `undefined` when it is missing or not a number. */
export async function readRevisionFile(storeFolder: string): Promise<number | undefined> {
  try {
    const text = await readFile(join(storeFolder, REVISION_FILE), "utf8");
    const value = Number(text.trim());
    return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The revision file's identity and times (inode, size, modification and change times in
 * nanoseconds) as one string; `undefined` when it is missing. The file is replaced whole on
 * every write (a new file renamed over the old), so the stamp changes whenever the revision
 * may have moved: one `stat` tells a poller whether to read it.
 */
export async function revisionFileStamp(storeFolder: string): Promise<string | undefined> {
  try {
    const stats = await stat(join(storeFolder, REVISION_FILE), { bigint: true });
    return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
