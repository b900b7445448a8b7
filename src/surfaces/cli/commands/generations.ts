import type { Command } from "commander";
import { generationsFolder } from "../../../capabilities/generations/generation-board.js";
import { resolveFolders } from "../../../core/folders.js";
import { skillgateOptions } from "../context.js";
import { type CliOutput, paint, printJson, table } from "../output.js";

/**
 * `skillgate generations [--json]`, `skillgate generations approve ID` and
 * `skillgate generations reject ID`: the generations of reloading Lua skills (active, shadow,
 * waiting for approval, draining, closed, rejected) and the owner's answer to a switch that
 * widens what a skill may do (docs/capabilities.md, "Hot reload"). The same core function as
 * `/api/generations` and the web UI: `manageGenerations`.
 */
export function registerGenerations(program: Command, output: CliOutput): void {
  const generations = program
    .command("generations")
    .description("list the generations of reloading Lua skills; approve or reject a widening switch")
    .option("--json", "print JSON")
    .action(async (options: { json?: boolean }, command: Command) => {
      const { manageGenerations } = await import("../../../capabilities/generations/generation-board.js");
      const response = await manageGenerations(boardFolder(command), { action: "list" });
      if (response.action !== "list") return;
      if (options.json) return printJson(output, { generations: response.generations });
      if (response.generations.length === 0) {
        output.out("No Lua skill generations are recorded.\n");
        return;
      }
      const rows = response.generations.map((record) => [
        record.id,
        record.state,
        record.manifestDigest.slice(0, 12),
        record.createdAt,
        record.widening.join("; ") || record.detail || "",
      ]);
      const styles = (row: number, column: number) => styleOf(rows[row]?.[1] ?? "", column);
      output.out(`${table(output, ["ID", "STATE", "DIGEST", "CREATED", "DETAIL"], rows, styles)}\n`);
      if (response.generations.some((record) => record.state === "waiting_approval"))
        output.out(
          paint(
            output,
            "dim",
            "answer with: skillgate generations approve ID  or  skillgate generations reject ID\n",
          ),
        );
    });

  for (const action of ["approve", "reject"] as const) {
    generations
      .command(action)
      .description(
        action === "approve"
          ? "switch to a generation waiting for approval (it widens what the skill may do)"
          : "drop a generation waiting for approval; the active one keeps serving",
      )
      .argument("<id>", "the generation id, as `skillgate generations` lists it (skill@number)")
      .option("--json", "print JSON")
      .action(async (id: string, options: { json?: boolean }, command: Command) => {
        const { manageGenerations } = await import("../../../capabilities/generations/generation-board.js");
        const response = await manageGenerations(boardFolder(command), { action, id });
        if (options.json) return printJson(output, response);
        output.out(
          action === "approve"
            ? `approved ${id}: the process serving the skill switches to it and drains the old generation.\n`
            : `rejected ${id}: the active generation keeps serving.\n`,
        );
      });
  }
}

function boardFolder(command: Command): string {
  // Subcommands see the global flags through optsWithGlobals, as the parent does.
  return generationsFolder(resolveFolders(skillgateOptions(command)).data);
}

function styleOf(state: string, column: number): "bold" | "yellow" | "green" | undefined {
  if (column === 0) return "bold";
  if (column !== 1) return undefined;
  if (state === "waiting_approval") return "yellow";
  return state === "active" ? "green" : undefined;
}
