import type { DiscoveryResult } from "../catalog/discover.js";
import type { Skill } from "../skill/skill.js";

/**
 * Which skills a turn offers: a chat offers every registered skill; a job offers what its
 * `skills` field names (`null` or `[]`: none, `"*"`: all, a list: those names). Built-in
 * skills are always included.
 */
export type SkillScope = null | "*" | readonly string[];

/** What changed when the view was refreshed. */
export interface ViewChange {
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly changed: boolean;
}

/**
 * The skills of one turn, kept current: every lookup first asks the catalog again, so a
 * skill disabled or edited mid-turn is seen by the very next call. Asking is cheap when
 * nothing changed: the same decisions object comes back, and is recognised by identity. A
 * catalog kept by revision (a long-running process) answers by comparing a number; one
 * without a watch looks at the tree (one `lstat` a skill). Lookups by name use a map made
 * once per change, not a scan of every skill.
 */
export class SkillView {
  readonly #discover: () => DiscoveryResult;
  readonly #scope: SkillScope | undefined;
  /** Names offered when the turn was built: a name that leaves later was "no longer enabled". */
  readonly #initial: ReadonlySet<string>;
  #decisions: DiscoveryResult["decisions"] | undefined;
  #offered: readonly Skill[] = [];
  #byName = new Map<string, Skill>();

  constructor(discover: () => DiscoveryResult, scope?: SkillScope) {
    this.#discover = discover;
    this.#scope = scope;
    this.refresh();
    this.#initial = new Set(this.#offered.map((skill) => skill.name));
  }

  /** Re-reads the catalog; reports what was added or removed since the last refresh. */
  refresh(): ViewChange {
    const result = this.#discover();
    if (result.decisions === this.#decisions) return { added: [], removed: [], changed: false };
    const before = new Set(this.#offered.map((skill) => skill.name));
    this.#decisions = result.decisions;
    this.#offered = inScope(result.skills, this.#scope);
    this.#byName = new Map(this.#offered.map((skill) => [skill.name, skill]));
    const after = new Set(this.#offered.map((skill) => skill.name));
    const added = [...after].filter((name) => !before.has(name)).sort();
    const removed = [...before].filter((name) => !after.has(name)).sort();
    return { added, removed, changed: true };
  }

  /** The skills offered now (after a refresh), sorted by name. */
  offered(): readonly Skill[] {
    this.refresh();
    return this.#offered;
  }

  /** A skill by exact name among those offered now; `wasOffered` tells a withdrawn skill from an unknown one. */
  lookup(name: string): { skill: Skill | undefined; wasOffered: boolean } {
    this.refresh();
    return { skill: this.#byName.get(name), wasOffered: this.#initial.has(name) };
  }
}

function inScope(skills: readonly Skill[], scope: SkillScope | undefined): Skill[] {
  if (scope === undefined || scope === "*") return [...skills];
  const named = new Set(scope ?? []);
  return skills.filter((skill) => skill.source === "builtin" || named.has(skill.name));
}
