import type { Store } from "../../store/store.js";
import { listSkillSummaries, type OwnerSkillSummary, SkillSummaryCache } from "./skill-summaries.js";

/**
 * The owner's skills list as one answer: the store's revision it was read at and the skills.
 * The same object is handed out while nothing it depends on moved, so a caller may keep what
 * it derives from it (a serialised body) by identity.
 */
export interface SkillListSnapshot {
  /** The store's revision the list was read at. */
  readonly revision: number;
  readonly skills: readonly OwnerSkillSummary[];
}

/** What a {@link SkillListCache} asks to know whether its list may be stale. */
export interface SkillListCacheOptions {
  /**
   * The catalog's revision while file-system notifications cover every searched folder (the
   * store's folder among them), else `undefined`. It moves on a hand edit under the store, so
   * the skills' facts (description, runner, tier, lint) are read again; without it the facts
   * are kept per recorded hash and a hand edit shows once the store records a change
   * (docs/http-api.md, "Skills").
   */
  readonly catalogRevision: () => number | undefined;
}

/** What a snapshot was made from: the revision file's stamp and the catalog's number are compared on every call. */
interface SnapshotKey {
  readonly store: number;
  readonly catalog: number | undefined;
  /** The revision file's stamp when the store's revision was read (taken before the read). */
  readonly stamp: string | undefined;
}

/**
 * Keeps the owner's skills list by revision (docs/http-api.md, "Skills"): a call stats the
 * store's revision file (it is replaced on every write, this process's or another's, such
 * as the CLI; the file is read only when its stamp changed) and takes the catalog's
 * revision (a number), and answers the list
 * it made for that pair, reading the store and the skills' files only when one moved.
 * Built-ins are fixed for the store's life, and the enabled state, hash and source live in
 * the store's index, so the pair covers everything the list shows. Concurrent calls at a
 * new pair share one read.
 */
export class SkillListCache {
  readonly #store: Store;
  readonly #catalogRevision: () => number | undefined;
  readonly #summaries = new SkillSummaryCache();
  #kept: { readonly key: SnapshotKey; readonly snapshot: Promise<SkillListSnapshot> } | undefined;
  #factsCatalogRevision: number | undefined;

  constructor(store: Store, options: SkillListCacheOptions) {
    this.#store = store;
    this.#catalogRevision = options.catalogRevision;
  }

  /** The list for the store's and the catalog's revisions now. */
  async current(): Promise<SkillListSnapshot> {
    // The catalog's number is taken first: a change while the store is read moves it, and
    // the next call reads again instead of keeping what this one read.
    const catalog = this.#catalogRevision();
    // One stat first; the revision file is read only when its stamp changed (or is missing).
    const stamp = await this.#store.revisionStamp();
    const kept = this.#kept;
    if (kept !== undefined && stamp !== undefined && kept.key.stamp === stamp && kept.key.catalog === catalog)
      return kept.snapshot;
    const store = await this.#store.revision();
    if (kept !== undefined && kept.key.store === store && kept.key.catalog === catalog) {
      // The file was rewritten with the same number (found behind and repaired): same list.
      this.#kept = { key: { ...kept.key, stamp }, snapshot: kept.snapshot };
      return kept.snapshot;
    }
    const key = { store, catalog, stamp };
    const snapshot = this.#read(key);
    this.#kept = { key, snapshot };
    // A failed read is not kept: the next call tries again.
    snapshot.catch(() => {
      if (this.#kept?.snapshot === snapshot) this.#kept = undefined;
    });
    return snapshot;
  }

  async #read(key: SnapshotKey): Promise<SkillListSnapshot> {
    if (key.catalog !== undefined && key.catalog !== this.#factsCatalogRevision) {
      // Something under the searched folders changed: a skill's files may have been edited
      // by hand without a new recorded hash, so its facts are read again.
      this.#summaries.clear();
    }
    this.#factsCatalogRevision = key.catalog;
    const skills = await listSkillSummaries(this.#store, this.#summaries);
    return { revision: key.store, skills };
  }
}
