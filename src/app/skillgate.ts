import { join } from "node:path";
import { type Catalog, type CatalogOptions, createCatalog } from "../catalog/catalog.js";
import { resolveFolders } from "../core/folders.js";
import { readEnabledNames } from "../store/enabled-names.js";
import { Store } from "../store/store.js";

/** Options of {@link createSkillgate}: the catalog's, plus whether to include the store. */
export interface SkillgateOptions extends Omit<CatalogOptions, "store"> {
  /** Offer the managed store's enabled skills (default true). */
  readonly useStore?: boolean;
}

/** skillgate assembled: the catalog over every source, and the managed store on demand. */
export interface Skillgate {
  readonly catalog: Catalog;
  /** `<data>/skills`. */
  readonly storeFolder: string;
  /** Opens the managed store (creating its folder on first use); one instance per Skillgate. */
  openStore(): Promise<Store>;
}

/**
 * Wires the layers together: the catalog reads the store's enabled names on each
 * discovery (read-only, so listing skills never creates the store), and the store is
 * opened only when asked for.
 */
export function createSkillgate(options: SkillgateOptions = {}): Skillgate {
  const storeFolder = storeFolderOf(options);
  const catalog = createCatalog(withStoreSource(options));
  let store: Promise<Store> | undefined;
  return {
    catalog,
    storeFolder,
    openStore: () => {
      store ??= Store.open({ dataFolder: catalog.folders.data });
      return store;
    },
  };
}

function storeFolderOf(options: SkillgateOptions): string {
  return join(resolveFolders(options).data, "skills");
}

/** Catalog options that include the managed store as a source (unless `useStore` is false). */
export function withStoreSource(options: SkillgateOptions): CatalogOptions {
  if (options.useStore === false) return options;
  const storeFolder = storeFolderOf(options);
  return { ...options, store: { folder: storeFolder, enabledNames: () => readEnabledNames(storeFolder) } };
}
