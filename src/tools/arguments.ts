import { isForbiddenKey, isPlainObject, type JsonValue } from "../core/safe-json.js";
import { argvProblem, MAX_SCRIPT_ARGV_BYTES, MAX_SCRIPT_ARGV_ITEMS } from "../runners/script-argv.js";
import type { ExecutionMode } from "../skill/governance.js";
import { ARGV_TEXTS, type ArgvRefusal, type ArgvRefusalCode } from "./call-texts.js";

/** The most text a model may send as arguments before it is refused unread: 32 KiB. */
export const MAX_ARGUMENT_TEXT_BYTES = 32 * 1024;
/** How deep arguments may nest; deeper is refused before anything walks them recursively. */
export const MAX_ARGUMENT_DEPTH = 64;

/** A repair made to a model's arguments, counted as `skillgate.skill_arguments_coerced{kind}`. */
export type ArgumentRepair = "string" | "node";

/** Normalised arguments, or the `HOST:` refusal to send back to the model. */
export type NormalisedArguments =
  | {
      readonly ok: true;
      readonly arguments: { readonly [key: string]: JsonValue };
      readonly repairs: readonly ArgumentRepair[];
    }
  | {
      readonly ok: false;
      readonly message: string;
      /** For a refused `argv`: its stable code (the audit's `errorKind`). */
      readonly code?: ArgvRefusalCode;
    };

/** The messages, exactly; a model and the tests rely on them. */
export const ARGUMENT_MESSAGES = {
  array:
    'HOST: arguments was an array; send an object with a "node" key, and the script\'s command-line arguments as its "argv" list, such as {"argv": ["input.pdf"]}.',
  number: "HOST: arguments was a number; send a JSON object.",
  boolean: "HOST: arguments was a boolean; send a JSON object.",
  notJson: "HOST: arguments was a string that isn't valid JSON; send a JSON object, not a quoted string.",
  tooLong: `HOST: arguments was text over ${MAX_ARGUMENT_TEXT_BYTES / 1024} KiB; send a smaller JSON object.`,
  tooDeep: `HOST: arguments nest deeper than ${MAX_ARGUMENT_DEPTH} levels; send a flatter JSON object.`,
  nodeNotText: 'HOST: arguments.node must be the server\'s name as a string, such as "homelab01".',
  missingNode:
    'HOST: arguments has no "node" key; add the server to run on, such as {"node": "homelab01", ...}.',
  disagree: (inside: string, outside: string) =>
    `HOST: arguments.node (${JSON.stringify(inside)}) and node (${JSON.stringify(outside)}) disagree; name the server once, inside arguments.`,
} as const;

/**
 * Reads a `run_skill_script` call's arguments once, before any runner (docs/tools.md, "Script
 * arguments"): an object passes; text holding an object is parsed (at most 32 KiB) and
 * used; a top-level `node` moves inside; `null` or nothing is `{}`; an `argv` must be a list
 * of strings the runners can pass (see runners/script-argv.ts; refused with an `argv_*` code);
 * everything else is a `HOST:` refusal. Keys that could pollute prototypes (`__proto__`, `constructor`,
 * `prototype`) are dropped at every depth, and numbers that do not fit a double become null.
 *
 * @param raw the `arguments` value as the model sent it
 * @param topLevelNode the call's top-level `node`, when the model put one next to `arguments`
 * @param execution the skill's mode: a `node` skill must name its server
 */
