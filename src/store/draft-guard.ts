import { DraftLockedError } from "./errors.js";
import type { IndexEntry } from "./index-file.js";

/**
 * Refuses an assistant's write to anything but its own untouched draft: a skill of another
 * source, a draft the owner enabled or wrote to (locked), an enabled one, or one edited by
 * hand (its folder no longer has the recorded hash).
 */
export function checkDraftWritable(name: string, entry: IndexEntry, currentHash: string): void {
  if (entry.source !== "assistant") throw new DraftLockedError(name, "not_a_draft");
  if (entry.locked === true) throw new DraftLockedError(name, "locked");
  if (entry.enabled) throw new DraftLockedError(name, "enabled");
  if (currentHash !== entry.hash) throw new DraftLockedError(name, "edited_by_hand");
}
