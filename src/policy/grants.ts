/** Who holds grants: a chat or a job. */
export interface GrantScope {
  readonly kind: "chat" | "job";
  readonly id: string;
}

/**
 * Where "always allow" answers are kept: per chat and per job. The chat log keeps them in
 * its database so several processes see them; {@link MemoryGrantStore} is for tests and
 * embedders that want nothing on disk.
 */
export interface GrantStore {
  grants(scope: GrantScope): ReadonlySet<string>;
  addGrant(scope: GrantScope, grant: string): void;
}

/** Grants held in memory only. */
export class MemoryGrantStore implements GrantStore {
  readonly #grants = new Map<string, Set<string>>();

  grants(scope: GrantScope): ReadonlySet<string> {
    return this.#grants.get(key(scope)) ?? new Set();
  }

  addGrant(scope: GrantScope, grant: string): void {
    const set = this.#grants.get(key(scope)) ?? new Set<string>();
    set.add(grant);
    this.#grants.set(key(scope), set);
  }
}

function key(scope: GrantScope): string {
  return `${scope.kind}\0${scope.id}`;
}
