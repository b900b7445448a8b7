import { dirname, join } from "node:path";
import type { Diagnostic } from "../core/diagnostics.js";
import { hashSkillFolder } from "../skill/content-hash.js";
import type { SkillFields } from "../skill/fields.js";
import type { Governance } from "../skill/governance.js";
import { type DeclaredPackages, readDeclaredPackages } from "../skill/packages/declared.js";
import { effectiveSchema, type JsonSchema } from "../skill/parameters-schema.js";
import { readScriptCommandLine, type ScriptCommandLine } from "../skill/script-usage.js";
import { listSkillScripts, type ScriptLanguage } from "../skill/scripts.js";
import type { SkillDecision } from "./decisions.js";
import type { DiscoveryResult } from "./discover.js";
import { findByName } from "./find.js";

/**
 * The front-matter fields the Agent Skills specification defines, shaped as the reference
 * library's `read-properties` prints them: `name` and `description` always; `license`,
 * `compatibility`, `allowed-tools` (space-separated text) and `metadata` (when not empty)
 * only when the skill has them.
 */
export interface SkillProperties {
  readonly name: string;
  readonly description: string;
  readonly license?: string;
  readonly compatibility?: string;
  readonly "allowed-tools"?: string;
  readonly metadata?: Readonly<Record<string, unknown>>;
}

/** Everything skillgate knows about one skill, for `skillgate explain`. */
export interface SkillExplanation {
  /** The decision that counts: the winner of its name. */
  readonly decision: SkillDecision;
  readonly description: string | undefined;
  /** The specification's fields as read; undefined when the skill did not load. */
  readonly properties: SkillProperties | undefined;
  /** The content hash and grant prefix, when the folder can be hashed. */
  readonly hash: string | undefined;
  readonly governance: Governance | undefined;
  readonly allowedTools: readonly string[];
  /**
   * Each script with the schema its arguments are checked against and, when its text shows it
   * plainly, how it reads its command line (absent when nothing reliable was found).
   */
  readonly scripts: ReadonlyArray<{
    path: string;
    language: ScriptLanguage;
    schema: JsonSchema;
    commandLine?: ScriptCommandLine;
  }>;
  /**
   * The packages the skill declares (PEP 723 blocks, requirements.txt, package.json), when it
   * loaded; their problems are among {@link diagnostics}. See docs/running-scripts.md, "Packages".
   */
  readonly packages: Omit<DeclaredPackages, "diagnostics"> | undefined;
  /** Other decisions for the same name: the skills this one shadows, or the one shadowing it. */
  readonly related: readonly SkillDecision[];
  readonly diagnostics: readonly Diagnostic[];
}

/** The outcome of looking a skill up for explanation. */
export type ExplainResult =
  | { readonly found: true; readonly explanation: SkillExplanation }
  | { readonly found: false; readonly candidates: readonly string[] };

/**
 * The decision that counts for a name: the one not shadowed, preferring one that loaded
 * (registered, display-only or disabled) over a rejected one, and a later source over an
 * earlier one; when every decision is a rejection, the last.
 */
function decisionInEffect(all: readonly SkillDecision[]): SkillDecision {
  const standing = all.filter((item) => item.decision !== "shadowed" && item.decision !== "rejected");
  return (
    standing.at(-1) ??
    all.filter((item) => item.decision !== "shadowed").at(-1) ??
    (all.at(-1) as SkillDecision)
  );
}

/** The specification's fields of a loaded skill, as `read-properties` shows them. */
export function propertiesOf(fields: SkillFields): SkillProperties {
  const properties: { -readonly [Key in keyof SkillProperties]: SkillProperties[Key] } = {
    name: fields.name,
    description: fields.description,
  };
  if (fields.license !== undefined) properties.license = fields.license;
  if (fields.compatibility !== undefined) properties.compatibility = fields.compatibility;
  if (fields.allowedTools.length > 0) properties["allowed-tools"] = fields.allowedTools.join(" ");
  if (Object.keys(fields.metadata).length > 0) properties.metadata = fields.metadata;
  return properties;
}

/**
 * Explains the skill named (or uniquely prefixed / contained) by `query` among every
 * decision discovery made, registered or not.
 */
export function explainSkill(result: DiscoveryResult, query: string): ExplainResult {
  const names = [...new Set(result.decisions.map((decision) => decision.name))].map((name) => ({ name }));
  const lookup = findByName(names, query);
  if (lookup.match === undefined) return { found: false, candidates: lookup.candidates };
  const name = lookup.match.name;
  const all = result.decisions.filter((decision) => decision.name === name);
  const decision = decisionInEffect(all);
  const loaded = decision.skill;
  // A skill a caller passed in may have no folder; a folder that escaped its root is not read.
  const directory = loaded !== undefined ? loaded.directory : dirname(decision.location);
  const hashed =
    directory === undefined ||
    (decision.decision === "rejected" &&
      decision.reasons.some((reason) => reason.code === "path_not_allowed"))
      ? undefined
      : hashSkillFolder(directory);
  const governance = loaded?.governance;
  const scripts =
    governance && directory !== undefined
      ? listSkillScripts(directory).map((script) => {
          const commandLine = readScriptCommandLine(join(directory, script.path), script.language);
          return {
            ...script,
            schema: effectiveSchema(governance.parametersSchema, governance.execution, script.path),
            ...(commandLine !== undefined ? { commandLine } : {}),
          };
        })
      : [];
  const declared = governance && directory !== undefined ? readDeclaredPackages(directory) : undefined;
  return {
    found: true,
    explanation: {
      decision,
      description: loaded?.description,
      properties: loaded?.fields === undefined ? undefined : propertiesOf(loaded.fields),
      hash: hashed?.hash,
      governance,
      allowedTools: loaded?.fields?.allowedTools ?? [],
      scripts,
      packages:
        declared === undefined
          ? undefined
          : {
              ...(declared.python !== undefined ? { python: declared.python } : {}),
              ...(declared.node !== undefined ? { node: declared.node } : {}),
            },
      related: all.filter((item) => item !== decision),
      diagnostics: [
        ...decision.diagnostics,
        ...(hashed?.diagnostics ?? []),
        ...(declared?.diagnostics ?? []),
      ],
    },
  };
}
