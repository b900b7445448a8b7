/**
 * A catalog's revision: a number that moves whenever what discovery would find may have changed (it
 * works as the store's revision does, docs/store.md "Revision", for the whole catalog: docs/mcp.md,
 * "The catalog, kept by revision"). A long-running process keeps its last discovery result with the
 * revision it was made at and looks again only when the number moved, so a tool call compares two
 * numbers instead of walking the tree. What moves it: the store's own writes in this process
 * (synchronously, before the write resolves), file-system notifications under the searched folders,
 * and the slow re-check that finds what notifications missed (docs/mcp.md, "What a call may miss").
 */
export class CatalogRevision {
  #value = 0;
  readonly #listeners = new Set<(reason: string) => void>();

  /** The current number; it only grows. */
  get value(): number {
    return this.#value;
  }

  /** Moves the number on and tells the listeners (a listener that throws does not stop the others). */
  bump(reason: string): void {
    this.#value += 1;
    for (const listener of this.#listeners) {
      try {
        listener(reason);
      } catch {
        // A listener's failure is its own; the revision has moved either way.
      }
    }
  }

  /** Calls `listener` on every bump from now on; returns the function that stops it. */
  onBump(listener: (reason: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
