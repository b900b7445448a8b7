import { readdir } from "node:fs/promises";
import { join } from "node:path";
import type { Diagnostic } from "../core/diagnostics.js";
import { TEMP_PREFIX } from "../core/durable-fs.js";
import { hashSkillFolder } from "../skill/content-hash.js";
import { isValidSkillName } from "../skill/fields.js";
import { loadSkillFolder } from "../skill/load-skill.js";
import type { BuiltinSkill } from "./builtins.js";
import { PLANS_FOLDER } from "./edits/plan-files.js";
import { INDEX_FILE, REVISION_FILE, type StoreIndex } from "./index-file.js";
import { JOURNAL_FILE, STAGING_FOLDER, TRASH_FOLDER } from "./journal.js";
import { LOCK_NAME } from "./lock.js";
import { REVIEWS_FILE } from "./reviews.js";

/**
 * Reconciliation compares index.json with the skill folders and reports what disagrees. It
 * never changes a skill: a folder someone copied in by hand, or a file someone edited, may
 * be exactly what its owner wants, so the owner decides. (Leftovers of the store's own
 * interrupted writes are a different matter; see `cleanLeftovers` in the store.)
 */

/** What a finding is about. */
export type FindingKind =
  /** A skill folder that index.json does not list: not part of the store until imported. */
  | "folder_without_entry"
  /** An index entry whose folder is missing. */
  | "entry_without_folder"
  /** A folder whose content hash is not the one index.json recorded: edited by hand. */
  | "hash_mismatch"
  /** A listed skill whose SKILL.md no longer loads or is no longer valid. */
  | "skill_invalid"
  /** A stored skill with the name of a built-in: the built-in wins. */
  | "shadowed_by_builtin"
  /** Something in the store folder that the store did not put there. */
  | "unexpected_entry"
  /** A staging folder of a process that is gone (removed when found by an open). */
  | "leftover_staging"
  /** A folder moved aside by a finished replace or delete (removed when found). */
  | "leftover_trash"
  /** A temporary file of an interrupted atomic write (removed when found). */
  | "leftover_temporary"
  /** A change that was interrupted and was finished or rolled back from the journal. */
  | "interrupted_change";

/** One disagreement or leftover, as data. */
export interface ReconcileFinding {
  readonly kind: FindingKind;
  /** The skill it concerns, when there is one. */
  readonly name?: string;
  /** The file or folder, absolute. */
  readonly path: string;
  readonly message: string;
  /** For `hash_mismatch`: the hash index.json recorded. */
  readonly recordedHash?: string;
  /** For `hash_mismatch`: the hash the folder has now. */
  readonly actualHash?: string;
  /** For `skill_invalid`: the problems found. */
  readonly diagnostics?: readonly Diagnostic[];
  /** True when the store removed it (leftovers only). */
  readonly removed?: boolean;
}

const KNOWN_ROOT_ENTRIES = new Set([
  INDEX_FILE,
  REVISION_FILE,
  JOURNAL_FILE,
  LOCK_NAME,
  STAGING_FOLDER,
  TRASH_FOLDER,
  PLANS_FOLDER,
  REVIEWS_FILE,
]);

/**
 * Compares index.json with the folders of `store`: folders without an entry, entries
 * without a folder, hashes that do not match (every listed folder is hashed), skills that
 * no longer load, stored names that a built-in shadows and anything else in the folder.
 * Reads only.
 */
export async function reconcileFolders(
  store: string,
  index: StoreIndex,
  builtins: ReadonlyMap<string, BuiltinSkill>,
): Promise<ReconcileFinding[]> {
  const findings: ReconcileFinding[] = [];
  const folders = new Set<string>();
  const entries = await readdir(store, { withFileTypes: true });
  entries.sort((left, right) => (left.name < right.name ? -1 : 1));
  for (const entry of entries) {
    const path = join(store, entry.name);
    if (KNOWN_ROOT_ENTRIES.has(entry.name) || entry.name.startsWith(TEMP_PREFIX)) continue;
    if (!entry.isDirectory() || !isValidSkillName(entry.name)) {
      findings.push({
        kind: "unexpected_entry",
        path,
        message: `${entry.name} is not a skill folder the store made; it is ignored`,
      });
      continue;
    }
    folders.add(entry.name);
    const recorded = index.skills.get(entry.name);
    if (recorded === undefined) {
      findings.push({
        kind: "folder_without_entry",
        name: entry.name,
        path,
        message: `folder ${entry.name} is not in index.json; it is not part of the store until it is imported`,
      });
      continue;
    }
    if (builtins.has(entry.name)) {
      findings.push({
        kind: "shadowed_by_builtin",
        name: entry.name,
        path,
        message: `stored skill ${entry.name} has the name of a built-in skill; the built-in is used`,
      });
    }
    const hashed = hashSkillFolder(path);
    if (hashed.hash !== recorded.hash) {
      findings.push({
        kind: "hash_mismatch",
        name: entry.name,
        path,
        message: `folder ${entry.name} changed outside the store: its hash no longer matches index.json`,
        recordedHash: recorded.hash,
        ...(hashed.hash !== undefined ? { actualHash: hashed.hash } : {}),
      });
    }
    const loaded = loadSkillFolder(path, { source: "store" });
    const errors = [...hashed.diagnostics, ...loaded.diagnostics].filter((item) => item.severity === "error");
    if (loaded.skill === undefined || errors.length > 0) {
      findings.push({
        kind: "skill_invalid",
        name: entry.name,
        path,
        message: `skill ${entry.name} does not load cleanly: ${errors[0]?.message ?? "unknown problem"}`,
        diagnostics: errors,
      });
    }
  }
  for (const name of index.skills.keys()) {
    if (!folders.has(name)) {
      findings.push({
        kind: "entry_without_folder",
        name,
        path: join(store, name),
        message: `index.json lists ${name}, but its folder is missing`,
      });
    }
  }
  return findings;
}
