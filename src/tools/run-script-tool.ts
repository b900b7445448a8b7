import type { JsonValue } from "../core/safe-json.js";
import type { CallStatus } from "../observe/events.js";
import { DEFAULT_RUN_LIMITS, type RunLimits, type Runner, type RunResult } from "../runners/contract.js";
import type { PackageEnvironment } from "../runners/environments/environment-store.js";
import type { PackageEnvironments } from "../runners/environments/package-environments.js";
import { describeWorkspaceChanges, noChanges } from "../runners/workspace/changes.js";
import type { RunWorkspace } from "../runners/workspace/workspace.js";
import { hashSkillFolder } from "../skill/content-hash.js";
import { type Governance, workspaceAccessOf } from "../skill/governance.js";
import { declaresPackages } from "../skill/packages/declared.js";
import { ARGV_PROPERTY, effectiveSchema, type JsonSchema } from "../skill/parameters-schema.js";
import { listSkillScripts, type SkillScript } from "../skill/scripts.js";
import type { Skill } from "../skill/skill.js";
import { type ArgumentRepair, normaliseArguments } from "./arguments.js";
import { SCRIPT_TEXTS } from "./call-texts.js";
import { checkAgainstSchema } from "./input.js";
import { offeredSkill, readInput } from "./skill-tools.js";
import type { SkillView } from "./skill-view.js";
import type { ExecuteContext, PreparedCall, ToolDefinition } from "./tool.js";

/** What run_skill_script needs from the turn. */
export interface RunScriptEnvironment {
  readonly view: SkillView;
  readonly runner: Runner;
  readonly limits?: RunLimits;
  /** The turn's project folder (absolute), asked at each call: runs see it as their skill's tier and declaration allow. */
  readonly workspace?: () => string | undefined;
  /**
   * Package environments: a skill that declares packages runs with the environment of its
   * hash, built first (asked, with what is installed from where) when there is none yet.
   * Without it, declarations are not read and nothing is installed.
   */
  readonly packages?: PackageEnvironments;
  /** Told once per call whose arguments were repaired (for the log line and the counter); never the content. */
  readonly onArgumentRepair?: (call: {
    skill: string;
    script: string;
    repairs: readonly ArgumentRepair[];
  }) => void;
}

/** A run_skill_script call after it was read once: the skill, the script and clean arguments. */
export interface RunScriptInput {
  readonly skill: Skill;
  readonly hash: string;
  readonly script: SkillScript;
  /** The arguments object without `argv`: what the script reads as JSON. */
  readonly arguments: Record<string, JsonValue>;
  /** `arguments.argv`, taken out: what follows the script's path on its command line. */
  readonly argv?: readonly string[];
  /** The workspace the run gets, and how; left out when the turn has none or the skill says `none`. */
  readonly workspace?: RunWorkspace;
  /**
   * The skill declares packages: `build` when no environment of its hash existed as the
   * call was prepared (the person was asked about the build), `use` when one did.
   */
  readonly packages?: "build" | "use";
}

// Advertised as an object plus an optional node; text holding an object is still accepted and repaired.
const inputSchema: JsonSchema = {
  type: "object",
  properties: {
    skill: { type: "string", minLength: 1, description: "The skill's exact name." },
    script: {
      type: "string",
      minLength: 1,
      description: 'The script\'s path as load_skill listed it, such as "scripts/run.py".',
    },
    arguments: {
      type: "object",
      properties: { argv: ARGV_PROPERTY },
      description:
        'The script\'s arguments: a JSON object matching the schema load_skill showed. Command-line arguments go in its "argv" list; the rest reaches the script as JSON.',
    },
    node: {
      type: "string",
      description:
        "Only for skills that run on a named server: the server's name. Prefer putting it inside arguments.",
    },
  },
  required: ["skill", "script"],
  additionalProperties: false,
};

// What prepare reads before it normalises `arguments` and `node` itself (any JSON form).
const acceptedSchema: JsonSchema = {
  ...inputSchema,
  properties: { ...(inputSchema.properties as object), arguments: {}, node: {} },
};

/** The tool that runs a skill's script through the runner of its execution mode. */
export function runScriptTool(environment: RunScriptEnvironment): ToolDefinition<RunScriptInput> {
  return {
    name: "run_skill_script",
    tier: "by-skill",
    acceptedSchema,
    description:
      "Run one of a skill's scripts. Read the skill with load_skill first: it lists the scripts and the JSON Schema of their arguments. " +
      'Send {"skill": "NAME", "script": "scripts/FILE", "arguments": {...}} with arguments as a JSON object, for example ' +
      '{"skill": "json-tools", "script": "scripts/json_tools.py", "arguments": {"action": "validate", "text": "{\\"a\\": 1}"}}. ' +
      'A script its instructions call as "python scripts/check.py input.pdf" takes {"argv": ["input.pdf"]} in arguments. ' +
      "A person may be asked to approve the run first. The answer is the exit code and the script's output; lines starting with HOST: come from skillgate, not the script.",
    inputSchema,
    prepare: (raw) => prepareRun(environment, raw),
    execute: async (input, context) => {
      const limits = environment.limits ?? DEFAULT_RUN_LIMITS;
      const prepared = await packageEnvironment(environment, input, context.signal);
      if (!prepared.ok) return { text: formatRunResult(prepared.result, limits), status: "refused" };
      const packages = prepared.environment;
      if (packages !== undefined) environment.packages?.acquire(packages);
      try {
        return await runScript(environment, input, context, packages);
      } finally {
        if (packages !== undefined) environment.packages?.release(packages);
      }
    },
  };
}

