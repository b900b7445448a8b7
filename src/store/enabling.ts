import { enableMismatch } from "./hash-history.js";
import type { IndexEntry } from "./index-file.js";

/**
 * The index entry after the owner enables `entry`, whose folder hashes to `current` now, with
 * the hash they reviewed; undefined when it is enabled at that hash already (nothing to write).
 * A reviewed hash that is not the current one is refused, saying which case it is
 * (`skill_changed` for a hash the skill had, `unknown_hash` otherwise; docs/store.md).
 * Enabling an assistant's draft is the owner's review of it: the draft is locked for good.
 */
export function enabledEntry(
  name: string,
  entry: IndexEntry,
  current: string,
  reviewed: string | undefined,
  now: Date,
): IndexEntry | undefined {
  if (current !== reviewed) throw enableMismatch(name, entry, reviewed ?? "", current);
  const locks = entry.source === "assistant";
  if (entry.enabled && entry.hash === current && (!locks || entry.locked === true)) return undefined;
  return {
    ...entry,
    enabled: true,
    hash: current,
    updated: now.toISOString(),
    ...(locks ? { locked: true } : {}),
  };
}
