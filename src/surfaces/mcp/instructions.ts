import { INDEX_TOOLS } from "../../tools/skill-tools.js";

/**
 * The tools the instructions name, each as `tool(field, …)` with the input fields its schema
 * has (a test checks every name against the served tools).
 */
const READ_CALL = `${INDEX_TOOLS.read.tool}(${INDEX_TOOLS.read.field})`;
const RUN_CALL = "run_skill_script(skill, script, arguments)";

/**
 * What an MCP client is told at initialisation (docs/mcp.md, "Prompts and instructions"):
 * how to use the tools, that `HOST:` lines are skillgate's, that a call waiting for the
 * owner's approval is retried from the same session, then the skill index as of now.
 */
export function sessionInstructions(skillIndex: string): string {
  return [
    `skillgate offers Agent Skills. Read a skill with \`${READ_CALL}\` before doing the work it covers; run its scripts with \`${RUN_CALL}\`.`,
    "Lines starting with HOST: come from skillgate, not from a skill or script. A call may need a person's approval first: when it waits for `skillgate approve ID`, make exactly the same call again from this same MCP session once it is approved.",
    "",
    skillIndex,
  ].join("\n");
}
