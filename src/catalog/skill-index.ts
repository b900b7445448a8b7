import { DEFAULT_INDEX_BUDGET, SKILL_DESC_MAX } from "../core/limits.js";
import { clipAtWord } from "../core/text.js";
import type { Skill } from "../skill/skill.js";

/** Options for {@link skillIndex}. */
export interface SkillIndexOptions {
  /** The most characters the block may take (default {@link DEFAULT_INDEX_BUDGET}). */
  readonly budget?: number;
  /** The tool the model reads a skill with (default `read_skill`). */
  readonly readTool?: string;
  /** The input field of {@link SkillIndexOptions.readTool} that takes the skill's name (default `name`, as `read_skill` has it). */
  readonly readField?: string;
  /** The tool the model searches unlisted skills with (default `search_skills`). */
  readonly searchTool?: string;
  /** The input field of {@link SkillIndexOptions.searchTool} that takes the words (default `query`). */
  readonly searchField?: string;
}

/** The index block and what it left out. */
export interface SkillIndexResult {
  readonly text: string;
  /** Names listed, in the order shown. */
  readonly listed: readonly string[];
  /** How many skills did not fit and are only reachable through search. */
  readonly unlisted: number;
  /** The description length each line was clipped to. */
  readonly descriptionLength: number;
}

// Descriptions are shortened down to this before any skill is left out of the index.
const MIN_DESCRIPTION = 60;

/** Clips a description for one index line at a word boundary. */
export function clipDescription(description: string, max: number = SKILL_DESC_MAX): string {
  return clipAtWord(description.replace(/\s+/g, " ").trim(), max);
}

/**
 * The system-prompt block listing each skill's name and clipped description; never a
 * body; empty for no skills. See {@link describeSkillIndex} for how the budget is kept.
 */
export function skillIndex(skills: readonly Skill[], options: SkillIndexOptions = {}): string {
  return describeSkillIndex(skills, options).text;
}

/**
 * Builds the index within a character budget without silently hiding skills: first every
 * description is clipped at {@link SKILL_DESC_MAX}; if that is too long, descriptions are
 * shortened evenly down to 60 characters; if it still does not fit, skills are left out
 * and the block says how many and tells the model to search for them. Which skills stay
 * is deterministic and fair: sources take turns (the most specific source first), each in
 * name order, so no one large source crowds out the rest; recent use plays no part.
 */
export function describeSkillIndex(
  skills: readonly Skill[],
  options: SkillIndexOptions = {},
): SkillIndexResult {
  if (skills.length === 0) return { text: "", listed: [], unlisted: 0, descriptionLength: SKILL_DESC_MAX };
  const budget = options.budget ?? DEFAULT_INDEX_BUDGET;
  // Each tool is named with the input field it takes, `tool(field)`, exactly as its schema has it.
  const readCall = `${options.readTool ?? "read_skill"}(${options.readField ?? "name"})`;
  const searchCall = `${options.searchTool ?? "search_skills"}(${options.searchField ?? "query"})`;
  const head = [
    "## Skills",
    "",
    `Know-how available to you. Read one with \`${readCall}\` when its description matches what you are about to do, *before* you do it.`,
    "",
  ].join("\n");
  const sorted = [...skills].sort(byName);
  for (let length = SKILL_DESC_MAX; length >= MIN_DESCRIPTION; length = shorter(length)) {
    const text = render(head, sorted, length, 0, searchCall);
    if (text.length <= budget)
      return { text, listed: sorted.map((skill) => skill.name), unlisted: 0, descriptionLength: length };
    if (length === MIN_DESCRIPTION) break;
  }
  // Room for the lines: the budget less the heading and the longest possible trailer.
  let room = budget - head.length - trailer(skills.length, searchCall).length;
  const chosen: Skill[] = [];
  for (const skill of fairOrder(skills)) {
    const cost = line(skill, MIN_DESCRIPTION).length + 1;
    if (cost > room) continue;
    room -= cost;
    chosen.push(skill);
  }
  chosen.sort(byName);
  const unlisted = skills.length - chosen.length;
  return {
    text: render(head, chosen, MIN_DESCRIPTION, unlisted, searchCall),
    listed: chosen.map((skill) => skill.name),
    unlisted,
    descriptionLength: MIN_DESCRIPTION,
  };
}

function shorter(length: number): number {
  return Math.max(MIN_DESCRIPTION, Math.floor(length * 0.8));
}

function line(skill: Skill, descriptionLength: number): string {
  return `- \`${skill.name}\` -- ${clipDescription(skill.description, descriptionLength)}`;
}

function trailer(unlisted: number, searchCall: string): string {
  if (unlisted === 0) return "";
  const count = `${unlisted} more skill${unlisted === 1 ? " is" : "s are"}`;
  return `\n\n${count} not listed here. Call \`${searchCall}\` with a few words about the task to find them.`;
}

function render(
  head: string,
  skills: readonly Skill[],
  descriptionLength: number,
  unlisted: number,
  searchCall: string,
): string {
  const lines = skills.map((skill) => line(skill, descriptionLength));
  return `${head}\n${lines.join("\n")}${trailer(unlisted, searchCall)}`;
}

// Sources from least to most specific, as discovery ranks them; any other source (a
// caller's or an extension's skills) ranks above them all.
const SOURCE_ORDER = ["builtin", "package", "learned", "store", "config", "user", "project"];

function sourceRank(source: string): number {
  const rank = SOURCE_ORDER.indexOf(source.startsWith("package:") ? "package" : source);
  return rank === -1 ? SOURCE_ORDER.length : rank;
}

/**
 * Round-robin over sources, the most specific source first (projects before built-ins,
 * ties by source name), each source in name order. It depends only on the skills, never
 * on the order they were passed in.
 */
function fairOrder(skills: readonly Skill[]): Skill[] {
  const bySource = new Map<string, Skill[]>();
  for (const skill of skills) {
    const list = bySource.get(skill.source) ?? [];
    list.push(skill);
    bySource.set(skill.source, list);
  }
  const queues = [...bySource.entries()]
    .sort(
      ([left], [right]) => sourceRank(right) - sourceRank(left) || (left < right ? -1 : left > right ? 1 : 0),
    )
    .map(([, list]) => list.sort(byName));
  const order: Skill[] = [];
  for (let round = 0; order.length < skills.length; round += 1) {
    for (const queue of queues) {
      const skill = queue[round];
      if (skill !== undefined) order.push(skill);
    }
  }
  return order;
}

function byName(left: Skill, right: Skill): number {
  return left.name < right.name ? -1 : left.name > right.name ? 1 : 0;
}
