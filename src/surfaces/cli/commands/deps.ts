import { createInterface } from "node:readline/promises";
import type { Command } from "commander";
import { buildSkillPackages } from "../../../app/skill-packages.js";
import { escapeTerminalControls } from "../../../core/terminal-text.js";
import type { ApprovalRequest } from "../../../policy/approvals.js";
import { skillgateOptions } from "../context.js";
import { type CliOutput, paint } from "../output.js";

interface DepsOptions {
  readonly rebuild?: boolean;
  readonly yes?: boolean;
  readonly json?: boolean;
}

/**
 * `skillgate deps <skill> [--rebuild] [--yes] [--json]`: builds a skill's package
 * environment ahead of its first run, with the same ask and rules as a run's build. Exit
 * codes: 0 built, reused or nothing declared; 1 declined or refused.
 */
export function registerDeps(program: Command, output: CliOutput): void {
  program
    .command("deps")
    .description("build a skill's declared packages into its environment ahead of its first run")
    .argument("<skill>", "the skill's name")
    .option("--rebuild", "remove the environment of the skill's current hash and build it again")
    .option("--yes", "approve the build without asking")
    .option("--json", "print the outcome as JSON")
    .addHelpText(
      "after",
      "\nWithout --yes the build is put to you at the terminal (y/N); with no terminal it is declined.\n" +
        "Exit codes: 0 built, reused or nothing declared; 1 declined or refused.\n",
    )
    .action(async (skill: string, options: DepsOptions, command: Command) => {
      const outcome = await buildSkillPackages(skillgateOptions(command), {
        skill,
        ...(options.rebuild === true ? { rebuild: true } : {}),
        ...(options.yes === true ? { approved: true } : {}),
        ...(terminalAsk(output) ?? {}),
      });
      if (options.json) output.out(`${JSON.stringify(outcome, null, 2)}\n`);
      else if (outcome.status === "declined" || outcome.status === "refused") output.err(`${outcome.text}\n`);
      else output.out(`${outcome.text}\n`);
      process.exitCode = outcome.status === "declined" || outcome.status === "refused" ? 1 : 0;
    });
}

/** The build's ask on the terminal: what is installed and from where, then y/N. */
function terminalAsk(output: CliOutput): { ask: (request: ApprovalRequest) => Promise<boolean> } | undefined {
  if (process.stdin.isTTY !== true) return undefined;
  return {
    ask: async (request) => {
      output.err(
        `${paint(output, "bold", "skillgate asks")}: ${escapeTerminalControls(request.summary)}\n${escapeTerminalControls(request.detail ?? "")}\n`,
      );
      const prompt = createInterface({ input: process.stdin, output: process.stderr });
      try {
        return /^y(es)?$/i.test((await prompt.question("Build it? [y/N] ")).trim());
      } finally {
        prompt.close();
      }
    },
  };
}
