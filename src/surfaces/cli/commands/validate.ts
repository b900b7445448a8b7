import type { Command } from "commander";
import { validateSkillFolder } from "../../../skill/validate.js";
import { type CliOutput, paint, printJson } from "../output.js";

/** `skillgate validate <dir> [--json]`: the strict specification; exit 1 on any finding. */
export function registerValidate(program: Command, output: CliOutput): void {
  program
    .command("validate")
    .description(
      "validate a skill folder strictly against the Agent Skills specification and skillgate's rules (exit 1 on any problem)",
    )
    .argument("<dir>", "the skill folder (the one holding SKILL.md)")
    .option("--json", "print JSON")
    .action((directory: string, options: { json?: boolean }) => {
      const result = validateSkillFolder(directory);
      process.exitCode = result.valid ? 0 : 1;
      if (options.json) {
        printJson(output, result);
        return;
      }
      if (result.valid) {
        output.out(`${paint(output, "green", "valid")}: ${result.name ?? directory}\n`);
        return;
      }
      const lines = result.diagnostics.map(
        (item) =>
          `${paint(output, "red", "error")} ${item.code}${item.field ? ` (${item.field})` : ""}: ${item.message}${item.hint ? `\n    fix: ${item.hint}` : ""}`,
      );
      output.out(`${lines.join("\n")}\n${result.diagnostics.length} problem(s)\n`);
    });
}
