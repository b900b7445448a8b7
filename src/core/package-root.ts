import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The folder of the installed skillgate package: two levels above this module, both in
 * `src/core/` (tests, tsx) and in `dist/core/` (the built package).
 */
export function packageRoot(): string {
  return join(dirname(fileURLToPath(import.meta.url)), "..", "..");
}

/** The folder of the built-in skills shipped with the package. */
export function builtinSkillsFolder(): string {
  return join(packageRoot(), "skills");
}
