import type { Command } from "commander";
import { availableSkillsXml } from "../../../catalog/available-skills-xml.js";
import { describeSkillIndex } from "../../../catalog/skill-index.js";
import { catalogFromFlags } from "../context.js";
import { type CliOutput, printJson } from "../output.js";
import { positiveInteger } from "../parse.js";

/** `skillgate index [--budget N] [--xml] [--json]`: the block a model sees. */
export function registerIndex(program: Command, output: CliOutput): void {
  program
    .command("index")
    .description("print the skill index a model sees in its system prompt")
    .option("--budget <chars>", "the most characters the index may take", positiveInteger("--budget"))
    .option("--xml", "print the <available_skills> XML of the Agent Skills reference library instead")
    .option("--json", "print JSON: the text, the skills listed and how many were left out")
    .action(async (options: { budget?: number; xml?: boolean; json?: boolean }, command: Command) => {
      const { catalog } = await catalogFromFlags(command, output);
      const skills = catalog.discover().skills;
      if (options.xml) {
        output.out(`${availableSkillsXml(skills)}\n`);
        return;
      }
      const result = describeSkillIndex(skills, { budget: options.budget ?? catalog.config.index.budget });
      if (options.json) printJson(output, result);
      else output.out(result.text === "" ? "" : `${result.text}\n`);
    });
}
