import { join } from "node:path";
import { escapeHtml } from "../catalog/available-skills-xml.js";
import { find } from "../catalog/find.js";
import { searchSkills } from "../catalog/search.js";
import { skillIndex } from "../catalog/skill-index.js";
import { readDeclaredPackages } from "../skill/packages/declared.js";
import { effectiveSchema, type JsonSchema } from "../skill/parameters-schema.js";
import { readScriptCommandLine } from "../skill/script-usage.js";
import { listSkillScripts, scriptsAmong } from "../skill/scripts.js";
import type { Skill } from "../skill/skill.js";
import { listSkillFiles } from "../skill/skill-files.js";
import { SKILL_TEXTS } from "./call-texts.js";
import { checkAgainstSchema } from "./input.js";
import { checkResourcePath, readResourceText } from "./skill-files.js";
import type { SkillView } from "./skill-view.js";
import type { AnyTool, CallSubject, PreparedCall, ToolDefinition } from "./tool.js";

/** The view of skills the skill tools read. */
export interface SkillToolsEnvironment {
  readonly view: SkillView;
}

const skillName: JsonSchema = {
  type: "string",
  minLength: 1,
  description: "The skill's exact name, as listed.",
};

/** Reads a tool input object against its schema; a mismatch is the `HOST:` message. */
export function readInput<Input>(
  schema: JsonSchema,
  raw: unknown,
  tier: CallSubject["tier"],
  summary: string,
): PreparedCall<Input> {
  const checked = checkAgainstSchema(schema, raw ?? {}, "the input");
  if (!checked.ok) return { ok: false, message: checked.message, subject: { tier, summary } };
  return { ok: true, input: (raw ?? {}) as Input, subject: { tier, summary } };
}

/** Finds an offered skill; the `HOST:` message tells a withdrawn skill from an unknown one. */
export function offeredSkill(
  view: SkillView,
  name: string,
): { ok: true; skill: Skill } | { ok: false; message: string } {
  const { skill, wasOffered } = view.lookup(name);
  if (skill !== undefined) return { ok: true, skill };
  if (wasOffered) return { ok: false, message: SKILL_TEXTS.withdrawn };
  const names = view.offered().map((item) => item.name);
  return { ok: false, message: SKILL_TEXTS.unknown(name, names) };
}

/**
 * The `<available_scripts>` block: each script with the schema its arguments are checked
 * against and, when its text shows it plainly, how it reads its command line (an `argv`
 * attribute naming the reader, and its `<usage>` line; see docs/tools.md, "load_skill").
 * `files` is the skill folder's listing when the caller has it.
 */
export function availableScripts(skill: Skill, files?: readonly string[]): string {
  const directory = skill.directory;
  if (directory === undefined) return "";
  const scripts = files === undefined ? listSkillScripts(directory) : scriptsAmong(files);
  if (scripts.length === 0) return "";
  const { execution, tier, parametersSchema } = skill.governance;
  const lines = scripts.map((script) => {
    const commandLine = readScriptCommandLine(join(directory, script.path), script.language);
    const argv = commandLine === undefined ? "" : ` argv="${escapeHtml(commandLine.reads)}"`;
    const usage = commandLine?.usage === undefined ? "" : `<usage>${escapeHtml(commandLine.usage)}</usage>\n`;
    const schema = JSON.stringify(effectiveSchema(parametersSchema, execution, script.path));
    return `<script path="${script.path}" language="${script.language}" execution="${execution}" tier="${tier}"${argv}>\n${usage}${schema}\n</script>`;
  });
  return `<available_scripts>\n${lines.join("\n")}\n</available_scripts>`;
}

/**
 * The `<declared_packages>` block of load_skill: what the skill's scripts get installed
 * before they run (a person approves the build once per version of the skill), and any
 * declaration skillgate refuses, so a model knows why its scripts will not run.
 */
export function declaredPackagesBlock(directory: string, files: readonly string[]): string {
  const declared = readDeclaredPackages(directory, files);
  const lines: string[] = [];
  if (declared.python !== undefined)
    lines.push(
      `<python requirements="${attribute(declared.python.requirements.join(" "))}" declared-in="${attribute(declared.python.sources.join(" "))}"/>`,
    );
  if (declared.node !== undefined)
    lines.push(`<node dependencies="${attribute(declared.node.dependencies.join(" "))}"/>`);
  for (const problem of declared.diagnostics.filter((item) => item.severity === "error"))
    lines.push(`<problem code="${problem.code}">${attribute(problem.message)}</problem>`);
  if (lines.length === 0) return "";
  return `<declared_packages note="installed into this skill's own environment before a script runs; a person is asked first">\n${lines.join("\n")}\n</declared_packages>`;
}

