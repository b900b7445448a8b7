import { isPlainObject, type JsonValue, parseJsonSafely } from "../core/safe-json.js";
import type { EventName } from "./events.js";

/** The longest time limit a hooks file may give one command: 10 minutes. */
export const MAX_HOOK_TIMEOUT_SECONDS = 600;

/** The reason given when a command denies with an empty reason. */
export const DEFAULT_DENY_REASON = "denied by a hook";
/** The reason given when a command asks with an empty reason. */
export const DEFAULT_ASK_REASON = "a hook asks a person to approve this call";

/** How the commands of one hooks file run. */
export interface HookRunSettings {
  /** Used when an entry gives no `timeout` of its own. */
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  /** The commands' working folder (and `cwd` in the settings shape's input). */
  readonly cwd: string;
}

/** One hook a hooks file lists, ready to register. */
export interface ShellHookEntry {
  readonly event: EventName;
  readonly command: string;
  /** The glob or matcher as written, for `skillgate hooks list`. */
  readonly match?: string;
  readonly hook: (payload: object) => Promise<unknown>;
}

/** What a hooks file lists: the hooks to register and one reason per entry skipped. */
export interface ParsedHooks {
  readonly hooks: ShellHookEntry[];
  readonly skipped: string[];
}

/**
 * The one JSON object a command answered on stdout, or `undefined`. The rule: the whole
 * trimmed stdout when it is one JSON object; otherwise its last non-empty line when that
 * line is one JSON object (so log lines before the answer are ignored); otherwise no
 * answer. A JSON value that is not an object is no answer. Parsed without
 * prototype-polluting keys.
 */
export function answerObject(stdout: string): Record<string, JsonValue> | undefined {
  const whole = stdout.trim();
  if (whole === "") return undefined;
  const parsed = parseObject(whole);
  if (parsed !== undefined) return parsed;
  const lines = whole.split(/\r?\n/).filter((line) => line.trim() !== "");
  return lines.length > 1 ? parseObject((lines.at(-1) ?? "").trim()) : undefined;
}

/**
 * An entry's `timeout` (seconds) in milliseconds: `fallback` when absent, a reason string
 * when it is not a number of seconds above 0 and at most {@link MAX_HOOK_TIMEOUT_SECONDS}.
 */
export function timeoutOf(value: JsonValue | undefined, fallback: number): number | string {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !(value > 0) || value > MAX_HOOK_TIMEOUT_SECONDS) {
    return `timeout must be a number of seconds above 0 and at most ${MAX_HOOK_TIMEOUT_SECONDS}`;
  }
  return Math.ceil(value * 1000);
}

/** A string shown in a reason: JSON-quoted and clipped, so odd input cannot forge a note. */
export function quoted(value: string): string {
  const clipped = value.length > 60 ? `${value.slice(0, 59)}…` : value;
  return JSON.stringify(clipped);
}

/** The tool name an event's payload is about, if it names one. */
export function toolOf(event: EventName, payload: object): string | undefined {
  const fields = payload as Record<string, unknown>;
  if (event === "before_tool" || event === "after_tool") {
    return typeof fields.tool === "string" ? fields.tool : undefined;
  }
  if (event === "approval" && isPlainObject(fields.request)) {
    const tool = fields.request.tool;
    return typeof tool === "string" ? tool : undefined;
  }
  return undefined;
}

function parseObject(text: string): Record<string, JsonValue> | undefined {
  if (!text.startsWith("{")) return undefined;
  try {
    const value = parseJsonSafely(text);
    return isPlainObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
