import { realpathSync } from "node:fs";
import { SkillgateError } from "../../core/errors.js";
import type { Runner } from "../../runners/contract.js";
import { hashSkillFolder } from "../../skill/content-hash.js";
import { scriptLanguage } from "../../skill/scripts.js";
import type { Skill } from "../../skill/skill.js";
import type { ProviderFactory } from "../registry.js";
import { samplingEntryProvider } from "./sampling-entry.js";
import { scriptEntryProvider } from "./script-entry.js";

/**
 * The registry's factories for workflow skills' entries (`script`, `sampling`): each builds a
 * provider from a decision that passed every check. A script provider is bound to the skill's
 * content hash at registration: a skill changed since is refused by the runner (`skill_changed`)
 * until a new decision registers the new hash.
 */

/** Finds the catalog's skill of a (canonical) skill folder. */
export type SkillOfFolder = (directory: string) => Skill | undefined;

/** The factory of `script` entries: a script of the skill through `runner`. */
export function scriptEntryFactory(options: {
  readonly runner: Runner;
  readonly skillOf: SkillOfFolder;
}): ProviderFactory {
  return {
    name: "script",
    accepts: (descriptor) => descriptor.kind === "workflow_skill" && descriptor.entry?.type === "script",
    create: async ({ descriptor, permissions }) => {
      const entry = descriptor.entry;
      const directory = descriptor.skillDirectory;
      if (entry?.type !== "script" || directory === undefined)
        throw new SkillgateError(
          "invalid_argument",
          `${descriptor.id} has no script entry in a skill folder`,
          {},
        );
      const skill = options.skillOf(directory);
      if (skill === undefined)
        throw new SkillgateError("not_found", `${descriptor.id}: its skill is not in the catalog`, {});
      const language = scriptLanguage(entry.script);
      if (language === undefined)
        throw new SkillgateError(
          "invalid_argument",
          `${descriptor.id}: ${entry.script} is not a script skillgate runs`,
          {},
        );
      const hash = hashSkillFolder(directory).hash;
      if (hash === undefined)
        throw new SkillgateError("skill_unreadable", `${descriptor.id}: its skill folder cannot be read`, {});
      return scriptEntryProvider({
        descriptor,
        permissions,
        skill: {
          name: skill.name,
          folder: directory,
          hash,
          execution: skill.governance.execution,
          network: skill.governance.network,
          allowedDomains: skill.governance.allowedDomains,
        },
        script: scriptPath(entry.script, directory),
        language,
        runner: options.runner,
      });
    },
  };
}

/** The factory of `sampling` entries: the skill's body and the payload to the calling client's model. */
export function samplingEntryFactory(options: { readonly skillOf: SkillOfFolder }): ProviderFactory {
  return {
    name: "sampling",
    accepts: (descriptor) => descriptor.kind === "workflow_skill" && descriptor.entry?.type === "sampling",
    create: async ({ descriptor, permissions, schemas }) => {
      const directory = descriptor.skillDirectory;
      const skill = directory === undefined ? undefined : options.skillOf(directory);
      if (skill === undefined)
        throw new SkillgateError("not_found", `${descriptor.id}: its skill is not in the catalog`, {});
      return samplingEntryProvider({
        descriptor,
        permissions,
        body: () => skill.text(),
        outputSchema: schemas.output,
      });
    },
  };
}

/** The script's path relative to the skill folder (a manifest may give it absolute, inside the folder). */
function scriptPath(script: string, directory: string): string {
  const prefix = `${directory}/`;
  return script.startsWith(prefix) ? script.slice(prefix.length) : script;
}

/** A {@link SkillOfFolder} over the catalog's skills now, comparing canonical folders. */
export function skillsByFolder(skills: () => readonly Skill[]): SkillOfFolder {
  return (directory) => {
    for (const skill of skills()) {
      if (skill.directory === undefined) continue;
      if (skill.directory === directory) return skill;
      try {
        if (realpathSync(skill.directory) === directory) return skill;
      } catch {
        // A folder that vanished is not this skill.
      }
    }
    return undefined;
  };
}
