import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeTree, writeSkill } from "../../helpers/skill-tree.js";
import { hasStackTrace } from "./harness.js";

/**
 * A reader that goes away early (`| head -2`, `| true`) closes the pipe under the CLI: the
 * command must end quietly, exit 0, with no EPIPE stack trace on stderr. Real pipes, through
 * the shell, with output well past a pipe's 64 KiB buffer so the write really meets the
 * closed end.
 */

const repository = join(import.meta.dirname, "..", "..", "..");
const main = join(repository, "src", "surfaces", "cli", "main.ts");

function quoted(word: string): string {
  return `'${word.replace(/'/g, "'\\''")}'`;
}

function bigHome(): { tree: string; flags: string[] } {
  const tree = makeTree("skillgate-pipe-");
  const skills = join(tree, "project", ".agents", "skills");
  for (let index = 0; index < 1500; index += 1) {
    writeSkill(skills, `skill-${index}`, {
      frontMatter: {
        name: `skill-${index}`,
        description: `Skill number ${index}, with a description long enough to fill the pipe quickly.`,
      },
    });
  }
  return {
    tree,
    flags: [
      "--config",
      join(tree, "config"),
      "--data",
      join(tree, "data"),
      "--root",
      join(tree, "project"),
      "--no-builtins",
    ],
  };
}

/** Runs `skillgate <argv> | <reader>` in sh; returns the CLI's exit code (PIPESTATUS-free: via a file) and stderr. */
function piped(tree: string, argv: readonly string[], reader: string): { code: string; err: string } {
  const command = [process.execPath, "--import", "tsx", main, ...argv].map(quoted).join(" ");
  const codeFile = join(tree, "code");
  const result = spawnSync(
    "sh",
    [
      "-c",
      `{ ${command} 2>&3; echo $? > ${quoted(codeFile)}; } 3>&2 | ${reader} >/dev/null; cat ${quoted(codeFile)}`,
    ],
    {
      cwd: repository,
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "", HOME: join(tree, "home"), NO_COLOR: "1" },
    },
  );
  return { code: result.stdout.trim(), err: result.stderr };
}

describe("a closed pipe ends the command quietly", () => {
  it("skillgate list | head -2 and skillgate index | true: exit 0, nothing on stderr", () => {
    const { tree, flags } = bigHome();
    for (const [argv, reader] of [
      [[...flags, "list"], "head -2"],
      [[...flags, "list", "--json"], "head -c 10"],
      [[...flags, "index", "--budget", "1000000"], "true"],
    ] as const) {
      const result = piped(tree, argv, reader);
      expect(hasStackTrace(result.err), result.err).toBe(false);
      expect(result.err).not.toContain("EPIPE");
      expect(result.err).toBe("");
      expect(result.code).toBe("0");
    }
  });
});
