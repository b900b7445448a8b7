import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { type Diagnostic, diagnostic } from "../core/diagnostics.js";
import { hashSkillFolder } from "./content-hash.js";
import { loadSkillFolder } from "./load-skill.js";

/** The outcome of strict validation: valid only with no diagnostic at all. */
export interface ValidationResult {
  readonly valid: boolean;
  readonly name: string | undefined;
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * Validates a skill folder against the Agent Skills specification strictly (every
 * finding is an error) plus skillgate's rules: governance values, `parameters_schema`,
 * and no symbolic links or special files anywhere in the folder. Lenient loading
 * (discovery) uses the same rules with some findings as warnings.
 */
export function validateSkillFolder(directory: string): ValidationResult {
  const folder = resolve(directory);
  if (!existsSync(folder) || !statSync(folder).isDirectory()) {
    return {
      valid: false,
      name: undefined,
      diagnostics: [diagnostic("not_found", "error", `${folder} is not a folder`, { path: folder })],
    };
  }
  const loaded = loadSkillFolder(folder, { source: "validate", mode: "strict" });
  const strict = loaded.diagnostics.map((item) =>
    item.severity === "error" ? item : { ...item, severity: "error" as const },
  );
  const hashed = hashSkillFolder(folder);
  const diagnostics = [...strict, ...hashed.diagnostics];
  return { valid: diagnostics.length === 0, name: loaded.skill?.name, diagnostics };
}
