import type { Command } from "commander";
import { searchSkills } from "../../../catalog/search.js";
import { catalogFromFlags } from "../context.js";
import { type CliOutput, printJson, table } from "../output.js";
import { positiveInteger } from "../parse.js";

/** `skillgate search <query> [--limit N] [--json]`: ranked search over names and descriptions. */
export function registerSearch(program: Command, output: CliOutput): void {
  program
    .command("search")
    .description("search registered skills by name and description (BM25)")
    .argument("<query...>", "words describing the task")
    .option("--limit <n>", "how many results", positiveInteger("--limit"), 10)
    .option("--json", "print JSON")
    .action(async (words: string[], options: { limit: number; json?: boolean }, command: Command) => {
      const hits = searchSkills(
        (await catalogFromFlags(command, output)).catalog.discover().skills,
        words.join(" "),
        options.limit,
      );
      if (options.json) {
        printJson(output, {
          results: hits.map((hit) => ({
            name: hit.skill.name,
            score: Number(hit.score.toFixed(4)),
            source: hit.skill.source,
            description: hit.skill.description,
          })),
        });
        return;
      }
      if (hits.length === 0) {
        output.out("No skill matches.\n");
        return;
      }
      const rows = hits.map((hit) => [
        hit.skill.name,
        hit.score.toFixed(2),
        hit.skill.description.slice(0, 80),
      ]);
      output.out(`${table(output, ["NAME", "SCORE", "DESCRIPTION"], rows)}\n`);
    });
}
