import { basename } from "node:path";
import picomatch from "picomatch";
import type { SkillgateConfig } from "../config/config.js";
import { type Diagnostic, diagnostic } from "../core/diagnostics.js";
import type { LoadedSkill } from "../skill/load-skill.js";
import type { Skill } from "../skill/skill.js";
import { type DecisionKind, type DecisionReason, reasonsFrom, type SkillDecision } from "./decisions.js";
import type { SkillFolderSource } from "./sources.js";

/** A skill folder found by the walk, with what loading it gave. */
export interface Candidate {
  readonly source: SkillFolderSource;
  readonly directory: string;
  /** `<directory>/SKILL.md`. */
  readonly location: string;
  readonly loaded: LoadedSkill | undefined;
  /** The real path of a linked folder that leads outside every allowed root. */
  readonly escapedTo: string | undefined;
}

const NO_REASONS: readonly DecisionReason[] = Object.freeze([]);
const NO_DIAGNOSTICS: readonly Diagnostic[] = Object.freeze([]);

/** One decision being made; every entry has the same shape so the hot loop stays monomorphic. */
class Entry {
  decision: DecisionKind;
  reasons: readonly DecisionReason[];
  constructor(
    readonly name: string,
    readonly source: string,
    readonly location: string,
    decision: DecisionKind,
    reasons: readonly DecisionReason[],
    readonly diagnostics: readonly Diagnostic[],
    readonly skill: Skill | undefined,
  ) {
    this.decision = decision;
    this.reasons = reasons;
  }

  /** Adds a reason without touching arrays shared with the cache. */
  addReason(reason: DecisionReason): void {
    this.reasons = [...this.reasons, reason];
  }
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
export function decide(
  candidates: readonly Candidate[],
  extra: readonly Skill[],
  config: SkillgateConfig,
): Decided {
  const isDisabled = matcher(config.skills.disabled);
  const isHidden = matcher(config.skills.hidden);
  const entries: Entry[] = [];
  for (const candidate of candidates) entries.push(firstDecision(candidate));
  for (const skill of extra) {
    entries.push(
      new Entry(skill.name, skill.source, skill.where, "registered", NO_REASONS, NO_DIAGNOSTICS, skill),
    );
  }
  const winners = new Map<string, Entry>();
  for (const entry of entries) {
    if (entry.decision === "rejected" || entry.decision === "disabled") continue;
    if (isDisabled(entry.name)) {
      entry.decision = "disabled";
      entry.addReason({
        code: "disabled_by_config",
        severity: "info",
        message: "disabled by skills.disabled in the configuration",
      });
      continue;
    }
    if (entry.decision === "registered" && isHidden(entry.name)) {
      entry.decision = "display_only";
      entry.addReason({
        code: "hidden_by_config",
        severity: "info",
        message: "hidden by skills.hidden in the configuration",
      });
    }
    const previous = winners.get(entry.name);
    if (previous !== undefined) {
      previous.decision = "shadowed";
      previous.addReason({
        code: "shadowed_by",
        severity: "info",
        message: `replaced by the ${entry.source} skill at ${entry.location}`,
        winner: { source: entry.source, location: entry.location },
      });
    }
    winners.set(entry.name, entry);
  }
  const skills: Skill[] = [];
  const decisions: SkillDecision[] = [];
  for (const entry of entries) {
    if (entry.decision === "registered" && entry.skill !== undefined) skills.push(entry.skill);
    decisions.push({
      name: entry.name,
      source: entry.source,
      location: entry.location,
      decision: entry.decision,
      reasons: entry.reasons,
      diagnostics: entry.diagnostics,
      skill: entry.decision === "rejected" ? undefined : entry.skill,
    });
  }
  skills.sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
  return { skills, decisions };
}

function firstDecision(candidate: Candidate): Entry {
  const source = candidate.source.source;
  if (candidate.escapedTo !== undefined || candidate.loaded === undefined) {
    const problem = diagnostic(
      "path_not_allowed",
      "error",
      `${candidate.directory} links to ${candidate.escapedTo}, outside every skills folder`,
      {
        path: candidate.directory,
        hint: "move the skill into a skills folder or list its folder in the configuration",
      },
    );
    return new Entry(
      basename(candidate.directory),
      source,
      candidate.location,
      "rejected",
      reasonsFrom([problem]),
      [problem],
      undefined,
    );
  }
  const loaded = candidate.loaded;
  const skill = loaded.skill;
  const diagnostics = loaded.diagnostics.length === 0 ? NO_DIAGNOSTICS : loaded.diagnostics;
  const reasons = diagnostics.length === 0 ? NO_REASONS : reasonsFrom(diagnostics);
  if (skill === undefined || loadErrors(diagnostics)) {
    const name = skill?.name ?? basename(candidate.directory);
    return new Entry(name, source, candidate.location, "rejected", reasons, diagnostics, undefined);
  }
  const entry = new Entry(
    skill.name,
    source,
    candidate.location,
    loaded.governanceInvalid ? "display_only" : "registered",
    reasons,
    diagnostics,
    skill,
  );
  const isEnabled = candidate.source.isEnabled;
  if (isEnabled !== undefined && !isEnabled(basename(candidate.directory))) {
    entry.decision = "disabled";
    entry.addReason({
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
