import { resolve } from "node:path";
import { createInterface } from "node:readline/promises";
import { type Command, Option } from "commander";
import { type ApprovalMode, runSkillScript } from "../../../app/run-skill-script.js";
import {
  createTerminalTextFilter,
  escapeJsonControls,
  escapeTerminalControls,
} from "../../../core/terminal-text.js";
import type { ApprovalRequest } from "../../../policy/approvals.js";
import { describeEnforcedLimits, type EnforcedLimits } from "../../../runners/enforced-limits.js";
import { describeWorkspaceChanges, noChanges } from "../../../runners/workspace/changes.js";
import { skillgateOptions } from "../context.js";
import { type CliOutput, paint } from "../output.js";

interface RunOptions {
  readonly args?: string;
  readonly node?: string;
  readonly yes?: boolean;
  readonly always?: boolean;
  readonly json?: boolean;
}

/**
 * `skillgate run <skill> <script> [--args TEXT] [--node NAME] [--yes | --always] [--json] [-- ARG...]`:
 * runs a script through the whole path a model's call takes and prints its output; what
 * follows `--` becomes the arguments' `argv`. Exit codes: 0 ok; 1 failed, refused, denied or
 * declined; 2 usage; 124 timed out; 130 interrupted.
 */
export function registerRun(program: Command, output: CliOutput): void {
  program
    .command("run")
    .description("run a skill's script the way a model's run_skill_script call runs it, and print its output")
    .argument("<skill>", "the skill's name")
    .argument("<script>", "the script's path, such as scripts/run.py")
    .argument("[argv...]", "after --: the script's command-line arguments (the arguments' argv)")
    .option("--args <text>", "the arguments as a model would send them: JSON text, taken exactly as given")
    .option("--node <name>", "a top-level node next to the arguments, as a model may send it")
    .addOption(new Option("--yes", "approve this run once if the policy asks").conflicts("always"))
    .option(
      "--always",
      "approve and grant this skill at its current hash to the chat `cli` (later runs do not ask)",
    )
    .option("--json", "print the result as JSON instead of the script's output")
    .addHelpText(
      "after",
      "\nEverything after -- is passed to the script after its path, as the arguments' argv:\n" +
        "  skillgate run pdf scripts/check_fillable_fields.py -- input.pdf\n" +
        "The rest of --args still reaches the script as JSON on stdin; --args with an argv of its own and\n" +
        "arguments after -- together are refused.\n" +
        "\nWithout --yes or --always an ask is put to you at the terminal (y/N); with no terminal it is declined.\n" +
        "Exit codes: 0 ok; 1 failed, refused, denied or declined; 124 timed out; 130 interrupted.\n",
    )
    .action(async (skill: string, script: string, argv: string[], options: RunOptions, command: Command) => {
      if (argv.length > 0 && !afterDoubleDash(command, argv))
        command.error(
          `error: put the script's arguments after --, as in: skillgate run ${[skill, script, "--", ...argv].map(shellWord).join(" ")}`,
          { exitCode: 2 },
        );
      const approval: ApprovalMode = options.always ? "always" : options.yes ? "once" : "ask";
      const scriptOutput = scriptOutputPrinter(output);
      const controller = new AbortController();
      const onInterrupt = (): void => controller.abort();
      process.on("SIGINT", onInterrupt);
      try {
        const settings = skillgateOptions(command);
        const outcome = await runSkillScript(settings, {
          skill,
          script,
          // The project root of the turn: the first --root, else the current folder.
          workspace: resolve(settings.roots?.[0] ?? process.cwd()),
          approval,
          signal: controller.signal,
          ...(options.args !== undefined ? { argumentsText: options.args } : {}),
          ...(options.node !== undefined ? { node: options.node } : {}),
          ...(argv.length > 0 ? { argv } : {}),
          ...(terminalAsk(output) ?? {}),
          ...(options.json ? {} : { onOutput: scriptOutput.write }),
        });
        scriptOutput.end();
        if (options.json) {
          // The script's text, controls included, decodes unchanged; none reach a terminal raw.
          const result = {
            status: outcome.status,
            exitCode: outcome.exitCode,
            text: outcome.text,
            ...(outcome.run !== undefined ? { run: outcome.run } : {}),
          };
          output.out(`${escapeJsonControls(JSON.stringify(result, null, 2))}\n`);
        } else {
          reportEnd(output, script, outcome);
        }
        process.exitCode = outcome.exitCode;
      } finally {
        process.removeListener("SIGINT", onInterrupt);
      }
    });
}

/** A word as a POSIX shell would need it typed: as it is when plain, else in single quotes. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/**
 * True when the extra operands are exactly what follows the first `--` of the command line:
 * commander drops the `--` itself, so the root command's raw arguments tell an operand typed
 * after it (the script's) from a stray one typed before it (a mistake, refused).
 */
