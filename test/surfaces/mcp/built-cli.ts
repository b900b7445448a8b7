import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The built CLI (`npm run build`), run as MCP clients run it: a real process over real pipes. */

export const repository = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const cliMain = join(repository, "dist", "surfaces", "cli", "main.js");

/** Builds the package once when there is no build yet (CI runs the tests before a build). */
export function ensureBuilt(): void {
  if (!existsSync(cliMain))
    execFileSync("npx", ["tsc", "-p", "tsconfig.build.json"], { cwd: repository, stdio: "pipe" });
}

/** The environment a spawned skillgate gets: the PATH and a home of the test's own. */
export function childEnvironment(home: string): Record<string, string> {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, NO_COLOR: "1" };
}

/** Runs `skillgate ARGV` to the end. */
export function runBuiltCli(
  argv: readonly string[],
  home: string,
): { code: number | null; out: string; err: string } {
  const result = spawnSync(process.execPath, [cliMain, ...argv], {
    cwd: home,
    encoding: "utf8",
    env: childEnvironment(home),
  });
  return { code: result.status, out: result.stdout, err: result.stderr };
}
