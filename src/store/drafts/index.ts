/**
 * Drafts (docs/drafts-and-edits.md, "Drafts"): the assistant writes skills that are saved
 * disabled, carry who wrote them and why, and stay the assistant's only until the owner
 * enables or edits them.
 */

export { DRAFT_ARGUMENT_SPEC, type DraftInput, readDraftArguments } from "./draft-arguments.js";
export {
  ASSISTANT_AUTHOR,
  DRAFT_KEYS,
  MAX_CHAT_ID_LENGTH,
  MAX_RATIONALE_LENGTH,
  MAX_SOURCE_CHATS,
  RationaleTooLongError,
  TooManySourceChatsError,
} from "./draft-keys.js";
export { type DraftMetadata, readDraftMetadata } from "./draft-metadata.js";
export { type DraftResult, draftSkill } from "./draft-skill.js";
export { type DraftSummary, draftLockReason, isDraftLocked, listDrafts } from "./draft-state.js";
export { markOwnerEdit, type OwnerUpdateOptions, updateAsOwner } from "./owner-edits.js";
