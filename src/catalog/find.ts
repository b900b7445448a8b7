/** Anything with a name: skills, decisions, tools. */
export interface Named {
  readonly name: string;
}

/** The outcome of a lookup: the match, or the candidates that made it ambiguous. */
export interface FindResult<Item extends Named> {
  readonly match: Item | undefined;
  /** How it matched: `exact`, `prefix`, `substring`, or `none`. */
  readonly by: "exact" | "prefix" | "substring" | "none";
  /** Names that matched when more than one did (sorted); empty otherwise. */
  readonly candidates: readonly string[];
}

/**
 * Looks an item up by exact name, then unique prefix, then unique substring. A query
 * that matches several items at the first level that matches anything returns no match
 * and lists them: ambiguity is not a guess.
 */
export function findByName<Item extends Named>(items: readonly Item[], query: string): FindResult<Item> {
  const exact = items.find((item) => item.name === query);
  if (exact !== undefined) return { match: exact, by: "exact", candidates: [] };
  if (query === "") return { match: undefined, by: "none", candidates: [] };
  for (const [by, test] of [
    ["prefix", (name: string) => name.startsWith(query)],
    ["substring", (name: string) => name.includes(query)],
  ] as const) {
    const matches = items.filter((item) => test(item.name));
    if (matches.length === 1) return { match: matches[0], by, candidates: [] };
    if (matches.length > 1) {
      return {
        match: undefined,
        by: "none",
        candidates: [...new Set(matches.map((item) => item.name))].sort(),
      };
    }
  }
  return { match: undefined, by: "none", candidates: [] };
}

/** A skill by exact name, then unique prefix, then unique substring; `undefined` when none or ambiguous. */
export function find<Item extends Named>(items: readonly Item[], query: string): Item | undefined {
  return findByName(items, query).match;
}