/** Text made safe inside the block's attributes and elements. */
function attribute(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;");
}

function loadSkill(environment: SkillToolsEnvironment): ToolDefinition<{ skill: string } & SkillLookup> {
  const inputSchema: JsonSchema = {
    type: "object",
    properties: { skill: skillName },
    required: ["skill"],
    additionalProperties: false,
  };
  return {
    name: "load_skill",
    tier: "read",
    description:
      'Read a skill\'s instructions before doing the work it covers. Send {"skill": "NAME"}, for example {"skill": "json-tools"}. ' +
      "The answer is the skill's SKILL.md body, then <available_scripts> listing each script you can run with run_skill_script and the JSON Schema of its arguments (a script that reads its command line has an argv attribute and, when it states one, its <usage> line: pass the words after the script's path as arguments.argv), then the skill's other files you can read with read_skill_resource.",
    inputSchema,
    prepare: (raw) =>
      withSkill(environment, readInput(inputSchema, raw, "read", "read a skill's instructions")),
    execute: async (input) => {
      const found = resolvedSkill(environment, input);
      if (!found.ok) return { text: found.message, status: "refused" };
      const { skill } = found;
      const parts = [`<skill name="${skill.name}">\n${skill.text()}\n</skill>`];
      const files = skill.directory === undefined ? [] : listSkillFiles(skill.directory);
      const scripts = availableScripts(skill, files);
      if (scripts !== "") parts.push(scripts);
      const packages = skill.directory === undefined ? "" : declaredPackagesBlock(skill.directory, files);
      if (packages !== "") parts.push(packages);
      const resources = files.filter((path) => path !== "SKILL.md" && !path.startsWith("scripts/"));
      if (resources.length > 0)
        parts.push(`<available_resources>\n${resources.join("\n")}\n</available_resources>`);
      return parts.join("\n");
    },
  };
}

function readSkillResource(
  environment: SkillToolsEnvironment,
): ToolDefinition<{ skill: string; path: string } & SkillLookup> {
  const inputSchema: JsonSchema = {
    type: "object",
    properties: {
      skill: skillName,
      path: { type: "string", minLength: 1, description: "A file of the skill, relative to its folder." },
    },
    required: ["skill", "path"],
    additionalProperties: false,
  };
  return {
    name: "read_skill_resource",
    tier: "read",
    description:
      'Read one file of a skill, such as a reference document load_skill listed. Send {"skill": "NAME", "path": "references/guide.md"}. ' +
      "Only the skill's own files can be read; paths are relative to the skill folder. Files over 64 KiB are cut with a note.",
    inputSchema,
    prepare: (raw) => withSkill(environment, readInput(inputSchema, raw, "read", "read a file of a skill")),
    execute: async (input) => {
      const { skill: name, path } = input;
      const found = resolvedSkill(environment, input);
      if (!found.ok) return { text: found.message, status: "refused" };
      const folder = found.skill.directory;
      if (folder === undefined) return SKILL_TEXTS.noFiles(name);
      const checked = checkResourcePath(path, listSkillFiles(folder));
      if (!checked.ok) return checked.message;
      return readResourceText(folder, checked.path);
    },
  };
}

function readSkillTool(environment: SkillToolsEnvironment): ToolDefinition<{ name: string }> {
  const inputSchema: JsonSchema = {
    type: "object",
    properties: {
      name: {
        type: "string",
        minLength: 1,
        description: "A skill name, a unique start of one, or a unique part of one.",
      },
    },
    required: ["name"],
    additionalProperties: false,
  };
  return {
    name: "read_skill",
    tier: "read",
    description:
      'Read a skill\'s instructions by name. Send {"name": "NAME"}; a unique start or part of a name also works, for example {"name": "cron"}. ' +
      "If the name matches several skills or none, the answer lists the skills that exist.",
    inputSchema,
    prepare: (raw) => readInput(inputSchema, raw, "read", "read a skill's instructions"),
    execute: async ({ name }) => {
      const skills = environment.view.offered();
      // Exact, then unique prefix, then unique substring; ambiguity finds nothing (as `findSkill`
      // does: docs/skills.md, "The index a model sees"; docs/tools.md, the `read_skill` row).
      const skill = find(skills, name);
      if (skill === undefined) {
        return SKILL_TEXTS.noSingleMatch(
          name,
          skills.map((item) => item.name),
        );
      }
      return `<skill name="${skill.name}">\n${skill.text()}\n</skill>`;
    },
  };
}

