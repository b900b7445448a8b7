// What the model is told about a call that did not run or did not end well, and how the
// audit names a failure: the texts of the broker (src/tools/broker.ts and its stages), of
// the turn and of each tool's own refusals. Two tables stay with their readers: the exact
// argument messages in arguments.ts and the schema-mismatch sentences in input.ts (see
// docs/tools.md, "The call path").
import { describeError, isSkillgateError } from "../core/errors.js";
import type { CallStatus } from "../observe/events.js";
import type { PolicyDecision } from "../policy/decide.js";
import type { RunResult } from "../runners/contract.js";
import { refusal } from "../runners/refusal.js";
import type { RetryFrom } from "./stages/call-types.js";
import type { CallSubject, ToolOutput } from "./tool.js";

/** Where the model's retry must come from, as the end of {@link awaitingText}. */
const RETRY_FROM: Readonly<Record<RetryFrom, string>> = {
  "same-chat": "Once it is approved, make exactly the same call again.",
  "same-mcp-session":
    "Once it is approved, make exactly the same call again from this same MCP session: the approval belongs to this session, so a call from another session or after a reconnect is asked about again.",
};

/** What the model is told when the person will answer out of band. */
export function awaitingText(requestId: string, retryFrom: RetryFrom = "same-chat"): string {
  return `HOST: this call needs the owner's approval and did not run. Approval request ${requestId} is waiting; the owner answers it with \`skillgate approve ${requestId}\` (or \`skillgate decline ${requestId}\`). ${RETRY_FROM[retryFrom]}`;
}

/** What the model is told when nobody answered the approval request in time. */
export function expiredText(): string {
  return "HOST: the approval request expired before anyone answered; the call did not run.";
}

/** What the model is told when the person declined. */
export function declinedText(): string {
  return "HOST: the person declined this call; it did not run. Do not retry it unless they ask.";
}

/**
 * What the model is told when a rule denied the call; a withdrawn skill gets the exact line
 * docs/tools.md documents ("Scope per turn and mid-turn changes").
 */
export function denialText(decision: PolicyDecision, subject: CallSubject): string {
  if (decision.rule === "disabled-skills-never-run" && subject.skillRunnable === false)
    return SKILL_TEXTS.withdrawn;
  return `HOST: not allowed: ${decision.description} (rule ${decision.rule}).`;
}

/** What the model is told when a hook or the approval policy narrowed the decision to deny. */
export function narrowedDenialText(narrowed: PolicyDecision): string {
  return `HOST: not allowed: ${narrowed.description}.`;
}

/** What the model is told when a tool threw while reading its input. */
export function unreadableInputText(tool: string, error: unknown): string {
  return `HOST: ${tool} could not read its input (${describeError(error)}).`;
}

/** What the model is told when a tool (or an `after_tool` hook) threw while running. */
export function failedText(tool: string, error: unknown): string {
  return `HOST: ${tool} failed: ${describeError(error)}`;
}

/**
 * The reasons hooks and the approval policy give, as a narrowed decision's description
 * (shown in {@link narrowedDenialText}, and to the person asked).
 */
export const HOOK_REASONS = {
  /** A `before_tool` hook's own reason, marked as a hook's. */
  beforeTool: (reason: string) => `${reason} (a before_tool hook)`,
  /** A `before_tool` hook that denied with an empty reason. */
  emptyDeny: "a hook refused it",
  /** A `before_tool` hook that asked with an empty reason. */
  emptyAsk: "a hook asks a person first",
  policyFailed: "the approval policy failed, so the call is refused",
  policyAsks: "the approval policy asks a person first",
  policyRefused: "the approval policy refused this call",
} as const;

/** What the model is told when it calls a tool the turn does not have. */
export function unknownToolText(name: string, tools: readonly string[]): string {
  return `HOST: there is no tool named ${JSON.stringify(name)}. Tools: ${tools.join(", ")}.`;
}

/** A list of names for a refusal, `(none)` when empty. */
function names(list: readonly string[]): string {
  return list.join(", ") || "(none)";
}

/** The skill tools' refusals: `load_skill`, `read_skill_resource`, `read_skill`. */
export const SKILL_TEXTS = {
  /**
   * For a skill offered when the turn began and gone now; exact, as docs/tools.md gives it ("Scope
   * per turn and mid-turn changes").
   */
  withdrawn: "HOST: that skill is no longer enabled.",
  unknown: (name: string, offered: readonly string[]) =>
    `HOST: there is no skill named ${JSON.stringify(name)}. Skills you can use: ${names(offered)}.`,
  noFiles: (skill: string) => `HOST: ${skill} has no files besides its instructions.`,
  noSingleMatch: (name: string, skills: readonly string[]) =>
    `HOST: no single skill matches ${JSON.stringify(name)}. Skills: ${names(skills)}.`,
} as const;

/** A skill file's refusals (`read_skill_resource`, `get_skill`). */
export const FILE_TEXTS = {
  noPath: 'HOST: send "path" as the file\'s path inside the skill, such as "references/guide.md".',
  notRelative: 'HOST: path must be relative to the skill folder, such as "references/guide.md".',
  badParts: 'HOST: path may not contain "..", "." or empty parts.',
  notListed: (path: string, listed: readonly string[]) =>
    `HOST: ${path} is not one of the skill's files. Files: ${names(listed)}.`,
  link: (path: string) => `HOST: ${path} is a link; links are not read.`,
  unreadable: (path: string, code: string | undefined) =>
    `HOST: ${path} cannot be read (${code ?? "error"}).`,
  notRegular: (path: string) => `HOST: ${path} is not a regular file.`,
  binary: (path: string, bytes: number) =>
    `HOST: ${path} is binary (${bytes} bytes); it cannot be shown as text.`,
  /** `get_skill`'s shorter line for a stored binary file. */
  storedBinary: (path: string, bytes: number) => `HOST: ${path} is binary (${bytes} bytes).`,
} as const;

