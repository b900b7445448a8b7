import { isPlainObject } from "../core/safe-json.js";
import type { CallStatus } from "../observe/events.js";
import { type Logger, silentLogger } from "../observe/logger.js";
import type { ApprovalAnswer, ApprovalRequest } from "../policy/approvals.js";
import type { RunResult } from "../runners/contract.js";
import { MAX_ARGUMENT_TEXT_BYTES } from "../tools/arguments.js";
import { ARGV_TEXTS } from "../tools/call-texts.js";
import { bootstrapSkillgate } from "./bootstrap.js";
import { type RunCallScope, withRunCallScope } from "./run-call-scope.js";
import type { Skillgate, SkillgateOptions } from "./skillgate.js";

/** How an ask is answered: put to a person, approved once, or granted for the skill's hash. */
export type ApprovalMode = "ask" | "once" | "always";

/** One script run asked for by a person (the `skillgate run` command, an owner's own test). */
export interface RunSkillScriptInput {
  readonly skill: string;
  /** The script's path as `load_skill` lists it (`scripts/run.py`), or its name under `scripts/`. */
  readonly script: string;
  /**
   * The arguments exactly as a model's `arguments` would arrive: text, normalised the same
   * way (so every `HOST:` message of the arguments table can be reproduced). Left out: none.
   */
  readonly argumentsText?: string;
  /** A top-level `node`, as a model may send next to `arguments`. */
  readonly node?: string;
  /**
   * Command-line arguments for the script (`skillgate run … -- ARG...`), put into the arguments
   * as their `argv`. Refused when `argumentsText` holds an `argv` too (see {@link ARGV_TWICE}).
   */
  readonly argv?: readonly string[];
  readonly approval: ApprovalMode;
  /** Puts an ask to the person (for `ask`): true approves once. Without it an ask is declined. */
  readonly ask?: (request: ApprovalRequest) => Promise<boolean>;
  /** The chat the run belongs to (default `cli`); an `always` grant is kept for this chat. */
  readonly chatId?: string;
  readonly signal?: AbortSignal;
  /**
   * The project folder the script sees and starts in (an absolute path): read-only or
   * writable by the skill's tier and `skillgate.workspace`. Left out, the run has none.
   */
  readonly workspace?: string;
  /** The script's output as it comes (only what is kept under the output cap). */
  readonly onOutput?: (stream: "stdout" | "stderr", chunk: string) => void;
}

/** How the run ended. */
export interface RunSkillScriptOutcome {
  /** The call's status, as the audit log records it. */
  readonly status: CallStatus;
  /** What a model would have been shown. */
  readonly text: string;
  /** The runner's own result, when the call reached a runner. */
  readonly run?: RunResult;
  /** Whether an ask was put and nobody could answer it (no `ask` given). */
  readonly unanswerable: boolean;
  /** The process exit code for this status: see {@link exitCodeFor}. */
  readonly exitCode: number;
}

/**
 * The exit code of a terminal run: 0 ok; 1 failed, refused, denied, declined or expired;
 * 124 timed out (as `timeout(1)`); 130 interrupted (as a shell after Ctrl-C).
 */
export function exitCodeFor(status: CallStatus): number {
  if (status === "ok") return 0;
  if (status === "timed_out") return 124;
  if (status === "interrupted") return 130;
  return 1;
}

/**
 * Runs a skill's script through the whole path a model's call takes: a turn of the chat
 * `cli`, the `run_skill_script` tool (argument normalisation, schema check), classification,
 * the policy, the approval, the hash check, the snapshot and the runner. Nothing is
 * short-cut for the person at the terminal: the Skillgate comes from the same bootstrap as
 * every other surface's, so the owner's extensions and hooks apply, and the audit log
 * records the call like any other.
 */
export async function runSkillScript(
  options: SkillgateOptions,
  input: RunSkillScriptInput,
): Promise<RunSkillScriptOutcome> {
  const skillgate = await bootstrapSkillgate({
    ...options,
    logger: quietRepairs(options.logger ?? silentLogger),
  });
  try {
    return await runSkillScriptOn(skillgate, input);
  } finally {
    skillgate.close();
  }
}

/**
 * {@link runSkillScript} on a Skillgate that is already running (a server's, for
 * `skillgate run --server`): the same turn, tool, policy, approval, grant and audit, with this
 * run's ask and output kept to this call (app/run-call-scope.ts) while the Skillgate serves
 * others.
 */
export async function runSkillScriptOn(
  skillgate: Skillgate,
  input: RunSkillScriptInput,
): Promise<RunSkillScriptOutcome> {
  let run: RunResult | undefined;
  let unanswerable = false;
  const approve = async (request: ApprovalRequest): Promise<ApprovalAnswer> => {
    if (input.approval === "once") return "once";
    if (input.approval === "always") {
      const always = request.options.find((option) => option === "always-chat" || option === "always-job");
      return always ?? "once";
    }
    if (input.ask === undefined) {
      unanswerable = true;
      return "decline";
    }
    return (await input.ask(request)) ? "once" : "decline";
  };
  const turn = skillgate.createTurn({
    chatId: input.chatId ?? "cli",
    ...(input.signal !== undefined ? { signal: input.signal } : {}),
    ...(input.workspace !== undefined ? { workspace: input.workspace } : {}),
  });
  const call: Record<string, unknown> = { skill: input.skill, script: input.script };
  const callArguments = argumentsWithArgv(input.argumentsText, input.argv);
  if (callArguments === ARGV_TWICE)
    return { status: "refused", text: ARGV_TWICE, unanswerable, exitCode: exitCodeFor("refused") };
  if (callArguments !== undefined) call.arguments = callArguments;
  if (input.node !== undefined) call.node = input.node;
  const scope: RunCallScope = {
    approve,
    onResult: (result) => {
      run = result;
    },
    ...(input.onOutput !== undefined ? { onOutput: input.onOutput } : {}),
  };
  const answer = await withRunCallScope(scope, () => turn.call("run_skill_script", call));
  return {
    status: answer.status,
    text: answer.text,
    ...(run !== undefined ? { run } : {}),
    unanswerable,
    exitCode: exitCodeFor(answer.status),
  };
}

/** The refusal when the command-line arguments are given both in `--args` and after `--`. */
export const ARGV_TWICE = ARGV_TEXTS.twice().message;

/**
 * The call's `arguments`: the text as given, or, with an argv, the object the text holds with
 * `argv` added (`null` is `{}`, as the tool reads it). Text the tool would refuse anyway (not
 * JSON, an array, a number, a quoted string, over the text limit) is passed unchanged, so the
 * refusal is the tool's own exact message. {@link ARGV_TWICE} when the object has an `argv`.
 */
function argumentsWithArgv(
  text: string | undefined,
  argv: readonly string[] | undefined,
): string | Record<string, unknown> | typeof ARGV_TWICE | undefined {
  if (argv === undefined) return text;
  if (text === undefined) return { argv };
  if (Buffer.byteLength(text, "utf8") > MAX_ARGUMENT_TEXT_BYTES) return text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text;
  }
  if (parsed === null) return { argv };
  if (!isPlainObject(parsed)) return text;
  if (Object.hasOwn(parsed, "argv")) return ARGV_TWICE;
  return { ...parsed, argv };
}

/**
 * Arguments typed at a terminal are always text, so their repair from a JSON string is the
 * normal case there, not news: information lines are dropped, warnings kept.
 */
function quietRepairs(logger: Logger): Logger {
  return { info: () => {}, warn: (message, fields) => logger.warn(message, fields) };
}
