import { join } from "node:path";
import type { Diagnostic } from "../../core/diagnostics.js";
import type { Governance } from "../../skill/governance.js";
import { loadSkillText } from "../../skill/load-skill.js";
import { type DraftMetadata, draftMetadataOf } from "../../store/drafts/draft-metadata.js";
import type { ListedSource } from "../../store/store-types.js";

/**
 * What the owner's views read out of one skill's SKILL.md text: its description, governance,
 * draft keys and load problems. One parse serves the list and the detail page alike.
 */
export interface SkillFileFacts {
  readonly description: string;
  /** Undefined when SKILL.md does not load. */
  readonly governance: Governance | undefined;
  readonly draft: DraftMetadata;
  readonly diagnostics: readonly Diagnostic[];
}

/** Reads {@link SkillFileFacts} from SKILL.md text of the skill in `folder`. Never throws: the text is user content. */
export function skillFileFacts(skillFile: string, folder: string, source: ListedSource): SkillFileFacts {
  const loaded = loadSkillText(skillFile, folder, { source });
  const skill = loaded.skill;
  return {
    description: skill?.description ?? "",
    governance: skill?.governance,
    draft: draftMetadataOf(skill?.fields?.metadata ?? {}),
    diagnostics: loaded.diagnostics,
  };
}

/**
 * Who wrote a skill, as the owner's pages show it: the `skillgate.author` its SKILL.md
 * records (`assistant` for drafts), else `builtin` for the package's skills, else its store
 * source (`owner`, `zip`, `folder`, `github`; the same rule as the `list_skills` tool).
 */
export function authorOf(source: ListedSource, draft: DraftMetadata): string {
  return draft.author ?? source;
}

/** The folder of a stored (not built-in) skill. */
export function storedSkillFolder(storeFolder: string, name: string): string {
  return join(storeFolder, name);
}
