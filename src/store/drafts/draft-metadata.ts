import { loadSkillText } from "../../skill/load-skill.js";
import { DRAFT_KEYS } from "./draft-keys.js";

/** Who wrote a skill and why, as its SKILL.md records it. */
export interface DraftMetadata {
  /** `skillgate.author` (`assistant` for drafts); absent when not recorded. */
  readonly author?: string;
  readonly sourceChats: readonly string[];
  readonly rationale?: string;
  readonly reviewWarnings?: string;
  /** `skillgate.last-edit`: when the owner last edited it. */
  readonly lastEdit?: string;
}

/** Reads the draft keys from SKILL.md text; a file that does not load has none. */
export function readDraftMetadata(skillFile: string): DraftMetadata {
  return readSkillFileSummary(skillFile).metadata;
}

/** The description and draft keys of SKILL.md text, from one parse. */
export function readSkillFileSummary(skillFile: string): { description: string; metadata: DraftMetadata } {
  const skill = loadSkillText(skillFile, "/draft", { source: "store" }).skill;
  return { description: skill?.description ?? "", metadata: draftMetadataOf(skill?.fields?.metadata ?? {}) };
}

/** The draft keys of a parsed `metadata` mapping. */
export function draftMetadataOf(metadata: Readonly<Record<string, unknown>>): DraftMetadata {
  const text = (key: string): string | undefined => {
    const value = metadata[key];
    return typeof value === "string" && value !== "" ? value : undefined;
  };
  const chats = text(DRAFT_KEYS.sourceChats);
  const author = text(DRAFT_KEYS.author);
  const rationale = text(DRAFT_KEYS.rationale);
  const reviewWarnings = text(DRAFT_KEYS.reviewWarnings);
  const lastEdit = text(DRAFT_KEYS.lastEdit);
  return {
    sourceChats:
      chats === undefined
        ? []
        : chats
            .split(",")
            .map((chat) => chat.trim())
            .filter((chat) => chat !== ""),
    ...(author !== undefined ? { author } : {}),
    ...(rationale !== undefined ? { rationale } : {}),
    ...(reviewWarnings !== undefined ? { reviewWarnings } : {}),
    ...(lastEdit !== undefined ? { lastEdit } : {}),
  };
}
