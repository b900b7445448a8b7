import picomatch from "picomatch";
import { isPlainObject, type JsonValue, sanitizeJson } from "../core/safe-json.js";
import type { AfterToolAnswer, BeforeToolAnswer, EventName } from "./events.js";
import { isEventName } from "./events.js";
import { exitError, runHookCommand } from "./hook-command.js";
import {
  answerObject,
  DEFAULT_ASK_REASON,
  DEFAULT_DENY_REASON,
  type HookRunSettings,
  type ParsedHooks,
  quoted,
  type ShellHookEntry,
  timeoutOf,
  toolOf,
} from "./hook-entry.js";

/** The events whose payload names a tool, so a `match` glob can apply. */
const EVENTS_WITH_A_TOOL: readonly EventName[] = ["before_tool", "after_tool", "approval"];

/**
 * Reads the native shape: a list of `{event, match?, command, timeout?}`. `match` is a glob
 * (picomatch) on the tool name, allowed on events whose payload names a tool
 * (`before_tool`, `after_tool`, `approval`); `timeout` is in seconds. An entry that is not
 * usable is skipped with a reason and the others are kept.
 */
export function parseNativeHooks(entries: readonly JsonValue[], settings: HookRunSettings): ParsedHooks {
  const parsed: ParsedHooks = { hooks: [], skipped: [] };
  entries.forEach((entry, index) => {
    const hook = nativeEntry(entry, index + 1, settings);
    if (typeof hook === "string") parsed.skipped.push(hook);
    else parsed.hooks.push(hook);
  });
  return parsed;
}

function nativeEntry(entry: JsonValue, position: number, settings: HookRunSettings): ShellHookEntry | string {
  if (!isPlainObject(entry)) return `entry ${position} is not an object`;
  const { event, command, match } = entry;
  if (typeof event !== "string") return `entry ${position} has no event`;
  if (!isEventName(event)) return `unknown event ${quoted(event)}`;
  if (typeof command !== "string" || command.trim() === "") return `entry ${position} has no command`;
  const timeoutMs = timeoutOf(entry.timeout, settings.timeoutMs);
  if (typeof timeoutMs === "string") return `entry ${position}: ${timeoutMs}`;
  let matches: ((tool: string) => boolean) | undefined;
  if (match !== undefined) {
    if (typeof match !== "string" || match === "") return `entry ${position}: match must be a non-empty glob`;
    if (!EVENTS_WITH_A_TOOL.includes(event)) return `entry ${position}: ${event} has no tool to match`;
    try {
      matches = picomatch(match);
    } catch {
      return `entry ${position}: invalid glob ${quoted(match)}`;
    }
  }
  const run = { ...settings, timeoutMs };
  return {
    event,
    command,
    ...(typeof match === "string" ? { match } : {}),
    hook: async (payload: object) => {
      if (matches !== undefined) {
        const tool = toolOf(event, payload);
        // Checked before anything runs: a hook for other tools costs nothing.
        if (tool === undefined || !matches(tool)) return undefined;
      }
      const exit = await runHookCommand({
        command,
        // `event` first for people reading it, and the payload cannot overwrite it.
        input: JSON.stringify(Object.assign({ event }, payload, { event })),
        cwd: run.cwd,
        env: process.env,
        timeoutMs: run.timeoutMs,
        maxOutputBytes: run.maxOutputBytes,
      });
      if (exit.exitCode !== 0) throw exitError(command, exit);
      return nativeAnswer(event, answerObject(exit.stdout));
    },
  };
}

/**
 * What a native command's answer means for its event. `before_tool`: `deny` (a string)
 * denies and wins over everything else; `ask` (a string) asks a person; `args` (an object)
 * replaces the arguments. `after_tool`: `result` (a string) replaces the result. Fields of
 * the wrong type, other fields and answers to other events are ignored.
 */
export function nativeAnswer(
  event: EventName,
  answer: Record<string, JsonValue> | undefined,
): BeforeToolAnswer | AfterToolAnswer {
  if (answer === undefined) return undefined;
  if (event === "before_tool") {
    if (typeof answer.deny === "string") return { deny: answer.deny.trim() || DEFAULT_DENY_REASON };
    const ask = typeof answer.ask === "string" ? { ask: answer.ask.trim() || DEFAULT_ASK_REASON } : {};
    const args = isPlainObject(answer.args)
      ? { args: sanitizeJson(answer.args) as Record<string, JsonValue> }
      : {};
    const combined = { ...ask, ...args };
    return Object.keys(combined).length > 0 ? combined : undefined;
  }
  if (event === "after_tool" && typeof answer.result === "string") return { result: answer.result };
  return undefined;
}
