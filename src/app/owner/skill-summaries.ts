import type { ExecutionMode, Tier } from "../../skill/governance.js";
import { lintSkill } from "../../store/lint/index.js";
import type { Store } from "../../store/store.js";
import type { ListedSource, StoreSkillSummary } from "../../store/store-types.js";
import { authorOf, skillFileFacts, storedSkillFolder } from "./skill-facts.js";

/** One skill in the owner's skills list (docs/http-api.md, "Skills"). */
export interface OwnerSkillSummary {
  readonly name: string;
  readonly description: string;
  readonly source: ListedSource;
  readonly enabled: boolean;
  /** The recorded content hash (64 hex); `enable` takes exactly this. */
  readonly hash: string;
  /** ISO time of the last change; absent for built-ins. */
  readonly updated?: string;
  readonly origin?: string;
  /** An assistant's draft the owner enabled or edited: the assistant may not rewrite it. */
  readonly locked?: true;
  /** `skillgate.author`, else `builtin` or the store source. */
  readonly author: string;
  /** `skillgate.execution`: where its scripts run. Absent when SKILL.md does not load. */
  readonly runner?: ExecutionMode;
  /** `skillgate.tier`. Absent when SKILL.md does not load. */
  readonly tier?: Tier;
  /** How many review-lint warnings its scripts get (docs/drafts-and-edits.md, "Review lint"). */
  readonly reviewWarnings: number;
  /** False when its SKILL.md cannot be read or does not load (the detail says why). */
  readonly loads: boolean;
}

type SkillFacts = Omit<OwnerSkillSummary, keyof StoreSkillSummary>;

/**
 * What the list reads per skill, kept by name and recorded hash. A store write changes the
 * hash, so an entry is never served for content it was not read from; a hand edit (which
 * the store reports as `hash_mismatch` and the detail shows) is seen once its hash is
 * recorded again. Entries of skills no longer listed are dropped on the next list.
 */
export class SkillSummaryCache {
  readonly #entries = new Map<string, { readonly hash: string; readonly facts: SkillFacts }>();

  /** The facts read for `name` at `hash`, if any. */
  get(name: string, hash: string): SkillFacts | undefined {
    const entry = this.#entries.get(name);
    return entry?.hash === hash ? entry.facts : undefined;
  }

  /** Keeps `facts` for `name` at `hash`. */
  set(name: string, hash: string, facts: SkillFacts): void {
    this.#entries.set(name, { hash, facts });
  }

  /** Drops every entry whose name is not in `names`. */
  keepOnly(names: ReadonlySet<string>): void {
    for (const name of this.#entries.keys()) if (!names.has(name)) this.#entries.delete(name);
  }

  /** Drops every entry (the files may have changed without a new recorded hash). */
  clear(): void {
    this.#entries.clear();
  }

  /** Entries held now. */
  get size(): number {
    return this.#entries.size;
  }
}

/**
 * Every skill the store lists (built-ins and stored, sorted by name) with what the owner's
 * list shows: source, enabled state, hash, author, runner, tier and the review-lint warning
 * count. Pass a {@link SkillSummaryCache} that lives as long as the caller (a server) so
 * each skill's SKILL.md and scripts are read once per hash, not on every list.
 */
export async function listSkillSummaries(
  store: Store,
  cache: SkillSummaryCache = new SkillSummaryCache(),
): Promise<OwnerSkillSummary[]> {
  const listed = await store.list();
  const builtinFolders = new Map<string, string>();
  if (listed.some((skill) => skill.source === "builtin" && cache.get(skill.name, skill.hash) === undefined))
    for (const skill of await store.enabledSkills())
      if (skill.source === "builtin") builtinFolders.set(skill.name, skill.folder);
  const summaries: OwnerSkillSummary[] = [];
  for (const skill of listed) {
    let facts = cache.get(skill.name, skill.hash);
    if (facts === undefined) {
      const folder = builtinFolders.get(skill.name) ?? storedSkillFolder(store.folder, skill.name);
      facts = await readFacts(store, skill, folder);
      cache.set(skill.name, skill.hash, facts);
    }
    summaries.push({ ...skill, ...facts });
  }
  cache.keepOnly(new Set(listed.map((skill) => skill.name)));
  return summaries;
}

async function readFacts(store: Store, skill: StoreSkillSummary, folder: string): Promise<SkillFacts> {
  let text: string;
  try {
    text = Buffer.from(await store.readFile(skill.name, "SKILL.md")).toString("utf8");
  } catch {
    // Listed but unreadable (its folder removed by hand): listed as not loading; the store's
    // reconcile reports the folder and the detail answers not_found.
    return {
      description: "",
      author: authorOf(skill.source, { sourceChats: [] }),
      reviewWarnings: 0,
      loads: false,
    };
  }
  const facts = skillFileFacts(text, folder, skill.source);
  const warnings = await lintSkill(folder).catch(() => []);
  return {
    description: facts.description,
    author: authorOf(skill.source, facts.draft),
    ...(facts.governance !== undefined
      ? { runner: facts.governance.execution, tier: facts.governance.tier }
      : {}),
    reviewWarnings: warnings.length,
    loads: facts.governance !== undefined,
  };
}
