import { SkillChangedError, UnknownHashError } from "./errors.js";
import { type IndexEntry, MAX_PREVIOUS_HASHES } from "./index-file.js";

/**
 * The hashes a stored skill had, so that enabling with a wrong hash says which case it is
 * (docs/store.md, "Enabling"): a version the skill really had, or a hash that was never its own.
 *
 * `next` with the hash `before` had added to its earlier hashes when it changed (newest
 * first, the current one never among them, at most {@link MAX_PREVIOUS_HASHES}).
 */
export function withPreviousHashes(before: IndexEntry | undefined, next: IndexEntry): IndexEntry {
  if (before === undefined || before.hash === next.hash) return next;
  const previous = [before.hash, ...(before.previousHashes ?? [])]
    .filter((hash, position, all) => hash !== next.hash && all.indexOf(hash) === position)
    .slice(0, MAX_PREVIOUS_HASHES);
  return { ...next, previousHashes: previous };
}

/**
 * Why enabling with `reviewed` is refused: a hash the skill had (the recorded one, after a
 * hand edit, or an earlier version) means it changed since that review (`skill_changed`);
 * any other is not this skill's at all, most likely mistyped (`unknown_hash`).
 */
export function enableMismatch(name: string, entry: IndexEntry, reviewed: string, current: string): Error {
  if (reviewed === entry.hash) return new SkillChangedError(name, reviewed, current, "recorded");
  if (entry.previousHashes?.includes(reviewed))
    return new SkillChangedError(name, reviewed, current, "earlier");
  return new UnknownHashError(name, reviewed, current);
}
