import { SKILL_FILE } from "../../skill/read-skill-file.js";
import { editFrontMatter } from "../edits/front-matter-edit.js";
import type { Store } from "../store.js";
import type { ChangeResult, FileChanges } from "../store-types.js";
import { ASSISTANT_AUTHOR, DRAFT_KEYS } from "./draft-keys.js";
import { readDraftMetadata } from "./draft-metadata.js";

/**
 * Owner edits of a drafted skill (docs/drafts-and-edits.md, "The lock on reviewed skills"): an
 * owner's edit sets `skillgate.last-edit` in its SKILL.md, so anyone reading the skill sees the
 * owner took it over. The store locks the draft for the assistant on any owner write anyway
 * (index.json `locked`); the key is the visible record of it.
 */

/** SKILL.md text with `skillgate.last-edit` set to `now`; everything else is kept as it was. */
export function markOwnerEdit(skillFile: string, name: string, now: Date): string {
  return editFrontMatter(skillFile, name, { metadata: { [DRAFT_KEYS.lastEdit]: now.toISOString() } });
}

/** Options of {@link updateAsOwner}. */
export interface OwnerUpdateOptions {
  /** Refuse with `skill_changed` unless the skill has this hash (what the owner was looking at). */
  readonly expectedHash?: string;
  /** The clock for `skillgate.last-edit`. */
  readonly now?: () => Date;
}

/**
 * The owner's write path for a stored skill (the web editor, the CLI): writes `changes` as
 * the owner and, when the skill was drafted by the assistant, stamps `skillgate.last-edit`
 * into its SKILL.md in the same change. When the stamp goes into a SKILL.md the change did
 * not include, the write is pinned to the hash that SKILL.md was read at, so a concurrent
 * change is never overwritten by the stamp (`skill_changed`, try again).
 */
export async function updateAsOwner(
  store: Store,
  name: string,
  changes: FileChanges,
  options: OwnerUpdateOptions = {},
): Promise<ChangeResult> {
  const now = (options.now ?? (() => new Date()))();
  const written = changes.write?.[SKILL_FILE];
  let expectedHash = options.expectedHash;
  let skillFile = written;
  if (skillFile === undefined && changes.replaceAll !== true) {
    const current = await store.get(name);
    skillFile = current.skillFile;
    expectedHash ??= current.hash;
  }
  const write = { ...(changes.write ?? {}) };
  if (skillFile !== undefined && readDraftMetadata(skillFile).author === ASSISTANT_AUTHOR)
    write[SKILL_FILE] = markOwnerEdit(skillFile, name, now);
  else if (written === undefined) expectedHash = options.expectedHash;
  return store.updateFiles(
    name,
    { ...changes, write },
    { author: "owner", ...(expectedHash !== undefined ? { expectedHash } : {}) },
  );
}
