import type { ScriptLanguage } from "../skill/scripts.js";
import type { RunResult } from "./contract.js";
import type { ScriptCommand } from "./languages.js";
import { refusal } from "./refusal.js";

/**
 * The most items a script's argv may have. Real command lines of skill scripts hold a few
 * paths and flags; the bound keeps an approval request readable and the exec small.
 */
export const MAX_SCRIPT_ARGV_ITEMS = 256;

/**
 * The most bytes (UTF-8, all items together) a script's argv may hold: 32 KiB, the same as
 * arguments sent as text. Linux caps one argument at 128 KiB and the whole command line and
 * environment together at about 2 MiB; the sandbox's launcher carries each item once more in
 * its environment, so the bound stays far below both.
 */
export const MAX_SCRIPT_ARGV_BYTES = 32 * 1024;

/** Why an argv cannot be passed to a script. */
export type ArgvProblem =
  | { readonly kind: "not_list" }
  | { readonly kind: "not_text"; readonly index: number; readonly type: string }
  | { readonly kind: "not_unicode"; readonly index: number }
  | { readonly kind: "nul"; readonly index: number }
  | { readonly kind: "too_many"; readonly count: number }
  | { readonly kind: "too_long"; readonly bytes: number };

// A UTF-16 surrogate without its pair: such text has no UTF-8 form and would reach the
// script changed (as U+FFFD), so it is refused rather than silently rewritten.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * What is wrong with `argv` as a script's command-line arguments, or `undefined` when it can
 * be passed as it is: a list of at most {@link MAX_SCRIPT_ARGV_ITEMS} strings holding at most
 * {@link MAX_SCRIPT_ARGV_BYTES} bytes, none with a NUL (which would end the argument early
 * and shift the rest) or a lone surrogate. An empty string is a valid argument.
 */
export function argvProblem(argv: unknown): ArgvProblem | undefined {
  if (!Array.isArray(argv)) return { kind: "not_list" };
  if (argv.length > MAX_SCRIPT_ARGV_ITEMS) return { kind: "too_many", count: argv.length };
  let bytes = 0;
  for (const [index, item] of argv.entries()) {
    if (typeof item !== "string")
      return {
        kind: "not_text",
        index,
        type: item === null ? "null" : Array.isArray(item) ? "array" : typeof item,
      };
    if (item.includes("\0")) return { kind: "nul", index };
    if (LONE_SURROGATE.test(item)) return { kind: "not_unicode", index };
    bytes += Buffer.byteLength(item, "utf8");
  }
  return bytes > MAX_SCRIPT_ARGV_BYTES ? { kind: "too_long", bytes } : undefined;
}

/**
 * A runner's own check of a request's argv (a library caller may build a request without the
 * tools' checks): a `refused` result with code `invalid_argv`, or `undefined` to go on.
 */
export function checkRunArgv(argv: readonly string[] | undefined, script: string): RunResult | undefined {
  if (argv === undefined) return undefined;
  const problem = argvProblem(argv);
  if (problem === undefined) return undefined;
  return refusal(
    "invalid_argv",
    `the command-line arguments for ${script} cannot be passed (${describeArgvProblem(problem)}); nothing ran.`,
  );
}

/** A problem in words, for a runner's refusal. */
function describeArgvProblem(problem: ArgvProblem): string {
  switch (problem.kind) {
    case "not_list":
      return "argv is not a list";
    case "not_text":
      return `item ${problem.index} is not a string`;
    case "not_unicode":
      return `item ${problem.index} is not valid Unicode text`;
    case "nul":
      return `item ${problem.index} holds a NUL character`;
    case "too_many":
      return `${problem.count} items, more than ${MAX_SCRIPT_ARGV_ITEMS}`;
    case "too_long":
      return `${problem.bytes} bytes, more than ${MAX_SCRIPT_ARGV_BYTES}`;
  }
}

/**
 * The interpreter's command with the script's argv after the script's path, as a shell would
 * run `python3 script.py ARG...`: Python, Node (`.js`, `.mjs`, `.cjs`, stripped `.ts`) and
 * bash take everything after the script as the script's own (`sys.argv[1:]`,
 * `process.argv.slice(2)`, `$1…`). `dotnet run FILE.cs` reads options of its own after the
 * file, so a C# script's argv follows a `--`, which `dotnet run` passes on unread.
 */
export function withScriptArgv(
  language: ScriptLanguage,
  command: ScriptCommand,
  argv: readonly string[] | undefined,
): ScriptCommand {
  if (argv === undefined || argv.length === 0) return command;
  const separator = language === "csharp" ? ["--"] : [];
  return { command: command.command, args: [...command.args, ...separator, ...argv] };
}