/** `run_skill_script`'s refusals and the notes in a run's answer. */
export const SCRIPT_TEXTS = {
  noScripts: (skill: string) => `HOST: ${skill} has no scripts.`,
  noSuchScript: (skill: string, script: string, scripts: readonly string[]) =>
    `HOST: ${skill} has no script ${JSON.stringify(script)}. Scripts: ${names(scripts)}.`,
  unreadableSkill: (skill: string) => `HOST: ${skill} cannot be read right now; tell its owner.`,
  runnerRefused: "HOST: the runner refused to run this script.",
  badPackages: (skill: string, problems: readonly string[]) =>
    `HOST: ${skill} declares packages that skillgate cannot install, so its scripts do not run until its author fixes them: ${problems.slice(0, 5).join(" ")} [invalid_package_declaration]`,
  environmentGone: (skill: string): RunResult =>
    refusal(
      "environment_missing",
      `${skill}'s package environment was removed after this call was checked, so the script did not run. Make the same call again: a person will be asked to build it anew.`,
    ),
  timedOut: (seconds: number) => `HOST: the script ran past its time limit (${seconds} s) and was stopped.`,
  interrupted: "HOST: the run was interrupted before it finished; it will not be run again by itself.",
  cut: (stream: "stdout" | "stderr") => `HOST: ${stream} was cut at the output limit.`,
} as const;

/** The chat tools' refusal for a chat or job the log does not hold. */
export function unknownChatText(kind: string, chat: string): string {
  return `HOST: there is no ${kind} ${JSON.stringify(chat)}.`;
}

/** A tool's output as text and status (plain text means `ok`). */
export function splitOutput(output: ToolOutput): { text: string; status: CallStatus } {
  return typeof output === "string" ? { text: output, status: "ok" } : output;
}

/** An error as a model sees it: skillgate's own refusals already start with HOST:. */
export function hostText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const text = message.startsWith("HOST:") ? message : `HOST: ${message}`;
  return isSkillgateError(error) && !text.includes(`[${error.code}]`) ? `${text} [${error.code}]` : text;
}

/** The audit's name for a failure: a stable code for skillgate's own errors, else the error's class name. */
export function errorKind(error: unknown): string {
  if (isSkillgateError(error)) return error.code;
  return error instanceof Error ? error.name : "unknown";
}

/**
 * The stable codes of a refused `arguments.argv` (docs/tools.md, "Command-line arguments"): the
 * audit's `errorKind` of the call, and the end of its {@link ARGV_TEXTS} text.
 */
export type ArgvRefusalCode =
  | "argv_not_list"
  | "argv_not_text"
  | "argv_not_unicode"
  | "argv_nul"
  | "argv_too_many"
  | "argv_too_long"
  | "argv_twice";

/** A refusal of `arguments.argv`: its `HOST:` text, ending in its code in brackets, and the code. */
export interface ArgvRefusal {
  readonly code: ArgvRefusalCode;
  readonly message: string;
}

function argvRefusal(code: ArgvRefusalCode, text: string): ArgvRefusal {
  return { code, message: `HOST: ${text} [${code}]` };
}

/** What the model is told when `arguments.argv` cannot be passed to the script, exactly. */
export const ARGV_TEXTS = {
  notList: () =>
    argvRefusal(
      "argv_not_list",
      'arguments.argv must be a list of strings, the script\'s command-line arguments, such as {"argv": ["input.pdf"]}.',
    ),
  notText: (index: number, type: string) =>
    argvRefusal(
      "argv_not_text",
      `arguments.argv[${index}] is ${aJsonType(type)}; every item must be a string, such as "10" for 10.`,
    ),
  notUnicode: (index: number) =>
    argvRefusal("argv_not_unicode", `arguments.argv[${index}] is not valid Unicode text; send plain text.`),
  nul: (index: number) =>
    argvRefusal(
      "argv_nul",
      `arguments.argv[${index}] holds a NUL character, which a command-line argument cannot hold; remove it.`,
    ),
  tooMany: (count: number, limit: number) =>
    argvRefusal(
      "argv_too_many",
      `arguments.argv has ${count} items; a script takes at most ${limit}. Send fewer, or pass a file that lists them.`,
    ),
  tooLong: (bytes: number, limit: number) =>
    argvRefusal(
      "argv_too_long",
      `arguments.argv holds ${bytes} bytes; a script takes at most ${limit / 1024} KiB of command-line arguments. Send less, or pass a file that holds it.`,
    ),
  /** `skillgate run` given an argv in `--args` and arguments after `--` too. */
  twice: () =>
    argvRefusal(
      "argv_twice",
      'the arguments hold an "argv" and command-line arguments follow --; give them one way, not both.',
    ),
} as const;

/** A JSON type with its article: "a number", "an array", "null". */
function aJsonType(type: string): string {
  if (type === "null") return "null";
  return `${/^[aeiou]/.test(type) ? "an" : "a"} ${type}`;
}