/** The environment a run uses: none, the existing one of its hash, or one built now (the call was asked about it). */
async function packageEnvironment(
  environment: RunScriptEnvironment,
  input: RunScriptInput,
  signal: AbortSignal | undefined,
): Promise<{ ok: true; environment?: PackageEnvironment } | { ok: false; result: RunResult }> {
  const packages = environment.packages;
  if (input.packages === undefined || packages === undefined) return { ok: true };
  if (input.packages === "use") {
    const found = packages.find(input.hash);
    if (found !== undefined) return { ok: true, environment: found };
    return { ok: false, result: SCRIPT_TEXTS.environmentGone(input.skill.name) };
  }
  const built = await packages.ensure({
    skill: input.skill.name,
    hash: input.hash,
    folder: input.skill.directory as string,
    ...(signal !== undefined ? { signal } : {}),
  });
  return built.ok ? { ok: true, environment: built.environment } : built;
}

/** Hands the checked call to the runner, with its package environment when it has one. */
async function runScript(
  environment: RunScriptEnvironment,
  input: RunScriptInput,
  context: ExecuteContext,
  packages: PackageEnvironment | undefined,
): Promise<{ text: string; status: CallStatus }> {
  const result = await environment.runner.run({
    skill: input.skill.name,
    hash: input.hash,
    folder: input.skill.directory as string,
    execution: input.skill.governance.execution,
    script: input.script.path,
    language: input.script.language,
    arguments: input.arguments,
    ...(input.workspace !== undefined ? { workspace: input.workspace } : {}),
    ...(input.argv !== undefined ? { argv: input.argv } : {}),
    allowedDomains: input.skill.governance.allowedDomains,
    network: input.skill.governance.network,
    ...(packages !== undefined ? { environment: packages } : {}),
    limits: environment.limits ?? DEFAULT_RUN_LIMITS,
    ...(context.scope !== undefined ? { call: { requestId: context.requestId, scope: context.scope } } : {}),
    ...(context.signal !== undefined ? { signal: context.signal } : {}),
  });
  const text = formatRunResult(result, environment.limits ?? DEFAULT_RUN_LIMITS);
  return { text, status: runStatus(result) };
}

function prepareRun(environment: RunScriptEnvironment, raw: unknown): PreparedCall<RunScriptInput> {
  const shape = readInput<{ skill: string; script: string; arguments?: unknown; node?: unknown }>(
    acceptedSchema,
    raw,
    "change",
    "run a skill script",
  );
  if (!shape.ok) return shape;
  const { skill: name, script: scriptPath } = shape.input;
  const found = offeredSkill(environment.view, name);
  // A call naming a skill that does not exist is classified as a change with no grant.
  if (!found.ok) {
    const withdrawn = environment.view.lookup(name).wasOffered;
    return {
      ok: false,
      message: found.message,
      subject: withdrawn
        ? { tier: "change", skill: name, skillRunnable: false, summary: `run ${scriptPath} of ${name}` }
        : { tier: "change", summary: `run ${scriptPath} of ${name}` },
    };
  }
  const skill = found.skill;
  const { execution, tier, parametersSchema } = skill.governance;
  const summary = `run ${scriptPath} of ${skill.name} (${execution})`;
  if (skill.directory === undefined)
    return {
      ok: false,
      message: SCRIPT_TEXTS.noScripts(skill.name),
      subject: { tier, skill: skill.name, summary },
    };
  const scripts = listSkillScripts(skill.directory);
  const script = scripts.find((item) => item.path === scriptPath || item.path === `scripts/${scriptPath}`);
  if (script === undefined) {
    return {
      ok: false,
      message: SCRIPT_TEXTS.noSuchScript(
        skill.name,
        scriptPath,
        scripts.map((item) => item.path),
      ),
      subject: { tier, skill: skill.name, summary },
    };
  }
  const hashed = hashSkillFolder(skill.directory);
  if (hashed.hash === undefined)
    return {
      ok: false,
      message: SCRIPT_TEXTS.unreadableSkill(skill.name),
      subject: { tier, skill: skill.name, summary },
    };
  const workspace = runWorkspace(environment.workspace?.(), skill.governance);
  const subject = {
    // A run that may write the workspace is asked like a change, whatever the skill's tier.
    tier: workspace?.access === "write" && tier === "read" ? ("change" as const) : tier,
    skill: skill.name,
    hash: hashed.hash,
    skillRunnable: true,
    summary: `run ${script.path} of ${skill.name} (${execution})`,
  };
  const normalised = normaliseArguments(shape.input.arguments, shape.input.node, execution);
  if (!normalised.ok)
    return {
      ok: false,
      message: normalised.message,
      subject,
      ...(normalised.code !== undefined ? { code: normalised.code } : {}),
    };
  if (normalised.repairs.length > 0)
    environment.onArgumentRepair?.({ skill: skill.name, script: script.path, repairs: normalised.repairs });
  const checked = checkAgainstSchema(
    effectiveSchema(parametersSchema, execution, script.path),
    normalised.arguments,
    "arguments",
  );
  if (!checked.ok) return { ok: false, message: checked.message, subject };
  const { argv, ...rest } = normalised.arguments;
  // Checked by normaliseArguments: a list of strings the runners can pass.
  const commandLine = argv as readonly string[] | undefined;
  const input: RunScriptInput = {
    skill,
    hash: hashed.hash,
    script,
    arguments: rest,
    ...(commandLine !== undefined ? { argv: commandLine } : {}),
    ...(workspace !== undefined ? { workspace } : {}),
  };
  const runSubject = {
    ...subject,
    ...(commandLine !== undefined ? { argv: commandLine } : {}),
    summary: `${commandLine !== undefined ? withArgv(subject.summary, commandLine) : subject.summary}${workspaceSummary(workspace)}`,
  };
  const packages = environment.packages;
  if (packages === undefined) return { ok: true, input, subject: runSubject };
  const declared = packages.declared(skill.directory);
  const problems = declared.diagnostics.filter((item) => item.severity === "error");
  if (problems.length > 0)
    return {
      ok: false,
      message: SCRIPT_TEXTS.badPackages(
        skill.name,
        problems.map((item) => item.message),
      ),
      subject: runSubject,
    };
  if (!declaresPackages(declared)) return { ok: true, input, subject: runSubject };
  if (packages.find(hashed.hash) !== undefined)
    return { ok: true, input: { ...input, packages: "use" }, subject: runSubject };
  const build = packages.describeBuild(skill.name, declared);
  return {
    ok: true,
    input: { ...input, packages: "build" },
    subject: {
      ...runSubject,
      summary: `${runSubject.summary}, after building its package environment`,
      mustAsk: `${skill.name} declares packages that are installed before the run; a person approves the build.`,
      prepareApproval: async () => ({ detail: build, reference: `environment:${hashed.hash}` }),
    },
  };
}

