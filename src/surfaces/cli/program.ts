import { Command, CommanderError } from "commander";
import { isSkillgateError } from "../../core/errors.js";
import { commandsFor } from "./command-modules.js";
import { type CliOutput, processOutput } from "./output.js";
import { CLI_VERSION } from "./version.js";

export { CLI_VERSION } from "./version.js";

/**
 * Builds the `skillgate` command with the subcommands `argv` needs: the one it names, or
 * every one for help and usage errors (see command-modules.ts). Each command's module is
 * imported only here, so `skillgate list` never loads what `skillgate mcp` or `run` use.
 */
export async function buildProgram(output: CliOutput, argv: readonly string[] = []): Promise<Command> {
  const program = new Command("skillgate")
    .description(
      "A governed runtime for Agent Skills: find skills, decide what may be offered, show models a budgeted index.",
    )
    .version(CLI_VERSION)
    .option(
      "-r, --root <dir>",
      "a project root to search (repeatable; default: the current folder)",
      collect,
      [],
    )
    .option("--config <dir>", "the config folder (default: $SKILLGATE_HOME/config or the platform's)")
    .option("--data <dir>", "the data folder (default: $SKILLGATE_HOME/data or the platform's)")
    .option("--no-builtins", "leave out the built-in skills")
    .option(
      "--project-extensions",
      "also load the project roots' .skillgate/extensions and hooks.json (runs the project's code)",
    )
    .configureOutput(configured(output))
    .exitOverride();
  for (const register of await commandsFor(argv)) register(program, output);
  configureTree(program.commands, output);
  return program;
}

/** Every command at every depth (`store enable` too) reports errors the same way. */
function configureTree(commands: readonly Command[], output: CliOutput): void {
  for (const command of commands) {
    command.exitOverride().configureOutput(configured(output));
    configureTree(command.commands, output);
  }
}

/**
 * Commander's output through `output`, with its usage errors (`error: …` and a suggestion
 * on the next line) turned into the one line every skillgate error is: `skillgate: …`.
 */
function configured(output: CliOutput) {
  return {
    writeOut: output.out,
    writeErr: output.err,
    outputError: (text: string, write: (text: string) => void) => {
      const message = text
        .replace(/^error: /, "")
        .split("\n")
        .map((line) => line.trim())
        .filter((line) => line.length > 0)
        .join(" ");
      write(`skillgate: ${message} (run skillgate --help for usage)\n`);
    },
  };
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/**
 * Runs the CLI and returns the exit code. Errors print one line (`skillgate: …`), never
 * a stack trace: 2 for usage errors (an unknown command or flag, a bad value, no command),
 * 1 for refusals and failures. `process.exitCode` is left as the caller had it.
 */
export async function runCli(argv: readonly string[], output: CliOutput = processOutput()): Promise<number> {
  // Commands report their exit code through process.exitCode; keep the caller's value.
  const callerExitCode = process.exitCode;
  process.exitCode = 0;
  try {
    const program = await buildProgram(output, argv);
    await program.parseAsync([...argv], { from: "user" });
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === "commander.helpDisplayed" || error.code === "commander.version") return 0;
      // `skillgate help [command]` asked for help; help printed because no command was given
      // (commander's exit code 1) is a usage error.
      if (error.code === "commander.help" && error.exitCode === 0) return 0;
      return 2;
    }
    if (isSkillgateError(error)) {
      output.err(`skillgate: ${error.message} [${error.code}]\n`);
      return 1;
    }
    output.err(`skillgate: unexpected error: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  } finally {
    process.exitCode = callerExitCode;
  }
}
