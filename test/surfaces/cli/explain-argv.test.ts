import { cpSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliSandbox } from "./harness.js";

const FIXTURES = join(import.meta.dirname, "..", "..", "fixtures", "skills");

/** A sandbox whose project holds the fixture skills named. */
function withFixtures(...names: string[]) {
  const sandbox = cliSandbox();
  for (const name of names) cpSync(join(FIXTURES, name), join(sandbox.skills, name), { recursive: true });
  return sandbox;
}

describe("skillgate explain: how each script is called", () => {
  it("text: a script that reads argv gets a line with its reader and usage; one that does not gets none", async () => {
    const sandbox = withFixtures("argv-python-sys-argv", "argv-python-none");
    const reads = await sandbox.run(["explain", "argv-python-sys-argv"]);
    expect(reads.code).toBe(0);
    const lines = reads.out.split("\n");
    const at = lines.findIndex((line) => line.startsWith("  scripts/convert.py (python) "));
    expect(at).toBeGreaterThan(0);
    expect(lines[at + 1]).toBe("    reads argv (sys.argv); usage: convert.py [input file] [output folder]");
    const silent = await sandbox.run(["explain", "argv-python-none"]);
    expect(silent.out).toContain("  scripts/stdin_only.py (python) ");
    expect(silent.out).not.toContain("reads argv");
  });

  it("--json: scripts carry commandLine only when the script's text shows it", async () => {
    const sandbox = withFixtures("argv-shell-getopts", "argv-shell-function-only");
    const reads = JSON.parse((await sandbox.run(["explain", "argv-shell-getopts", "--json"])).out) as {
      scripts: Array<Record<string, unknown>>;
    };
    expect(reads.scripts).toEqual([
      expect.objectContaining({
        path: "scripts/resize.sh",
        language: "bash",
        commandLine: { reads: "getopts", usage: "resize.sh [-w WIDTH] IMAGE", usageFrom: "usage text" },
      }),
    ]);
    const silent = JSON.parse((await sandbox.run(["explain", "argv-shell-function-only", "--json"])).out) as {
      scripts: Array<Record<string, unknown>>;
    };
    expect(silent.scripts).toHaveLength(1);
    expect(silent.scripts[0]).not.toHaveProperty("commandLine");
  });
});
