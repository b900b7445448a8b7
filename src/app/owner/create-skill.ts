import { SKILL_FILE } from "../../skill/read-skill-file.js";
import type { Store } from "../../store/store.js";
import type { ChangeResult } from "../../store/store-types.js";

/** What the owner gives to create a skill (docs/http-api.md, `POST /api/skills`). */
export interface NewOwnerSkill {
  readonly name: string;
  /** Used to write a SKILL.md when `files` holds none. */
  readonly description?: string;
  /** Text files, path → content; SKILL.md among them, or made from `name` and `description`. */
  readonly files?: Readonly<Record<string, string>>;
  /** Only the owner may create a skill enabled; default disabled. */
  readonly enabled?: boolean;
}

/**
 * A SKILL.md for a new skill: its name and description in the front matter (the description
 * quoted as JSON, which YAML reads as the same string), and a heading to write under.
 */
export function newSkillFile(name: string, description: string): string {
  return `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n---\n\n# ${name}\n`;
}

/**
 * Creates a skill for the owner: `files` as given, with a SKILL.md made from the name and
 * description when `files` has none (without a description the store refuses it as
 * `skill_invalid`, saying what is missing). Refuses as `Store.create` does.
 */
export async function createOwnerSkill(store: Store, skill: NewOwnerSkill): Promise<ChangeResult> {
  const files: Record<string, string> = { ...(skill.files ?? {}) };
  if (files[SKILL_FILE] === undefined) files[SKILL_FILE] = newSkillFile(skill.name, skill.description ?? "");
  return store.create(skill.name, files, { source: "owner", enabled: skill.enabled === true });
}
