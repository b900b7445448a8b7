import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Candidates } from "../../src/catalog/candidates.js";
import { decide } from "../../src/catalog/decide.js";
import type { SkillDecision } from "../../src/catalog/decisions.js";
import { DEFAULT_CONFIG, type SkillgateConfig } from "../../src/config/config.js";
import { diagnostic } from "../../src/core/diagnostics.js";
import type { LoadedSkill } from "../../src/skill/load-skill.js";
import { Skill } from "../../src/skill/skill.js";

/**
 * decide() shadows by name with one pass over the skills in name order (no map of
 * winners). A property test holds it to the rule as first written: in precedence order,
 * each skill that is neither rejected nor disabled replaces the last one of its name.
 */

type Kind = "ok" | "governance" | "broken" | "linked-out" | "store-off";

interface Row {
  readonly folder: string;
  readonly name: string;
  readonly source: string;
  readonly kind: Kind;
}

function candidatesOf(rows: readonly Row[]): Candidates {
  const candidates = new Candidates();
  for (const row of rows) {
    const directory = `/skills/${row.source}/${row.folder}`;
    const location = `${directory}/SKILL.md`;
    const skill = new Skill({ name: row.name, source: row.source, description: "d", where: location });
    const loaded: LoadedSkill | undefined =
      row.kind === "linked-out"
        ? undefined
        : row.kind === "broken"
          ? {
              skill: undefined,
              diagnostics: [diagnostic("missing_description", "error", "no description")],
              governanceInvalid: false,
            }
          : {
              skill,
              diagnostics:
                row.kind === "governance" ? [diagnostic("invalid_governance", "error", "bad tier")] : [],
              governanceInvalid: row.kind === "governance",
            };
    candidates.push(
      row.source,
      directory,
      location,
      loaded,
      row.kind === "linked-out" ? "/elsewhere" : undefined,
      row.kind === "store-off" ? false : undefined,
    );
  }
  return candidates;
}

/** The shadowing rule as first written (a map of winners), applied to decide's own first decisions. */
function shadowedAsFirstWritten(
  decisions: readonly SkillDecision[],
  config: SkillgateConfig,
): { kinds: string[]; reasons: string[][]; skills: string[] } {
  const disabled = new Set(config.skills.disabled);
  const hidden = new Set(config.skills.hidden);
  const kinds = decisions.map((item) => firstKind(item));
  const reasons = decisions.map((item) => firstReasons(item));
  const winners = new Map<string, number>();
  decisions.forEach((item, index) => {
    if (kinds[index] === "rejected" || kinds[index] === "disabled") return;
    if (disabled.has(item.name)) {
      kinds[index] = "disabled";
      reasons[index]?.push("disabled_by_config");
      return;
    }
    if (kinds[index] === "registered" && hidden.has(item.name)) {
      kinds[index] = "display_only";
      reasons[index]?.push("hidden_by_config");
    }
    const previous = winners.get(item.name);
    if (previous !== undefined) {
      kinds[previous] = "shadowed";
      reasons[previous]?.push(`shadowed_by ${item.source} ${item.location}`);
    }
    winners.set(item.name, index);
  });
  const skills = decisions
    .filter((_, index) => kinds[index] === "registered")
    .map((item) => item.name)
    .sort((left, right) => (left < right ? -1 : left > right ? 1 : 0));
  return { kinds, reasons, skills };
}

/** What a decision was before shadowing and configuration, read back from its reasons. */
function firstKind(item: SkillDecision): string {
  if (item.reasons.some((reason) => reason.code === "disabled_in_store")) return "disabled";
  if (item.skill === undefined) return "rejected";
  return item.diagnostics.length > 0 ? "display_only" : "registered";
}

function firstReasons(item: SkillDecision): string[] {
  return item.reasons
    .filter((reason) => !["disabled_by_config", "hidden_by_config", "shadowed_by"].includes(reason.code))
    .map((reason) => reason.code);
}

function summary(decisions: readonly SkillDecision[]): { kinds: string[]; reasons: string[][] } {
  return {
    kinds: decisions.map((item) => item.decision),
    reasons: decisions.map((item) =>
      item.reasons.map((reason) =>
        reason.code === "shadowed_by"
          ? `shadowed_by ${reason.winner?.source} ${reason.winner?.location}`
          : reason.code,
      ),
    ),
  };
}

const rowArbitrary = fc.record({
  folder: fc.constantFrom("a", "b", "c", "d", "e", "f"),
  name: fc.constantFrom("alpha", "beta", "gamma", "Beta", "beta-2", "é"),
  source: fc.constantFrom("builtin", "config", "user", "project"),
  kind: fc.constantFrom<Kind>("ok", "ok", "ok", "governance", "broken", "linked-out", "store-off"),
});

describe("decide", () => {
  it("shadows, disables and hides exactly as the map-of-winners rule does (property)", () => {
    fc.assert(
      fc.property(
        fc.array(rowArbitrary, { maxLength: 12 }),
        fc.subarray(["alpha", "gamma"]),
        fc.subarray(["beta", "é"]),
        (rows, disabled, hidden) => {
          const config: SkillgateConfig = {
            ...DEFAULT_CONFIG,
            skills: { ...DEFAULT_CONFIG.skills, disabled, hidden },
          };
          const decided = decide(candidatesOf(rows), [], config);
          const expected = shadowedAsFirstWritten(decided.decisions, config);
          const actual = summary(decided.decisions);
          expect(actual.kinds).toEqual(expected.kinds);
          // Reasons from loading come first, then the configuration's, then shadowing.
          expect(actual.reasons).toEqual(expected.reasons);
          expect(decided.skills.map((skill) => skill.name)).toEqual(expected.skills);
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it("a caller's skill replaces a found one of the same name and comes out in name order", () => {
    const rows: Row[] = [
      { folder: "b", name: "beta", source: "config", kind: "ok" },
      { folder: "a", name: "alpha", source: "user", kind: "ok" },
    ];
    const extra = new Skill({ name: "beta", source: "caller", description: "d", where: "memory" });
    const decided = decide(candidatesOf(rows), [extra], DEFAULT_CONFIG);
    expect(decided.decisions.map((item) => [item.name, item.source, item.decision])).toEqual([
      ["beta", "config", "shadowed"],
      ["alpha", "user", "registered"],
      ["beta", "caller", "registered"],
    ]);
    expect(decided.skills.map((skill) => skill.source)).toEqual(["user", "caller"]);
  });
});
