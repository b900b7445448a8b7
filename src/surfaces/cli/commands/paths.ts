import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { CONFIG_FILE } from "../../../config/config.js";
import { catalogFromFlags } from "../context.js";
import { type CliOutput, paint, printJson } from "../output.js";

/** `skillgate paths [--json]`: the config, data and skill folders in use, in precedence order. */
export function registerPaths(program: Command, output: CliOutput): void {
  program
    .command("paths")
    .description("show the config, data and skill folders in use (skill folders lowest precedence first)")
    .option("--json", "print JSON")
    .action(async (options: { json?: boolean }, command: Command) => {
      const { catalog } = await catalogFromFlags(command, output);
      const folders = catalog.folderSources().map((source) => ({
        source: source.source,
        folder: source.folder,
        reason: source.reason,
        exists: existsSync(source.folder),
      }));
      const value = {
        config: catalog.folders.config,
        configFile: join(catalog.folders.config, CONFIG_FILE),
        data: catalog.folders.data,
        skillFolders: folders,
      };
      if (options.json) {
        printJson(output, value);
        return;
      }
      const lines = [
        `config: ${value.config}`,
        `config file: ${value.configFile}${existsSync(value.configFile) ? "" : " (not present; defaults apply)"}`,
        `data:   ${value.data}`,
        "skill folders (lowest precedence first; npm packages slot in after builtin):",
      ];
      folders.forEach((folder, index) => {
        lines.push(
          `  ${String(index + 1).padStart(2)}. ${folder.source.padEnd(8)} ${folder.folder}${folder.exists ? "" : paint(output, "dim", "  (missing)")}`,
        );
      });
      output.out(`${lines.join("\n")}\n`);
    });
}
