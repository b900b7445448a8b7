import { isValidSkillName } from "../../skill/fields.js";
import { SKILL_FILE } from "../../skill/read-skill-file.js";
import type { DraftLockReason } from "../errors.js";
import type { Store } from "../store.js";
import { type DraftMetadata, readDraftMetadata, readSkillFileSummary } from "./draft-metadata.js";

/**
 * Whether the assistant may still rewrite a skill (docs/drafts-and-edits.md, "The lock on reviewed
 * skills"), for the policy rule `drafts-never-touch-reviewed-skills` and for listings. A draft is
 * the assistant's while it is untouched: stored with source `assistant`, never enabled, never
 * written by the owner, not edited by hand, and without `skillgate.last-edit`. Anything else with
 * the name is locked for the assistant. The store enforces the same rule under its lock when the
 * draft is written, so this answer is advice for the policy, never the only guard.
 */

/**
 * Why the assistant may not write skill `name`, or `undefined` when it may: the name is
 * free (a new draft) or holds its own untouched draft. A name that is not a valid skill
 * name is free here; drafting it is refused for the name.
 */
export async function draftLockReason(store: Store, name: string): Promise<DraftLockReason | undefined> {
  if (!isValidSkillName(name)) return undefined;
  if (store.isBuiltIn(name)) return "builtin";
  const summary = (await store.list()).find((skill) => skill.name === name);
  if (summary === undefined) return undefined;
  if (summary.source !== "assistant") return "not_a_draft";
  if (summary.locked === true) return "locked";
  if (summary.enabled) return "enabled";
  const skill = await store.get(name).catch(() => undefined);
  // A listed skill that cannot be read (its folder removed by hand) is not the assistant's to repair.
  if (skill === undefined) return "edited_by_hand";
  if (skill.recordedHash !== undefined) return "edited_by_hand";
  if (readDraftMetadata(skill.skillFile).lastEdit !== undefined) return "owner_edited";
  return undefined;
}

/** `draftTargetLocked` for the policy: true when a `draft_skill` call must not write `name`. */
export async function isDraftLocked(store: Store, name: string): Promise<boolean> {
  return (await draftLockReason(store, name)) !== undefined;
}

/** One draft as listed for review. */
export interface DraftSummary extends DraftMetadata {
  readonly name: string;
  readonly description: string;
  readonly enabled: boolean;
  /** The owner enabled or edited it: the assistant can no longer rewrite it. */
  readonly locked: boolean;
  readonly hash: string;
  readonly updated?: string;
}

/**
 * Every skill the assistant drafted (source `assistant`), sorted by name, with its author,
 * source chats, rationale and review warnings. `locked` comes from the index and the
 * draft keys; a hand edit is noticed by {@link draftLockReason}, which hashes the folder.
 */
export async function listDrafts(store: Store): Promise<DraftSummary[]> {
  const drafts: DraftSummary[] = [];
  for (const summary of await store.list()) {
    if (summary.source !== "assistant") continue;
    let text = "";
    try {
      text = Buffer.from(await store.readFile(summary.name, SKILL_FILE)).toString("utf8");
    } catch {
      // Listed but unreadable: shown with no metadata; reconcile reports the folder.
    }
    const { description, metadata } = readSkillFileSummary(text);
    drafts.push({
      ...metadata,
      name: summary.name,
      description,
      enabled: summary.enabled,
      locked: summary.locked === true || summary.enabled || metadata.lastEdit !== undefined,
      hash: summary.hash,
      ...(summary.updated !== undefined ? { updated: summary.updated } : {}),
    });
  }
  return drafts;
}
