import { statSync } from "node:fs";
import { delimiter, join } from "node:path";

/** The script that installs every system tool the suite uses (`npm test` runs it first). */
export const INSTALL_SCRIPT = "scripts/install-test-deps.sh";

/** The commands of `commands` that are not an executable file on the PATH. */
export function missingTools(commands: readonly string[]): string[] {
  const folders = (process.env.PATH ?? "").split(delimiter).filter(Boolean);
  return commands.filter(
    (command) =>
      !folders.some((folder) => {
        try {
          const stats = statSync(join(folder, command));
          return stats.isFile() && (stats.mode & 0o111) !== 0;
        } catch {
          return false;
        }
      }),
  );
}

/**
 * Fails (never skips) when a tool a suite needs is missing: a skipped suite proves nothing,
 * and in CI it would pass silently. The error names the install script that provides them.
 */
export function requireTools(...commands: string[]): void {
  const missing = missingTools(commands);
  if (missing.length > 0)
    throw new Error(
      `this suite needs ${missing.join(", ")}, which is not installed: run \`sudo bash ${INSTALL_SCRIPT}\` (npm test runs it first when it can)`,
    );
}