/**
 * The summary a person is asked about, with the command line the script gets: each item as
 * JSON text, so spaces, quotes and empty items are unambiguous. The JSON arguments stay out
 * of it, as before; the argv is shown because it is what runs.
 */
function withArgv(summary: string, argv: readonly string[]): string {
  return argv.length === 0 ? summary : `${summary} with argv ${JSON.stringify(argv)}`;
}

/** The workspace a run of this skill gets: none, read-only or writable (docs/running-scripts.md, "The workspace"). */
function runWorkspace(path: string | undefined, governance: Governance): RunWorkspace | undefined {
  const access = workspaceAccessOf(governance);
  if (path === undefined || access === "none") return undefined;
  return { path, access };
}

/** What the approval text says about the workspace, so a person knows what a yes lets the script do. */
function workspaceSummary(workspace: RunWorkspace | undefined): string {
  if (workspace === undefined) return "";
  return workspace.access === "write"
    ? `, with write access to the workspace ${workspace.path}`
    : `, with the workspace ${workspace.path} read-only`;
}

/** How a run counts for the chat log and the audit log: a non-zero exit is a failure. */
function runStatus(result: RunResult): CallStatus {
  if (result.status === "ok") return result.exitCode === 0 ? "ok" : "failed";
  return result.status;
}

/** The text a model gets back from a run. */
export function formatRunResult(result: RunResult, limits: RunLimits): string {
  if (result.status === "refused") return result.message ?? SCRIPT_TEXTS.runnerRefused;
  // A runner's own HOST: text wins for a run it ended (a node that went away names the node).
  const head =
    result.status === "timed_out"
      ? (result.message ?? SCRIPT_TEXTS.timedOut(Math.round(limits.timeoutMs / 1000)))
      : result.status === "interrupted"
        ? (result.message ?? SCRIPT_TEXTS.interrupted)
        : `exit code ${result.exitCode ?? "none"} (${result.status}, ${Math.round(result.durationMs)} ms)`;
  const parts = [head];
  if (result.stdout !== "")
    parts.push(
      `--- stdout ---\n${result.stdout}${result.stdoutTruncated ? `\n${SCRIPT_TEXTS.cut("stdout")}` : ""}`,
    );
  if (result.stderr !== "")
    parts.push(
      `--- stderr ---\n${result.stderr}${result.stderrTruncated ? `\n${SCRIPT_TEXTS.cut("stderr")}` : ""}`,
    );
  if (result.stdout === "" && result.stderr === "") parts.push("(no output)");
  const changes = result.workspaceChanges;
  if (changes !== undefined && !noChanges(changes))
    parts.push(`--- workspace changes ---\n${describeWorkspaceChanges(changes).join("\n")}`);
  return parts.join("\n");
}
