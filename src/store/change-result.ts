import type { Diagnostic } from "../core/diagnostics.js";
import type { ScriptProblem } from "./import/script-problems.js";
import type { IndexEntry } from "./index-file.js";
import type { ChangeResult } from "./store-types.js";

/** What a store write returns for `name`: the entry as written, the revision, and what the checks said. */
export function changeResult(
  name: string,
  entry: IndexEntry,
  revision: number,
  diagnostics: readonly Diagnostic[],
  scriptWarnings: readonly ScriptProblem[] = [],
): ChangeResult {
  return {
    name,
    hash: entry.hash,
    enabled: entry.enabled,
    source: entry.source,
    updated: entry.updated,
    revision,
    diagnostics,
    scriptWarnings,
  };
}
