import { isPlainObject, type JsonValue } from "../core/safe-json.js";
import {
  isSettingsEventName,
  matchSubject,
  SETTINGS_EVENTS,
  type SettingsEventName,
  settingsAnswer,
  settingsInput,
} from "./claude-hook-io.js";
import { runHookCommand } from "./hook-command.js";
import {
  type HookRunSettings,
  type ParsedHooks,
  quoted,
  type ShellHookEntry,
  timeoutOf,
} from "./hook-entry.js";

/**
 * Reads the hook settings shape other agent setups use:
 * `{ "PreToolUse": [ { "matcher": "Edit|Write", "hooks": [ { "type": "command",
 * "command": "...", "timeout": 30 } ] } ] }`. Event names map to skillgate's events as
 * `SETTINGS_EVENTS` lists. A matcher that is absent, empty or `*` matches everything;
 * any other is a regular expression that must match the whole subject (`Edit|Write`,
 * `mcp__.*`). `timeout` is in seconds. Only `command` hooks run; other fields of a hook
 * (`async`, `once`, `statusMessage`, `shell`…) are ignored. An unusable event, group or
 * hook is skipped with a reason and the others are kept.
 */
export function parseSettingsHooks(
  events: { readonly [event: string]: JsonValue },
  settings: HookRunSettings,
): ParsedHooks {
  const parsed: ParsedHooks = { hooks: [], skipped: [] };
  for (const [name, groups] of Object.entries(events)) {
    if (!isSettingsEventName(name)) {
      parsed.skipped.push(`unknown event ${quoted(name)}`);
      continue;
    }
    if (!Array.isArray(groups)) {
      parsed.skipped.push(`${name} is not a list`);
      continue;
    }
    groups.forEach((group, index) => {
      parseGroup(name, `${name}[${index}]`, group, settings, parsed);
    });
  }
  return parsed;
}

/** One `{ matcher, hooks: [...] }` group of an event: its hooks, or reasons to skip them. */
function parseGroup(
  name: SettingsEventName,
  where: string,
  group: JsonValue,
  settings: HookRunSettings,
  parsed: ParsedHooks,
): void {
  if (!isPlainObject(group)) {
    parsed.skipped.push(`${where} is not an object`);
    return;
  }
  const matcher = group.matcher ?? "";
  const matches = typeof matcher === "string" ? compileMatcher(matcher) : "matcher is not a string";
  if (typeof matcher !== "string" || typeof matches === "string") {
    parsed.skipped.push(`${where}: ${String(matches)}`);
    return;
  }
  if (!Array.isArray(group.hooks)) {
    parsed.skipped.push(`${where} has no hooks list`);
    return;
  }
  group.hooks.forEach((hook, position) => {
    const entry = settingsEntry(name, hook, matcher, matches, settings);
    if (typeof entry === "string") parsed.skipped.push(`${where}.hooks[${position}]: ${entry}`);
    else parsed.hooks.push(entry);
  });
}

/**
 * A matcher as a test: `undefined` for one that matches everything, a reason string for
 * an invalid regular expression.
 */
export function compileMatcher(matcher: string): ((subject: string) => boolean) | undefined | string {
  if (matcher === "" || matcher === "*") return undefined;
  try {
    const pattern = new RegExp(`^(?:${matcher})$`);
    return (subject) => pattern.test(subject);
  } catch {
    return `invalid matcher ${quoted(matcher)} (not a regular expression)`;
  }
}

function settingsEntry(
  name: SettingsEventName,
  hook: JsonValue,
  matcher: string,
  matches: ((subject: string) => boolean) | undefined,
  settings: HookRunSettings,
): ShellHookEntry | string {
  if (!isPlainObject(hook)) return "not an object";
  if (hook.type !== undefined && hook.type !== "command") {
    return `hook type ${typeof hook.type === "string" ? quoted(hook.type) : "given"} is not supported (only "command")`;
  }
  const command = hook.command;
  if (typeof command !== "string" || command.trim() === "") return "no command";
  const timeoutMs = timeoutOf(hook.timeout, settings.timeoutMs);
  if (typeof timeoutMs === "string") return timeoutMs;
  const event = SETTINGS_EVENTS[name];
  return {
    event,
    command,
    ...(matcher !== "" ? { match: matcher } : {}),
    hook: async (payload: object) => {
      const fields = payload as Record<string, unknown>;
      // The shape's Notification is a request for permission only, not its answer.
      if (name === "Notification" && fields.answer !== undefined) return undefined;
      const subject = matchSubject(name, fields);
      if (matches !== undefined && subject !== undefined && !matches(subject)) return undefined;
      const exit = await runHookCommand({
        command,
        input: JSON.stringify(settingsInput(name, fields, settings.cwd)),
        cwd: settings.cwd,
        // Such hooks find their scripts through the project folder variable of that shape.
        env: { ...process.env, CLAUDE_PROJECT_DIR: settings.cwd },
        timeoutMs,
        maxOutputBytes: settings.maxOutputBytes,
      });
      return settingsAnswer(name, fields, command, exit);
    },
  };
}
