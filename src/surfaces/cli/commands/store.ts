import { createInterface } from "node:readline/promises";
import type { Command } from "commander";
import { listSkillSummaries } from "../../../app/owner/skill-summaries.js";
import { escapeTerminalControls } from "../../../core/terminal-text.js";
import { grant } from "../../../skill/content-hash.js";
import {
  githubOptionsFromEnvironment,
  importSkillSource,
  importSourceKind,
} from "../../../store/importers.js";
import type { ChangeResult } from "../../../store/store-types.js";
import { openStoreFromFlags } from "../context.js";
import { type CliOutput, paint, printJson, table } from "../output.js";
import { registerStoreReview } from "./store-review.js";

/**
 * `skillgate store …`: the managed store. Each subcommand takes `--json`. The store is
 * opened (and created) only by these commands.
 */
export function registerStore(program: Command, output: CliOutput): void {
  const store = program
    .command("store")
    .description("manage the skills this machine offers (the managed store)");

  store
    .command("list")
    .description(
      "list stored and built-in skills with their state, hash, author, runner, tier and review warnings",
    )
    .option("--json", "print JSON")
    .action(async (options: { json?: boolean }, command: Command) => {
      const skills = await listSkillSummaries(await openStoreFromFlags(command));
      if (options.json) return printJson(output, { skills });
      const rows = skills.map((skill) => [
        skill.name,
        skill.source,
        skill.enabled ? "enabled" : "disabled",
        skill.hash.slice(0, 8),
        skill.author,
        skill.runner ?? "-",
        skill.tier ?? "-",
        String(skill.reviewWarnings),
        skill.updated ?? "-",
      ]);
      output.out(
        `${table(output, ["NAME", "SOURCE", "STATE", "HASH", "AUTHOR", "RUNNER", "TIER", "WARNINGS", "UPDATED"], rows, (row, column) => (column === 2 ? (rows[row]?.[2] === "enabled" ? "green" : "yellow") : undefined))}\n`,
      );
    });

  store
    .command("show")
    .description("show one skill: state, full hash (what `enable --hash` takes), files, and its SKILL.md")
    .argument("<name>")
    .option("--json", "print JSON")
    .action(async (name: string, options: { json?: boolean }, command: Command) => {
      const skill = await (await openStoreFromFlags(command)).get(name);
      if (options.json) return printJson(output, skill);
      // An imported skill's text is someone else's: on a terminal its controls are shown escaped.
      const shown = process.stdout.isTTY === true ? escapeTerminalControls : (text: string) => text;
      const lines = [
        `${paint(output, "bold", skill.name)}: ${skill.enabled ? paint(output, "green", "enabled") : paint(output, "yellow", "disabled")} (${skill.source}${skill.origin ? `, from ${skill.origin}` : ""})`,
        `hash:    ${skill.hash}`,
        `grant:   ${grant(skill.name, skill.hash)}`,
        ...(skill.recordedHash
          ? [paint(output, "red", `changed on disk since it was recorded (recorded ${skill.recordedHash})`)]
          : []),
        `updated: ${skill.updated ?? "-"}`,
        `folder:  ${skill.folder}`,
        "files:",
        ...skill.files.map((file) => `  ${shown(file.path)} (${file.size} bytes)`),
        "",
        paint(output, "dim", "--- SKILL.md ---"),
        shown(skill.skillFile.trimEnd()),
      ];
      output.out(`${lines.join("\n")}\n`);
    });

  store
    .command("import")
    .description(
      "import a skill from a zip file, a local folder or https://github.com/OWNER/REPO/tree/REF/PATH (saved disabled)",
    )
    .argument("<source>", "a .zip file, a folder holding SKILL.md, or a GitHub folder address")
    .option(
      "--replace",
      "update the stored skill of the same name instead of refusing it; the new version is saved disabled",
    )
    .option("--github-api <url>", "the GitHub API root", githubOptionsFromEnvironment(process.env).apiBaseUrl)
    .option("--json", "print JSON")
    .action(
      async (
        source: string,
        options: { githubApi: string; json?: boolean; replace?: boolean },
        command: Command,
      ) => {
        const opened = await openStoreFromFlags(command);
        const progress = process.stderr.isTTY === true && !options.json;
        const { token } = githubOptionsFromEnvironment(process.env);
        const result: ChangeResult = await importSkillSource(opened, source, {
          replace: options.replace === true,
          github: {
            apiBaseUrl: options.githubApi,
            ...(token ? { token } : {}),
            ...(progress
              ? {
                  onProgress: (step) =>
                    process.stderr.write(
                      `\r${step.phase === "listed" ? "listed" : "downloaded"} ${step.done}/${step.total} files (${step.bytes} bytes)`,
                    ),
                }
              : {}),
          },
        });
        if (progress && importSourceKind(source) === "github") process.stderr.write("\n");
        const imported = options.replace === true ? "replaced (disabled)" : "imported (disabled)";
        printChange(output, result, options.json === true, imported);
        if (!options.json)
          output.out(
            `review it with: skillgate store show ${result.name}\nthen enable it: skillgate store enable ${result.name} --hash ${result.hash}\n`,
          );
      },
    );

  store
    .command("enable")
    .description("enable a skill; --hash must be the full hash you reviewed (see `store show`)")
    .argument("<name>")
    .requiredOption("--hash <hash>", "the 64-hex content hash you reviewed")
    .option("--json", "print JSON")
    .action(async (name: string, options: { hash: string; json?: boolean }, command: Command) => {
      const result = await (await openStoreFromFlags(command)).enable(name, { hash: options.hash });
      printChange(output, result, options.json === true, "enabled");
    });

  store
    .command("disable")
    .description("disable a skill: it is no longer offered")
    .argument("<name>")
    .option("--json", "print JSON")
    .action(async (name: string, options: { json?: boolean }, command: Command) => {
      const result = await (await openStoreFromFlags(command)).disable(name);
      printChange(output, result, options.json === true, "disabled");
    });

  store
    .command("duplicate")
    .description("copy a skill under a new name (a built-in becomes an owned, editable copy)")
    .argument("<from>")
    .argument("<to>")
    .option("--json", "print JSON")
    .action(async (from: string, to: string, options: { json?: boolean }, command: Command) => {
      const result = await (await openStoreFromFlags(command)).duplicate(from, to);
      printChange(output, result, options.json === true, `duplicated from ${from}`);
    });

  store
    .command("rm")
    .description("delete a stored skill (asks for confirmation on a terminal unless --yes)")
    .argument("<name>")
    .option("-y, --yes", "do not ask")
    .option("--json", "print JSON")
    .action(async (name: string, options: { yes?: boolean; json?: boolean }, command: Command) => {
      if (!options.yes && process.stdin.isTTY === true && !(await confirm(`delete ${name}? [y/N] `))) {
        output.out("not deleted\n");
        return;
      }
      const result = await (await openStoreFromFlags(command)).deleteSkill(name);
      if (options.json) printJson(output, { name, deleted: true, revision: result.revision });
      else output.out(`deleted ${name} (revision ${result.revision})\n`);
    });

  registerStoreReview(store, output);
}

function printChange(output: CliOutput, result: ChangeResult, json: boolean, verb: string): void {
  if (json) {
    printJson(output, result);
    return;
  }
  output.out(`${result.name}: ${verb}; hash ${result.hash}; revision ${result.revision}\n`);
  for (const item of result.diagnostics)
    output.out(`  ${paint(output, "yellow", "warning")} ${item.code}: ${item.message}\n`);
}

async function confirm(question: string): Promise<boolean> {
  const reader = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await reader.question(question)).trim());
  } finally {
    reader.close();
  }
}
