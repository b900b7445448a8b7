import { dirname, resolve } from "node:path";
import type { Catalog } from "../../catalog/catalog.js";
import type { DecisionKind, DecisionReason, SkillDecision } from "../../catalog/decisions.js";
import type { Diagnostic } from "../../core/diagnostics.js";
import { grant } from "../../skill/content-hash.js";
import type { ExecutionMode, NetworkMode, Tier } from "../../skill/governance.js";
import { effectiveSchema, type JsonSchema, type ParametersSchema } from "../../skill/parameters-schema.js";
import { type ScriptLanguage, scriptsAmong } from "../../skill/scripts.js";
import type { DraftMetadata } from "../../store/drafts/draft-metadata.js";
import { type LintWarning, lintSkill } from "../../store/lint/index.js";
import type { Store } from "../../store/store.js";
import type { ListedSource } from "../../store/store-types.js";
import { authorOf, skillFileFacts } from "./skill-facts.js";

/** One script of a skill with the schema its arguments are checked against. */
export interface ScriptSchema {
  readonly path: string;
  readonly language: ScriptLanguage;
  /** The declared schema for this script (or the shared one), else the runner's default. */
  readonly schema: JsonSchema;
}

/** What discovery decided about the skill (docs/skills.md): offered or not, and why. */
export interface SkillDecisionView {
  readonly decision: DecisionKind;
  /** The catalog source it was found in (`store`, `builtin`, …). */
  readonly source: string;
  readonly reasons: readonly DecisionReason[];
}

/** A skill's governance keys as read (defaults filled in). */
export interface GovernanceView {
  readonly execution: ExecutionMode;
  readonly tier: Tier;
  readonly allowedDomains: readonly string[];
  readonly network: NetworkMode;
  /** The declared `parameters_schema`: none, one for every script, or one per script path. */
  readonly parametersSchema: ParametersSchema;
}

/** Everything the owner's page of one skill shows (docs/http-api.md, "Skills"). */
export interface OwnerSkillDetail {
  readonly name: string;
  readonly description: string;
  readonly source: ListedSource;
  readonly enabled: boolean;
  /** The hash of what is on disk now: what `enable` takes and what a conditional write names. */
  readonly hash: string;
  /** The hash index.json records; equal to `hash` unless the folder was edited by hand. */
  readonly recordedHash: string;
  /** The grant key a script's "always" approval is bound to (`skill:NAME@HASH8`). */
  readonly grant: string;
  readonly updated?: string;
  readonly origin?: string;
  readonly locked?: true;
  readonly author: string;
  /** Draft keys: source chats, rationale, the review warnings text, the owner's last edit. */
  readonly draft: DraftMetadata;
  /** The text of SKILL.md. */
  readonly skillFile: string;
  /** Every regular file, sorted by path. */
  readonly files: readonly { readonly path: string; readonly size: number }[];
  /** Undefined when SKILL.md does not load (see `diagnostics`). */
  readonly governance: GovernanceView | undefined;
  readonly scripts: readonly ScriptSchema[];
  /** Review-lint warnings: hints for the reviewer, never a verdict. */
  readonly lintWarnings: readonly LintWarning[];
  /** What loading SKILL.md reported (warnings such as unknown keys; errors when it does not load). */
  readonly diagnostics: readonly Diagnostic[];
  /** Discovery's decision, or undefined when no searched source holds this skill's folder. */
  readonly decision: SkillDecisionView | undefined;
}

/**
 * One skill as the owner's page shows it: its SKILL.md and files, governance, each script's
 * schema, the hash now and the recorded one, review-lint warnings, and the decision the
 * catalog made about this very folder (a stored skill another source shadows shows
 * `shadowed`). Refuses as `Store.get` does (`invalid_skill_name`, `not_found`).
 */
export async function readSkillDetail(
  store: Store,
  catalog: Catalog,
  name: string,
): Promise<OwnerSkillDetail> {
  const skill = await store.get(name);
  const facts = skillFileFacts(skill.skillFile, skill.folder, skill.source);
  const governance = facts.governance;
  const scripts: ScriptSchema[] =
    governance === undefined
      ? []
      : scriptsAmong(skill.files.map((file) => file.path)).map((script) => ({
          ...script,
          schema: effectiveSchema(governance.parametersSchema, governance.execution, script.path),
        }));
  const decision = decisionOfFolder(catalog.discover().decisions, skill.name, skill.folder);
  return {
    name: skill.name,
    description: facts.description,
    source: skill.source,
    enabled: skill.enabled,
    hash: skill.hash,
    recordedHash: skill.recordedHash ?? skill.hash,
    grant: grant(skill.name, skill.hash),
    ...(skill.updated !== undefined ? { updated: skill.updated } : {}),
    ...(skill.origin !== undefined ? { origin: skill.origin } : {}),
    ...(skill.locked === true ? { locked: true as const } : {}),
    author: authorOf(skill.source, facts.draft),
    draft: facts.draft,
    skillFile: skill.skillFile,
    files: skill.files.map((file) => ({ path: file.path, size: file.size })),
    governance:
      governance === undefined
        ? undefined
        : {
            execution: governance.execution,
            tier: governance.tier,
            allowedDomains: governance.allowedDomains,
            network: governance.network,
            parametersSchema: governance.parametersSchema,
          },
    scripts,
    lintWarnings: await lintSkill(skill.folder),
    diagnostics: facts.diagnostics,
    decision,
  };
}

/** The decision discovery made about the skill in `folder`, if a searched source holds it. */
function decisionOfFolder(
  decisions: readonly SkillDecision[],
  name: string,
  folder: string,
): SkillDecisionView | undefined {
  const own = resolve(folder);
  const found = decisions.find(
    (decision) => decision.name === name && resolve(dirname(decision.location)) === own,
  );
  return found === undefined
    ? undefined
    : { decision: found.decision, source: found.source, reasons: found.reasons };
}