function afterDoubleDash(command: Command, operands: readonly string[]): boolean {
  let root = command;
  while (root.parent !== null) root = root.parent;
  // `rawArgs` is set by every parse (commander 2 onwards) but is not in its type declarations;
  // a test of `run SKILL SCRIPT ARG` (refused) and `run SKILL SCRIPT -- ARG` (run) guards it.
  const raw: unknown = (root as unknown as { rawArgs?: unknown }).rawArgs;
  if (!Array.isArray(raw)) return false;
  const separator = raw.indexOf("--");
  if (separator === -1) return false;
  const tail: unknown[] = raw.slice(separator + 1);
  return tail.length === operands.length && tail.every((item, index) => item === operands[index]);
}

/**
 * Prints a script's streamed output. On a terminal its control sequences (window titles,
 * clipboard writes, screen clears) are shown escaped rather than obeyed, each stream checked
 * on its own; a pipe or file gets the bytes as the script wrote them (docs/running-scripts.md).
 */
function scriptOutputPrinter(output: CliOutput): {
  write: (stream: "stdout" | "stderr", chunk: string) => void;
  end: () => void;
} {
  const streams = {
    stdout: {
      print: output.out,
      filter: process.stdout.isTTY === true ? createTerminalTextFilter() : undefined,
    },
    stderr: {
      print: output.err,
      filter: process.stderr.isTTY === true ? createTerminalTextFilter() : undefined,
    },
  };
  return {
    write: (stream, chunk) => {
      const { print, filter } = streams[stream];
      print(filter === undefined ? chunk : filter.write(chunk));
    },
    end: () => {
      for (const { print, filter } of Object.values(streams)) {
        const rest = filter?.end() ?? "";
        if (rest !== "") print(rest);
      }
    },
  };
}

/** A y/N question on the terminal, when there is one to ask on. */
function terminalAsk(output: CliOutput): { ask: (request: ApprovalRequest) => Promise<boolean> } | undefined {
  if (process.stdin.isTTY !== true) return undefined;
  return {
    ask: async (request) => {
      const lines = [
        `${paint(output, "bold", "skillgate asks")}: ${escapeTerminalControls(request.summary)}`,
        `  tier ${request.tier}${request.hash !== undefined ? `, hash ${request.hash.slice(0, 8)}` : ""}`,
        ...(request.warning !== undefined ? [`  ${paint(output, "red", request.warning)}`] : []),
        // What else is approved with the run: a package environment's build (what, from where).
        ...(request.detail !== undefined ? [escapeTerminalControls(request.detail)] : []),
      ];
      output.err(`${lines.join("\n")}\n`);
      const prompt = createInterface({ input: process.stdin, output: process.stderr });
      try {
        const answer = await prompt.question("Run it? [y/N] ");
        return /^y(es)?$/i.test(answer.trim());
      } finally {
        prompt.close();
      }
    },
  };
}

/**
 * After the streamed output: what skillgate itself has to say, on stderr, so stdout stays
 * the script's own. Refusals and denials are the `HOST:` text a model would get.
 */
function reportEnd(
  output: CliOutput,
  script: string,
  outcome: Awaited<ReturnType<typeof runSkillScript>>,
): void {
  const run = outcome.run;
  if (run === undefined || run.status === "refused") {
    output.err(`${outcome.text}\n`);
    if (outcome.unanswerable)
      output.err(
        "skillgate: there is no terminal to ask on; pass --yes to approve once or --always to grant.\n",
      );
    return;
  }
  reportLimits(output, run.limits);
  const changes = run.workspaceChanges;
  if (changes !== undefined && !noChanges(changes))
    output.err(
      `skillgate: the run changed the workspace:\n${describeWorkspaceChanges(changes)
        .map((line) => `  ${escapeTerminalControls(line)}\n`)
        .join("")}`,
    );
  if (run.stdoutTruncated) output.err("HOST: stdout was cut at the output limit.\n");
  if (run.stderrTruncated) output.err("HOST: stderr was cut at the output limit.\n");
  if (run.status === "timed_out" || run.status === "interrupted") {
    output.err(`${outcome.text.split("\n")[0]}\n`);
    return;
  }
  if (run.status !== "ok" || run.exitCode !== 0) {
    const how =
      run.signal !== undefined ? `was killed by ${run.signal}` : `exited with code ${run.exitCode ?? "none"}`;
    output.err(`skillgate: ${script} ${how}.\n`);
  }
}

/**
 * Which limits held the run and how: always when its cgroup could not be made (it ran on
 * rlimits alone, which must not pass unnoticed), otherwise on a terminal only, so a pipe
 * gets the script's output and nothing more.
 */
function reportLimits(output: CliOutput, limits: EnforcedLimits | undefined): void {
  if (limits === undefined) return;
  if (limits.cgroup.failed === true)
    output.err(
      `skillgate: ${paint(output, "yellow", "warning")}: this run's cgroup could not be made (${escapeTerminalControls(limits.cgroup.reason ?? "no reason given")}), so it was limited by rlimits only. Limits: ${describeEnforcedLimits(limits)}\n`,
    );
  else if (process.stderr.isTTY === true)
    output.err(`skillgate: limits: ${describeEnforcedLimits(limits)}\n`);
}
