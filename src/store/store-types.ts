import type { Diagnostic } from "../core/diagnostics.js";
import type { CheckedFile } from "./folder-check.js";
import type { ScriptCheckOptions } from "./import/script-check.js";
import type { ScriptProblem } from "./import/script-problems.js";
import type { StoreSource } from "./index-file.js";
import type { ChangeStepObserver } from "./journal.js";
import type { ReconcileFinding } from "./reconcile.js";

/** The options and results of the store's public methods (see `Store` in store.ts). */

export type { ChangeStep, ChangeStepObserver, FolderChange } from "./journal.js";

/** How to open a store. Every field is optional. */
export interface StoreOptions {
  /** The data folder; the store is `<data>/skills`. Default: `resolveFolders().data`. */
  readonly dataFolder?: string;
  /** The built-in skills folder. Default: the package's `skills/` folder. */
  readonly builtinFolder?: string;
  /** The clock for `updated` times. */
  readonly now?: () => Date;
  /**
   * After how long a lock whose holder stopped refreshing it is taken over (at least 2000,
   * default 10000). Holders refresh every second, so any value is safe between processes.
   */
  readonly lockStaleMs?: number;
  /** How long a write waits for the lock before `store_busy` (default 60000). */
  readonly lockWaitMs?: number;
  /**
   * Called after each step of a folder change (journal written, old folder moved aside, new
   * folder moved in, index.json committed): for tracing, and for crash tests that kill the
   * process at an exact step. It must not throw.
   */
  readonly onChangeStep?: ChangeStepObserver;
  /**
   * Syntax-check the scripts of every new version before it is published (docs/store.md, "The
   * script check"): a script that does not parse refuses the write with `script_check_failed`.
   * Default true; turn it off only in tests that need speed.
   */
  readonly checkScripts?: boolean;
  /** Options for the script check (timeouts, where checkers are looked up). */
  readonly scriptCheck?: ScriptCheckOptions;
}

/** What opening the store found: leftovers it cleaned up and disagreements it only reports. */
export interface StoreOpenReport {
  readonly revision: number;
  readonly findings: readonly ReconcileFinding[];
  /** Problems with built-in skill folders that were left out. */
  readonly builtinDiagnostics: readonly Diagnostic[];
}

/** Where a listed skill comes from: a store source, or the package's built-ins. */
export type ListedSource = StoreSource | "builtin";

/** One skill as listed: its recorded state. */
export interface StoreSkillSummary {
  readonly name: string;
  readonly source: ListedSource;
  readonly enabled: boolean;
  /** The content hash recorded in index.json (for built-ins: computed at open). */
  readonly hash: string;
  /** ISO time of the last change; absent for built-ins. */
  readonly updated?: string;
  readonly origin?: string;
  /** An assistant's draft the owner has enabled or written to: the assistant may not rewrite it. */
  readonly locked?: true;
}

/** One skill read completely: its state, SKILL.md text, files and the hash of what is on disk now. */
export interface StoreSkill extends StoreSkillSummary {
  /** The skill's folder (read-only for callers). */
  readonly folder: string;
  /** The hash recorded in index.json, when it differs from {@link StoreSkillSummary.hash} (a hand edit). */
  readonly recordedHash?: string;
  readonly description: string;
  /** The text of SKILL.md. */
  readonly skillFile: string;
  /** Every regular file, sorted by path. */
  readonly files: readonly CheckedFile[];
}

/** The state of a skill after a write, and the store revision that write produced. */
export interface ChangeResult {
  readonly name: string;
  readonly hash: string;
  readonly enabled: boolean;
  readonly source: StoreSource;
  readonly updated: string;
  readonly revision: number;
  /** Warnings from SKILL.md (never errors: those refuse the write). */
  readonly diagnostics: readonly Diagnostic[];
  /**
   * Scripts of this write that could not be syntax-checked (no checker installed, such as a
   * `.cs` script without `dotnet`; a timeout). Scripts that do not parse refuse the write.
   */
  readonly scriptWarnings: readonly ScriptProblem[];
}

/** Options of {@link Store.create}. */
export interface CreateOptions {
  /** Default `owner`. */
  readonly source?: StoreSource;
  /** Only the owner may create a skill enabled; every other new skill is saved disabled. */
  readonly enabled?: boolean;
}

/** Options of {@link Store.installFolder}. */
export interface InstallOptions {
  readonly source: StoreSource;
  /** Where it came from (a file name, an address), recorded in index.json. */
  readonly origin?: string;
  /** The name it must have; default: the `name` in its SKILL.md. */
  readonly name?: string;
  /**
   * Put it in place of the stored skill of its name (which must exist: `not_found`) instead
   * of refusing a taken name: the new version is saved disabled with its new hash.
   */
  readonly replace?: boolean;
}

/** Options of writes that can be conditional on the hash the caller last saw. */
export interface ExpectedHash {
  /** Refuse with `skill_changed` unless the skill's current hash is exactly this. */
  readonly expectedHash?: string;
}

/** Who a file write is made for: the owner (any path a person drives) or the assistant's drafts. */
export type WriteAuthor = "owner" | "assistant";

/** Options of {@link Store.updateFiles} and the one-file writes. */
export interface UpdateOptions extends ExpectedHash {
  /**
   * Default `owner`. An owner's write to an assistant's draft locks the draft for good. An
   * `assistant` write is allowed only on an unlocked draft: source `assistant`, never
   * enabled, never written by the owner and not edited by hand; otherwise `draft_locked`.
   */
  readonly author?: WriteAuthor;
}

/** Changes to a stored skill's files, applied together as one change by `updateFiles`. */
export interface FileChanges {
  /** Text files to create or replace (relative path → content, at most 256 KiB each). */
  readonly write?: Record<string, string>;
  /** Files to remove; each must exist. */
  readonly remove?: readonly string[];
  /** When true, every file not in `write` is removed: the skill becomes exactly `write`. */
  readonly replaceAll?: boolean;
}
