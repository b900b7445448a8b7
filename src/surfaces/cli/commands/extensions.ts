import { existsSync } from "node:fs";
import type { Command } from "commander";
import type { Skillgate } from "../../../app/skillgate.js";
import { type ExtensionProblem, extensionFolders, hooksFiles } from "../../../extensions/load.js";
import type { RegistrySummary } from "../../../extensions/registry.js";
import { skillgateFromFlags } from "../context.js";
import { type CliOutput, paint, printJson } from "../output.js";

/**
 * `skillgate extensions`, `skillgate hooks list`, `skillgate commands` and
 * `skillgate command NAME [TEXT...]`: what extensions and hooks files add, where each came
 * from, and the extensions' slash commands. Each loads the extension files (running the
 * owner's code in `<config>/extensions`; a project's only with the opt-in). `extensions` and
 * `hooks list` exit 1 when an extension file failed or a hooks file could not be used.
 */
export function registerExtensions(program: Command, output: CliOutput): void {
  program
    .command("extensions")
    .description("load the extensions and hooks files and show what each added, or why it failed")
    .option("--json", "print JSON")
    .action(async (options: { json?: boolean }, command: Command) => {
      const skillgate = await skillgateFromFlags(command, quiet(output));
      const summary = skillgate.extensions.registry.summary();
      const settings = skillgate.extensions.settings();
      const problems = skillgate.extensions.problems;
      skillgate.close();
      process.exitCode = problems.length > 0 ? 1 : 0;
      const folders = extensionFolders({
        config: settings.configFolder,
        roots: settings.roots,
        project: settings.project,
      });
      if (options.json)
        return printJson(output, { ...summary, folders: [...folders, ...settings.paths], problems });
      const lines = extensionLines(output, summary);
      lines.unshift(`looked in: ${[...folders, ...settings.paths].join(", ")}`);
      lines.push(...problemLines(output, problems));
      output.out(`${lines.join("\n")}\n`);
    });

  const hooks = program.command("hooks").description("shell hooks and extension hooks");
  hooks
    .command("list")
    .description("every hook with its event, tool match, command and where it came from")
    .option("--json", "print JSON")
    .action(async (options: { json?: boolean }, command: Command) => {
      const skillgate = await skillgateFromFlags(command, quiet(output));
      const summary = skillgate.extensions.registry.summary();
      const skipped = unloadedProjectHooks(skillgate);
      const problems = skillgate.extensions.problems;
      skillgate.close();
      process.exitCode = problems.length > 0 ? 1 : 0;
      if (options.json) return printJson(output, { hooks: summary.hooks, notLoaded: skipped, problems });
      output.out(
        `${[...hookLines(output, summary, skipped), ...problemLines(output, problems)].join("\n")}\n`,
      );
    });

  program
    .command("commands")
    .description("the slash commands extensions registered")
    .option("--json", "print JSON")
    .action(async (options: { json?: boolean }, command: Command) => {
      const summary = await loadedSummary(command, output);
      if (options.json) return printJson(output, summary.commands);
      if (summary.commands.length === 0) return output.out("no commands\n");
      const width = Math.max(...summary.commands.map((entry) => entry.name.length));
      output.out(
        `${summary.commands
          .map(
            (entry) =>
              `/${entry.name.padEnd(width)}  ${entry.help}${paint(output, "dim", `  (${entry.origin})`)}`,
          )
          .join("\n")}\n`,
      );
    });

  program
    .command("command")
    .description("run an extension's slash command with the rest of the line as its text")
    .argument("<name>", "the command's name, without the slash")
    .argument("[text...]", "the text after the command")
    .action(async (name: string, text: string[], _options: unknown, command: Command) => {
      const skillgate = await skillgateFromFlags(command, output);
      try {
        const result = await skillgate.extensions.registry.runCommand(
          name.replace(/^\//, ""),
          text.join(" "),
        );
        if (result !== undefined && result !== null)
          output.out(`${typeof result === "string" ? result : JSON.stringify(result)}\n`);
      } finally {
        skillgate.close();
      }
    });
}

async function loadedSummary(command: Command, output: CliOutput): Promise<RegistrySummary> {
  const skillgate = await skillgateFromFlags(command, output);
  skillgate.close();
  return skillgate.extensions.registry.summary();
}

/**
 * These commands report problems themselves (and exit 1), so the bootstrap's warning lines
 * would say the same twice.
 */
function quiet(output: CliOutput): CliOutput {
  return { ...output, err: () => {} };
}

/** One line per file that could not be used, after the listing. */
function problemLines(output: CliOutput, problems: readonly ExtensionProblem[]): string[] {
  if (problems.length === 0) return [];
  return [
    paint(output, "red", `problems: ${problems.length} file(s) not loaded`),
    ...problems.map((problem) => `  ${problem.code}: ${problem.message}\n      at ${problem.file}`),
  ];
}

function extensionLines(output: CliOutput, summary: RegistrySummary): string[] {
  const lines =
    summary.notes.length > 0 ? summary.notes.map((note) => `  ${note}`) : ["  (no extension files)"];
  lines.unshift("files:");
  lines.push("tools:");
  for (const tool of summary.tools)
    lines.push(`  ${tool.name} [${tool.tier}] ${paint(output, "dim", tool.origin)}`);
  lines.push("skills:");
  for (const skill of summary.skills) lines.push(`  ${skill.name} (${skill.source}) ${skill.description}`);
  lines.push(`commands: ${summary.commands.map((entry) => `/${entry.name}`).join(" ") || "none"}`);
  lines.push(`hooks: ${summary.hooks.length} (skillgate hooks list)`);
  lines.push(`approval policy: ${summary.approvalPolicy ?? "none (the rules decide alone)"}`);
  return lines;
}

function hookLines(output: CliOutput, summary: RegistrySummary, skipped: readonly string[]): string[] {
  const lines: string[] = [];
  if (summary.hooks.length === 0) lines.push("no hooks");
  for (const hook of summary.hooks) {
    const match = hook.match !== undefined ? ` match ${hook.match}` : "";
    const what = hook.command !== undefined ? `$ ${hook.command}` : "(an extension's function)";
    lines.push(`${hook.event}${match}  ${what}`);
    lines.push(
      paint(output, "dim", `  from ${hook.origin}${hook.scope !== undefined ? ` (${hook.scope})` : ""}`),
    );
  }
  for (const file of skipped) {
    lines.push(
      paint(
        output,
        "yellow",
        `not loaded: ${file} (a project's hooks run only with extensions.project: true in config.yaml or --project-extensions)`,
      ),
    );
  }
  return lines;
}

/** Project hooks files that exist but were not loaded for want of the opt-in. */
function unloadedProjectHooks(skillgate: Skillgate): string[] {
  if (skillgate.extensions.settings().project) return [];
  return hooksFiles({ roots: skillgate.catalog.roots, project: true })
    .map((location) => location.file)
    .filter((file) => existsSync(file));
}