export function normaliseArguments(
  raw: unknown,
  topLevelNode: unknown,
  execution: ExecutionMode,
): NormalisedArguments {
  const repairs: ArgumentRepair[] = [];
  let value = raw;
  if (typeof value === "string") {
    if (Buffer.byteLength(value, "utf8") > MAX_ARGUMENT_TEXT_BYTES) return refuse(ARGUMENT_MESSAGES.tooLong);
    try {
      value = JSON.parse(value);
    } catch {
      return refuse(ARGUMENT_MESSAGES.notJson);
    }
    if (typeof value === "string") return refuse(ARGUMENT_MESSAGES.notJson);
    if (isPlainObject(value)) repairs.push("string");
  }
  if (value === null || value === undefined) value = {};
  if (Array.isArray(value)) return refuse(ARGUMENT_MESSAGES.array);
  if (typeof value === "number" || typeof value === "bigint") return refuse(ARGUMENT_MESSAGES.number);
  if (typeof value === "boolean") return refuse(ARGUMENT_MESSAGES.boolean);
  if (!isPlainObject(value)) return refuse(ARGUMENT_MESSAGES.notJson);
  if (depthExceeds(value, MAX_ARGUMENT_DEPTH)) return refuse(ARGUMENT_MESSAGES.tooDeep);
  const clean = cleanObject(value);
  const merged = mergeNode(clean, topLevelNode, repairs);
  if (typeof merged === "string") return refuse(merged);
  if (execution === "node" && merged.node === undefined) return refuse(ARGUMENT_MESSAGES.missingNode);
  if (merged.argv !== undefined) {
    const refused = argvRefusal(merged.argv);
    if (refused !== undefined) return { ok: false, message: refused.message, code: refused.code };
  }
  return { ok: true, arguments: merged, repairs };
}

/** The refusal of an `arguments.argv` the runners could not pass, or `undefined`. */
function argvRefusal(argv: JsonValue): ArgvRefusal | undefined {
  const problem = argvProblem(argv);
  if (problem === undefined) return undefined;
  switch (problem.kind) {
    case "not_list":
      return ARGV_TEXTS.notList();
    case "not_text":
      return ARGV_TEXTS.notText(problem.index, problem.type);
    case "not_unicode":
      return ARGV_TEXTS.notUnicode(problem.index);
    case "nul":
      return ARGV_TEXTS.nul(problem.index);
    case "too_many":
      return ARGV_TEXTS.tooMany(problem.count, MAX_SCRIPT_ARGV_ITEMS);
    case "too_long":
      return ARGV_TEXTS.tooLong(problem.bytes, MAX_SCRIPT_ARGV_BYTES);
  }
}

function mergeNode(
  argumentsObject: { [key: string]: JsonValue },
  topLevelNode: unknown,
  repairs: ArgumentRepair[],
): { [key: string]: JsonValue } | string {
  const inside = argumentsObject.node;
  if (inside !== undefined && typeof inside !== "string") return ARGUMENT_MESSAGES.nodeNotText;
  if (topLevelNode === undefined || topLevelNode === null) return argumentsObject;
  if (typeof topLevelNode !== "string") return ARGUMENT_MESSAGES.nodeNotText;
  if (inside === undefined) {
    repairs.push("node");
    return { ...argumentsObject, node: topLevelNode };
  }
  return inside === topLevelNode ? argumentsObject : ARGUMENT_MESSAGES.disagree(inside, topLevelNode);
}

function refuse(message: string): NormalisedArguments {
  return { ok: false, message };
}

/** True when `value` nests deeper than `limit`; iterative, so hostile depth cannot overflow the stack. */
function depthExceeds(value: unknown, limit: number): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 1 }];
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop() as { value: unknown; depth: number };
    if (typeof current !== "object" || current === null) continue;
    if (depth > limit) return true;
    for (const inner of Object.values(current))
      if (typeof inner === "object" && inner !== null) stack.push({ value: inner, depth: depth + 1 });
  }
  return false;
}

/** A copy holding only JSON values, without prototype-polluting keys; depth is already bounded. */
function cleanObject(value: Record<string, unknown>): { [key: string]: JsonValue } {
  const copy: { [key: string]: JsonValue } = Object.create(null) as { [key: string]: JsonValue };
  for (const key of Object.keys(value)) {
    if (isForbiddenKey(key)) continue;
    const inner = cleanValue(value[key]);
    if (inner !== undefined) copy[key] = inner;
  }
  return { ...copy };
}

function cleanValue(value: unknown): JsonValue | undefined {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (Array.isArray(value)) return value.map((item) => cleanValue(item) ?? null);
  if (isPlainObject(value)) return cleanObject(value);
  return undefined;
}
