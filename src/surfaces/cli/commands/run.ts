import { resolve } from "node:path";
import { createInterface } from "node:readline/promises";
import { type Command, Option } from "commander";
import {
  type ApprovalMode,
  type RunSkillScriptOutcome,
  runSkillScript,
} from "../../../app/run-skill-script.js";
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
import type { RemoteRunInput } from "./run-remote.js";

interface RunOptions {
  readonly args?: string;
  readonly node?: string;
  readonly yes?: boolean;
  readonly always?: boolean;
  readonly json?: boolean;
  readonly server?: string;
  readonly token?: string;
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
    .option(
      "--server <url>",
      "run it on that skillgate serve (its Skillgate, policy, grants, audit and nodes) instead of here",
    )
    .option("--token <token>", "with --server: the owner token (default $SKILLGATE_TOKEN)")
    .addHelpText(
      "after",
      "\nEverything after -- is passed to the script after its path, as the arguments' argv:\n" +
        "  skillgate run pdf scripts/check_fillable_fields.py -- input.pdf\n" +
        "The rest of --args still reaches the script as JSON on stdin; --args with an argv of its own and\n" +
        "arguments after -- together are refused.\n" +
        "\nWithout --yes or --always an ask is put to you at the terminal (y/N); with no terminal it is declined.\n" +
        "With --server URL the run goes to that server (POST /api/runs) and has no workspace; an ask there is\n" +
        "declined unless --yes or --always is given. The owner token comes from --token or $SKILLGATE_TOKEN.\n" +
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
        const outcome =
          options.server !== undefined
            ? await remoteRun(command, output, options.server, {
                skill,
                script,
                approval,
                signal: controller.signal,
                token: options.token,
                ...(options.args !== undefined ? { argumentsText: options.args } : {}),
                ...(options.node !== undefined ? { node: options.node } : {}),
                ...(argv.length > 0 ? { argv } : {}),
                ...(options.json ? {} : { onOutput: scriptOutput.write }),
              })
            : await localRun(
                command,
                skill,
                script,
                argv,
                approval,
                controller.signal,
                options,
                output,
                scriptOutput,
              );
        if (outcome === undefined) return;
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
          reportEnd(output, script, outcome, options.server !== undefined);
        }
        process.exitCode = outcome.exitCode;
      } finally {
        process.removeListener("SIGINT", onInterrupt);
      }
    });
}

/** The local run: this process's own Skillgate, the current folder as the workspace. */
function localRun(
  command: Command,
  skill: string,
  script: string,
  argv: readonly string[],
  approval: ApprovalMode,
  signal: AbortSignal,
  options: RunOptions,
  output: CliOutput,
  scriptOutput: { write: (stream: "stdout" | "stderr", chunk: string) => void },
): Promise<RunSkillScriptOutcome> {
  const settings = skillgateOptions(command);
  return runSkillScript(settings, {
    skill,
    script,
    // The project root of the turn: the first --root, else the current folder.
    workspace: resolve(settings.roots?.[0] ?? process.cwd()),
    approval,
    signal,
    ...(options.args !== undefined ? { argumentsText: options.args } : {}),
    ...(options.node !== undefined ? { node: options.node } : {}),
    ...(argv.length > 0 ? { argv } : {}),
    ...(terminalAsk(output) ?? {}),
    ...(options.json ? {} : { onOutput: scriptOutput.write }),
  });
}

/**
 * The run on a server (`--server URL`): undefined, with the reason printed and exit code 1,
 * when the server could not be reached or refused the request itself.
 */
async function remoteRun(
  command: Command,
  output: CliOutput,
  server: string,
  input: RemoteRunInput & {
    readonly token: string | undefined;
    readonly signal: AbortSignal;
    readonly onOutput?: (stream: "stdout" | "stderr", chunk: string) => void;
  },
): Promise<RunSkillScriptOutcome | undefined> {
  const token = input.token ?? process.env.SKILLGATE_TOKEN;
  if (token === undefined || token === "")
    command.error("error: --server needs the owner token: pass --token or set SKILLGATE_TOKEN", {
      exitCode: 2,
    });
  if (!/^https?:\/\//.test(server))
    command.error(
      `error: --server takes the server's URL, such as http://127.0.0.1:3917 (got ${shellWord(server)})`,
      {
        exitCode: 2,
      },
    );
  const { runOnServer, RemoteRunError } = await import("./run-remote.js");
  try {
    return await runOnServer(server, token, input, {
      signal: input.signal,
      ...(input.onOutput !== undefined ? { onOutput: input.onOutput } : {}),
    });
  } catch (error) {
    if (!(error instanceof RemoteRunError)) throw error;
    output.err(`skillgate: ${escapeTerminalControls(error.message)}\n`);
    process.exitCode = 1;
    return undefined;
  }
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
function reportEnd(output: CliOutput, script: string, outcome: RunSkillScriptOutcome, remote: boolean): void {
  const run = outcome.run;
  if (run === undefined || run.status === "refused") {
    output.err(`${outcome.text}\n`);
    if (outcome.unanswerable)
      output.err(
        remote
          ? "skillgate: the server cannot ask you over this request; pass --yes to approve once or --always to grant.\n"
          : "skillgate: there is no terminal to ask on; pass --yes to approve once or --always to grant.\n",
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
