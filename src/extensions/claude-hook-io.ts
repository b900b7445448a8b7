import { isPlainObject, type JsonValue, sanitizeJson } from "../core/safe-json.js";
import { clipAtWord } from "../core/text.js";
import type { AfterToolAnswer, BeforeToolAnswer } from "./events.js";
import { exitError, type HookCommandExit, shown, stderrForNote } from "./hook-command.js";
import { answerObject, DEFAULT_ASK_REASON, DEFAULT_DENY_REASON } from "./hook-entry.js";

/**
 * The event names of the agent settings shape that skillgate maps, and the events they
 * become. Other names in a settings file are skipped with a reason.
 */
export const SETTINGS_EVENTS = {
  PreToolUse: "before_tool",
  PostToolUse: "after_tool",
  UserPromptSubmit: "before_turn",
  Stop: "after_turn",
  SessionStart: "session_start",
  SessionEnd: "stop",
  PreCompact: "compact",
  Notification: "approval",
  SubagentStop: "background_done",
} as const;

/** One of the keys of {@link SETTINGS_EVENTS}. */
export type SettingsEventName = keyof typeof SETTINGS_EVENTS;

/** Whether `name` is one of {@link SETTINGS_EVENTS}' keys. */
export function isSettingsEventName(name: string): name is SettingsEventName {
  return Object.hasOwn(SETTINGS_EVENTS, name);
}

/** A reason from stderr or a JSON answer, clipped so one hook cannot flood a model's context. */
const MAX_REASON_CHARS = 2_000;

/**
 * What a matcher is matched against for each event, as that shape defines it: the tool's
 * name for the tool events, and for some others the value skillgate sends in the input
 * (`source`, `trigger`, `notification_type`, `reason`). `undefined`: the event has no
 * matcher and every hook of it runs.
 */
export function matchSubject(event: SettingsEventName, payload: Record<string, unknown>): string | undefined {
  switch (event) {
    case "PreToolUse":
    case "PostToolUse":
      return typeof payload.tool === "string" ? payload.tool : "";
    case "SessionStart":
      return "startup";
    case "PreCompact":
      return "auto";
    case "Notification":
      return "permission_prompt";
    case "SessionEnd":
      return "other";
    default:
      return undefined;
  }
}

/**
 * The JSON a settings-shape command gets on stdin: the input that shape's hooks read.
 * `session_id` is the chat's or job's id; there is no transcript file, so no
 * `transcript_path`; `tool_response` is the result text the model is about to see.
 */
export function settingsInput(
  event: SettingsEventName,
  payload: Record<string, unknown>,
  cwd: string,
): Record<string, unknown> {
  const scope = isPlainObject(payload.scope) ? payload.scope : undefined;
  const base = { session_id: typeof scope?.id === "string" ? scope.id : "", cwd, hook_event_name: event };
  switch (event) {
    case "PreToolUse":
      return { ...base, tool_name: payload.tool, tool_input: payload.args ?? {} };
    case "PostToolUse":
      return {
        ...base,
        tool_name: payload.tool,
        tool_input: payload.args ?? {},
        tool_response: payload.result ?? "",
      };
    case "UserPromptSubmit":
      return { ...base, prompt: payload.prompt ?? "" };
    case "Stop":
      return {
        ...base,
        stop_hook_active: false,
        ...(typeof payload.text === "string" ? { last_assistant_message: payload.text } : {}),
      };
    case "SubagentStop":
      return { ...base, stop_hook_active: false };
    case "SessionStart":
      return { ...base, source: "startup" };
    case "SessionEnd":
      return { ...base, reason: "other" };
    case "PreCompact":
      return { ...base, trigger: "auto", custom_instructions: "" };
    case "Notification": {
      const request = isPlainObject(payload.request) ? payload.request : {};
      const summary = typeof request.summary === "string" ? request.summary : "a tool call";
      return {
        ...base,
        message: `skillgate needs your approval: ${summary}`,
        notification_type: "permission_prompt",
      };
    }
  }
}

/**
 * What a settings-shape command's exit means for its event:
 * - exit 2: `PreToolUse` denies with stderr as the reason; `PostToolUse` appends stderr to
 *   the result as a `HOST:` note; any other event throws (skillgate cannot block it).
 * - exit 0: the JSON answer (see `answerObject`) is read. `PreToolUse`:
 *   `hookSpecificOutput.permissionDecision` "deny" denies and "ask" asks (reason:
 *   `permissionDecisionReason`); "allow" adds nothing, as a hook never widens a rule;
 *   `hookSpecificOutput.updatedInput` replaces the arguments; the older
 *   `{"decision": "block", "reason"}` denies. `PostToolUse`: `{"decision": "block"}`'s
 *   reason and `hookSpecificOutput.additionalContext` are appended to the result as notes.
 *   Other events' answers are not used.
 * - any other exit code throws, so the failure is noted and the turn goes on.
 */
export function settingsAnswer(
  event: SettingsEventName,
  payload: Record<string, unknown>,
  command: string,
  exit: HookCommandExit,
): BeforeToolAnswer | AfterToolAnswer {
  if (exit.exitCode === 2) {
    const reason = clipped(exit.stderr);
    if (event === "PreToolUse") return { deny: reason || DEFAULT_DENY_REASON };
    if (event === "PostToolUse") return withNotes(payload, [reason || "a hook flagged this result"]);
    const said = stderrForNote(exit.stderr);
    throw new Error(
      `hook command exited with code 2, but ${event} cannot be blocked${said === "" ? "" : ` (${said})`}: ${shown(command)}`,
    );
  }
  if (exit.exitCode !== 0) throw exitError(command, exit);
  const answer = answerObject(exit.stdout);
  if (answer === undefined) return undefined;
  const specific = isPlainObject(answer.hookSpecificOutput) ? answer.hookSpecificOutput : {};
  if (event === "PreToolUse") return beforeToolAnswer(answer, specific);
  if (event === "PostToolUse") {
    const notes: string[] = [];
    if (answer.decision === "block") notes.push(clipped(answer.reason) || "a hook flagged this result");
    const context = clipped(specific.additionalContext);
    if (context !== "") notes.push(context);
    return notes.length > 0 ? withNotes(payload, notes) : undefined;
  }
  return undefined;
}

function beforeToolAnswer(
  answer: Record<string, JsonValue>,
  specific: Record<string, JsonValue>,
): BeforeToolAnswer {
  const decision = specific.permissionDecision;
  const reason = clipped(specific.permissionDecisionReason);
  if (decision === "deny") return { deny: reason || DEFAULT_DENY_REASON };
  if (decision === undefined && answer.decision === "block") {
    return { deny: clipped(answer.reason) || DEFAULT_DENY_REASON };
  }
  const ask = decision === "ask" ? { ask: reason || DEFAULT_ASK_REASON } : {};
  const args = isPlainObject(specific.updatedInput)
    ? { args: sanitizeJson(specific.updatedInput) as Record<string, JsonValue> }
    : {};
  const combined = { ...ask, ...args };
  return Object.keys(combined).length > 0 ? combined : undefined;
}

/** The result with each note appended on its own line as `HOST: hook: <note>`. */
function withNotes(payload: Record<string, unknown>, notes: readonly string[]): AfterToolAnswer {
  const result = typeof payload.result === "string" ? payload.result : "";
  const lines = notes.map((note) => `HOST: hook: ${note}`).join("\n");
  return { result: result === "" ? lines : `${result.replace(/\n+$/, "")}\n\n${lines}` };
}

function clipped(value: unknown): string {
  return typeof value === "string" ? clipAtWord(value.trim(), MAX_REASON_CHARS) : "";
}