function searchSkillsTool(
  environment: SkillToolsEnvironment,
): ToolDefinition<{ query: string; limit?: number }> {
  const inputSchema: JsonSchema = {
    type: "object",
    properties: {
      query: { type: "string", minLength: 1, description: "A few words about the task." },
      limit: { type: "integer", minimum: 1, maximum: 50, description: "How many results (default 10)." },
    },
    required: ["query"],
    additionalProperties: false,
  };
  return {
    name: "search_skills",
    tier: "read",
    description:
      'Find skills that are not in the skill index. Send {"query": "a few words about the task"}, for example {"query": "cron schedule next run"}. ' +
      "The answer lists matching skills, best first, with their descriptions; then read one with load_skill.",
    inputSchema,
    prepare: (raw) => readInput(inputSchema, raw, "read", "search skills"),
    execute: async ({ query, limit }) => {
      const hits = searchSkills(environment.view.offered(), query, limit ?? 10);
      if (hits.length === 0) return `No skill matches ${JSON.stringify(query)}.`;
      return hits.map((hit) => `- \`${hit.skill.name}\` -- ${hit.skill.description}`).join("\n");
    },
  };
}

function refreshSkills(environment: SkillToolsEnvironment): ToolDefinition<Record<string, never>> {
  const inputSchema: JsonSchema = { type: "object", properties: {}, additionalProperties: false };
  return {
    name: "refresh_skills",
    tier: "read",
    description:
      "Reload the list of enabled skills after the owner changed them. Send {}. The answer says which skills were added or removed.",
    inputSchema,
    prepare: (raw) => readInput(inputSchema, raw, "read", "reload the skill list"),
    execute: async () => {
      const change = environment.view.refresh();
      if (change.added.length === 0 && change.removed.length === 0)
        return "No change: the same skills are enabled.";
      const lines = [];
      if (change.added.length > 0) lines.push(`Added: ${change.added.join(", ")}.`);
      if (change.removed.length > 0) lines.push(`Removed: ${change.removed.join(", ")}.`);
      return lines.join("\n");
    },
  };
}

/** Adds the named skill (and whether it may run this turn) to a read call's subject, for the policy. */
/** What `prepare` found for a call naming a skill, kept for `execute` (one catalog look per call). */
interface SkillLookup {
  readonly resolved?: Skill;
}

function withSkill<Input extends { skill: string }>(
  environment: SkillToolsEnvironment,
  prepared: PreparedCall<Input>,
): PreparedCall<Input & SkillLookup> {
  if (!prepared.ok) return prepared;
  const { skill, wasOffered } = environment.view.lookup(prepared.input.skill);
  if (skill === undefined && !wasOffered) return prepared;
  return {
    ...prepared,
    input: skill === undefined ? prepared.input : { ...prepared.input, resolved: skill },
    subject: { ...prepared.subject, skill: prepared.input.skill, skillRunnable: skill !== undefined },
  };
}

/**
 * The skill `prepare` found (the policy decided on that very skill), or a fresh look when it
 * found none. Refusals tell a withdrawn skill from an unknown one.
 */
function resolvedSkill(
  environment: SkillToolsEnvironment,
  input: { skill: string } & SkillLookup,
): { ok: true; skill: Skill } | { ok: false; message: string } {
  return input.resolved !== undefined
    ? { ok: true, skill: input.resolved }
    : offeredSkill(environment.view, input.skill);
}

/** The read-only skill tools: load_skill, read_skill_resource, read_skill, search_skills, refresh_skills. */
export function skillTools(environment: SkillToolsEnvironment): AnyTool[] {
  return [
    loadSkill(environment),
    readSkillResource(environment),
    readSkillTool(environment),
    searchSkillsTool(environment),
    refreshSkills(environment),
  ];
}

/**
 * The tools a turn's skill index names, each with the input field it is named with
 * (`load_skill(skill)`): the same names as the tools' schemas above, which a test checks.
 */
export const INDEX_TOOLS = {
  read: { tool: "load_skill", field: "skill" },
  search: { tool: "search_skills", field: "query" },
} as const;

/** The skill index of a turn: the catalog's block (docs/skills.md), naming load_skill and search_skills. */
export function turnIndex(environment: SkillToolsEnvironment, budget: number): string {
  return skillIndex(environment.view.offered(), {
    budget,
    readTool: INDEX_TOOLS.read.tool,
    readField: INDEX_TOOLS.read.field,
    searchTool: INDEX_TOOLS.search.tool,
    searchField: INDEX_TOOLS.search.field,
  });
}
