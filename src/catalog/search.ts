import type { Skill } from "../skill/skill.js";

/** One ranked search hit. */
export interface SkillSearchHit {
  readonly skill: Skill;
  readonly score: number;
}

const K1 = 1.2;
const B = 0.75;
// A word in the name says more about a skill than the same word in its description.
const NAME_WEIGHT = 3;

/** Lower-case words of letters and digits; a hyphenated name yields its parts and itself. */
export function tokenize(text: string): string[] {
  const words =
    text
      .toLowerCase()
      .normalize("NFKC")
      .match(/[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)*/gu) ?? [];
  const tokens: string[] = [];
  for (const word of words) {
    tokens.push(word);
    if (word.includes("-")) tokens.push(...word.split("-"));
  }
  return tokens;
}

interface Document {
  readonly skill: Skill;
  readonly frequencies: Map<string, number>;
  readonly length: number;
}

/**
 * BM25 over skill names and descriptions (name terms weighted ×3), built once for a
 * catalog. Ties are broken by name so results are stable.
 */
export class SkillSearchIndex {
  readonly #documents: Document[];
  readonly #documentFrequency = new Map<string, number>();
  readonly #averageLength: number;

  constructor(skills: readonly Skill[]) {
    this.#documents = skills.map((skill) => {
      const frequencies = new Map<string, number>();
      let length = 0;
      const add = (token: string, weight: number) => {
        frequencies.set(token, (frequencies.get(token) ?? 0) + weight);
        length += weight;
      };
      for (const token of tokenize(skill.name)) add(token, NAME_WEIGHT);
      for (const token of tokenize(skill.description)) add(token, 1);
      return { skill, frequencies, length };
    });
    for (const document of this.#documents) {
      for (const token of document.frequencies.keys()) {
        this.#documentFrequency.set(token, (this.#documentFrequency.get(token) ?? 0) + 1);
      }
    }
    const total = this.#documents.reduce((sum, document) => sum + document.length, 0);
    this.#averageLength = this.#documents.length === 0 ? 0 : total / this.#documents.length;
  }

  /** The best `limit` skills for `query`, best first; skills that share no word with it are left out. */
  search(query: string, limit = 10): SkillSearchHit[] {
    const terms = [...new Set(tokenize(query))];
    if (terms.length === 0) return [];
    const count = this.#documents.length;
    const hits: SkillSearchHit[] = [];
    for (const document of this.#documents) {
      let score = 0;
      for (const term of terms) {
        const frequency = document.frequencies.get(term);
        if (frequency === undefined) continue;
        const containing = this.#documentFrequency.get(term) ?? 0;
        const idf = Math.log(1 + (count - containing + 0.5) / (containing + 0.5));
        const norm = frequency + K1 * (1 - B + (B * document.length) / (this.#averageLength || 1));
        score += (idf * frequency * (K1 + 1)) / norm;
      }
      if (score > 0) hits.push({ skill: document.skill, score });
    }
    hits.sort((left, right) => right.score - left.score || (left.skill.name < right.skill.name ? -1 : 1));
    return hits.slice(0, Math.max(0, limit));
  }
}

const indexes = new WeakMap<readonly Skill[], SkillSearchIndex>();

/** Searches a catalog, building its index once per skills array. */
export function searchSkills(skills: readonly Skill[], query: string, limit = 10): SkillSearchHit[] {
  let index = indexes.get(skills);
  if (index === undefined) {
    index = new SkillSearchIndex(skills);
    indexes.set(skills, index);
  }
  return index.search(query, limit);
}
