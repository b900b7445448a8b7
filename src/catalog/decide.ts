import { basename } from "node:path";
import picomatch from "picomatch";
import type { SkillgateConfig } from "../config/config.js";
import { type Diagnostic, diagnostic } from "../core/diagnostics.js";
import type { Skill } from "../skill/skill.js";
import type { Candidates } from "./candidates.js";
import { type DecisionKind, type DecisionReason, reasonsFrom, type SkillDecision } from "./decisions.js";

const NO_REASONS: readonly DecisionReason[] = Object.freeze([]);
const NO_DIAGNOSTICS: readonly Diagnostic[] = Object.freeze([]);

/**
 * A decision being made: the very object returned, changed in place while sources are
 * weighed against each other. Every one is made by {@link decision}, so all have one shape
 * and the hot loops stay monomorphic.
 */
type Draft = { -readonly [Key in keyof SkillDecision]: SkillDecision[Key] };

function decision(
  name: string,
  source: string,
  location: string,
  kind: DecisionKind,
  reasons: readonly DecisionReason[],
  diagnostics: readonly Diagnostic[],
  skill: Skill | undefined,
): Draft {
  return { name, source, location, decision: kind, reasons, diagnostics, skill };
}

/** Adds a reason without touching arrays shared with the cache. */
function addReason(draft: Draft, reason: DecisionReason): void {
  draft.reasons = [...draft.reasons, reason];
}

/** The decisions about every candidate, in precedence order, and the registered skills sorted by name. */
export interface Decided {
  readonly skills: Skill[];
  readonly decisions: SkillDecision[];
}

/**
 * Decides about every skill found: load problems reject; the store's switch and the
 * configuration disable or hide; among the rest a later source's skill shadows an earlier
 * one of the same name. Skills passed in by the caller come last and are registered.
 */
export function decide(candidates: Candidates, extra: readonly Skill[], config: SkillgateConfig): Decided {
  const isDisabled = matcher(config.skills.disabled);
  const isHidden = matcher(config.skills.hidden);
  const entries: Draft[] = [];
  for (let index = 0; index < candidates.length; index += 1) {
    entries.push(firstDecision(candidates, index));
  }
  for (const skill of extra) {
    entries.push(
      decision(skill.name, skill.source, skill.where, "registered", NO_REASONS, NO_DIAGNOSTICS, skill),
    );
  }
  // The configuration first, in precedence order.
  const contenders: Draft[] = [];
  for (const entry of entries) {
    if (entry.decision === "rejected" || entry.decision === "disabled") continue;
    if (isDisabled(entry.name)) {
      entry.decision = "disabled";
      addReason(entry, {
        code: "disabled_by_config",
        severity: "info",
        message: "disabled by skills.disabled in the configuration",
      });
      continue;
    }
    if (entry.decision === "registered" && isHidden(entry.name)) {
      entry.decision = "display_only";
      addReason(entry, {
        code: "hidden_by_config",
        severity: "info",
        message: "hidden by skills.hidden in the configuration",
      });
    }
    contenders.push(entry);
  }
  // Then, by name: skills of one name sit side by side in precedence order, and each is
  // replaced by the next. What is left registered comes out in name order.
  const byName = inNameOrder(contenders);
  const skills: Skill[] = [];
  for (let index = 0; index < byName.length; index += 1) {
    const entry = byName[index] as Draft;
    const next = byName[index + 1];
    if (next !== undefined && next.name === entry.name) {
      entry.decision = "shadowed";
      addReason(entry, {
        code: "shadowed_by",
        severity: "info",
        message: `replaced by the ${next.source} skill at ${next.location}`,
        winner: { source: next.source, location: next.location },
      });
      continue;
    }
    if (entry.decision === "registered" && entry.skill !== undefined) skills.push(entry.skill);
  }
  return { skills, decisions: entries };
}

/**
 * `entries` sorted by name (UTF-16 order), equal names in their order: the list itself
 * when its names already rise (skills named after their folders, walked in name order),
 * else a sorted copy (the sort is stable).
 */
function inNameOrder(entries: Draft[]): Draft[] {
  for (let index = 1; index < entries.length; index += 1) {
    if (!((entries[index - 1] as Draft).name < (entries[index] as Draft).name)) {
      return [...entries].sort((left, right) =>
        left.name < right.name ? -1 : left.name > right.name ? 1 : 0,
      );
    }
  }
  return entries;
}

function firstDecision(candidates: Candidates, index: number): Draft {
  const source = candidates.sources[index] as string;
  const directory = candidates.directories[index] as string;
  const location = candidates.locations[index] as string;
  const escapedTo = candidates.escapedTo[index];
  const loaded = candidates.loads[index];
  if (escapedTo !== undefined || loaded === undefined) {
    const problem = diagnostic(
      "path_not_allowed",
      "error",
      `${directory} links to ${escapedTo}, outside every skills folder`,
      {
        path: directory,
        hint: "move the skill into a skills folder or list its folder in the configuration",
      },
    );
    return decision(
      basename(directory),
      source,
      location,
      "rejected",
      reasonsFrom([problem]),
      [problem],
      undefined,
    );
  }
  const skill = loaded.skill;
  const diagnostics = loaded.diagnostics.length === 0 ? NO_DIAGNOSTICS : loaded.diagnostics;
  const reasons = diagnostics.length === 0 ? NO_REASONS : reasonsFrom(diagnostics);
  if (skill === undefined || loadErrors(diagnostics)) {
    const name = skill?.name ?? basename(directory);
    return decision(name, source, location, "rejected", reasons, diagnostics, undefined);
  }
  const entry = decision(
    skill.name,
    source,
    location,
    loaded.governanceInvalid ? "display_only" : "registered",
    reasons,
    diagnostics,
    skill,
  );
  if (candidates.enabled[index] === false) {
    entry.decision = "disabled";
    addReason(entry, {
      code: "disabled_in_store",
      severity: "info",
      message: "not enabled in the managed store (skillgate store enable NAME --hash HASH)",
    });
  }
  return entry;
}

/** Errors that stop a skill from being offered at all; invalid governance only makes it display-only. */
function loadErrors(diagnostics: readonly Diagnostic[]): boolean {
  for (const item of diagnostics) {
    if (
      item.severity === "error" &&
      item.code !== "invalid_governance" &&
      item.code !== "invalid_parameters_schema"
    )
      return true;
  }
  return false;
}

function matcher(patterns: readonly string[]): (name: string) => boolean {
  if (patterns.length === 0) return () => false;
  const test = picomatch([...patterns]);
  return (name) => test(name);
}
