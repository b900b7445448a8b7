import { StoreError } from "../errors.js";

/**
 * What a draft carries in its SKILL.md `metadata`, and its limits (docs/drafts-and-edits.md,
 * "Drafts" and "Limits and refusals"). These keys describe who wrote a skill and why; they are read
 * by listings and by the draft lock, never by the policy or a runner.
 */

/** The metadata keys of drafts. */
export const DRAFT_KEYS = {
  /** `assistant` for a skill the assistant drafted. */
  author: "skillgate.author",
  /** The chats that motivated the draft, comma-separated ids. */
  sourceChats: "skillgate.source-chats",
  /** Why the assistant wrote it, at most {@link MAX_RATIONALE_LENGTH} characters. */
  rationale: "skillgate.rationale",
  /** The review lint warnings, joined into one line. */
  reviewWarnings: "skillgate.review-warnings",
  /** When the owner last edited it (an ISO time): set by owner edits, it locks a draft for good. */
  lastEdit: "skillgate.last-edit",
} as const;

/** The `skillgate.author` value of drafts. */
export const ASSISTANT_AUTHOR = "assistant";
/** Source chats a draft may name. Over it: `too_many_source_chats`. */
export const MAX_SOURCE_CHATS = 10;
/** Characters of a draft's rationale. Over it: `rationale_too_long`. */
export const MAX_RATIONALE_LENGTH = 1_000;
/** Characters of one chat id. */
export const MAX_CHAT_ID_LENGTH = 200;

/** A draft names more than {@link MAX_SOURCE_CHATS} source chats. */
export class TooManySourceChatsError extends StoreError<{ count: number; limit: number }> {
  constructor(count: number, limit: number) {
    super("too_many_source_chats", `a draft names ${count} source chats; the limit is ${limit}`, {
      count,
      limit,
    });
  }
}

/** A draft's rationale is longer than {@link MAX_RATIONALE_LENGTH} characters. */
export class RationaleTooLongError extends StoreError<{ length: number; limit: number }> {
  constructor(length: number, limit: number) {
    super("rationale_too_long", `a draft's rationale is ${length} characters; the limit is ${limit}`, {
      length,
      limit,
    });
  }
}
