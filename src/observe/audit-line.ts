import { isPlainObject } from "../core/safe-json.js";
import { type AuditEvent, MAX_AUDIT_ARGV_ITEMS } from "./events.js";

/**
 * One audit event as one line of JSON, and back. Only the fields of {@link AuditEvent} are
 * written, in a fixed order with `type` first: whatever else a caller's object carries at
 * run time (an argument, an output, a message) never reaches the file. Reading is as strict:
 * a line that is not a well-formed event is skipped, never half-used.
 */

/** Every field an audit line may hold, in the order it is written. */
export const AUDIT_FIELDS = [
  "type",
  "time",
  "requestId",
  "scope",
  "tool",
  "tier",
  "skill",
  "hash8",
  "rule",
  "decision",
  "answer",
  "status",
  "latencyMs",
  "errorKind",
  "host",
  "port",
  "limits",
  "workspace",
  "path",
  "change",
  "node",
  "argv",
  "worker",
  "caller",
  "traceId",
  "agentId",
  "capability",
  "provider",
  "skillId",
  "skillKind",
  "runtimeGate",
  "generation",
  "manifestDigest",
  "inputBytes",
  "outputBytes",
  "access",
  "source",
  "registration",
  "reasons",
  "reloadStep",
  "widening",
] as const satisfies readonly (keyof AuditEvent)[];

/** The fields written as whole numbers. */
const NUMBER_FIELDS: ReadonlySet<string> = new Set([
  "latencyMs",
  "port",
  "generation",
  "inputBytes",
  "outputBytes",
]);

/** The fields written as lists of text (each item cut like a text field, at most {@link MAX_AUDIT_ARGV_ITEMS}). */
const LIST_FIELDS: ReadonlySet<string> = new Set(["argv", "widening"]);

/** The longest text field written, in UTF-16 units; longer values are cut (ids and names are short). */
export const MAX_AUDIT_FIELD_CHARS = 256;

/**
 * `event` as one JSON line ending in `\n`, holding only the known fields, and only values of
 * their own type: text for text fields (never an object turned into text, whose `toString`
 * could hold anything), a finite number for `latencyMs`.
 */
export function serialiseAuditEvent(event: AuditEvent): string {
  const line: Record<string, unknown> = {};
  for (const field of AUDIT_FIELDS) {
    const value: unknown = event[field];
    if (field === "scope") {
      const scope: { kind?: unknown; id?: unknown } =
        typeof value === "object" && value !== null ? value : {};
      line.scope = {
        kind: typeof scope.kind === "string" ? clip(scope.kind) : "",
        id: typeof scope.id === "string" ? clip(scope.id) : "",
      };
    } else if (NUMBER_FIELDS.has(field)) {
      if (typeof value === "number" && Number.isFinite(value)) line[field] = Math.round(value);
    } else if (LIST_FIELDS.has(field)) {
      if (Array.isArray(value))
        line[field] = value
          .slice(0, MAX_AUDIT_ARGV_ITEMS)
          .map((item: unknown) => (typeof item === "string" ? clip(item) : ""));
    } else if (typeof value === "string") {
      line[field] = clip(value);
    }
  }
  return `${JSON.stringify(line)}\n`;
}

/**
 * The event on `line`, or undefined for a torn, foreign or malformed line. A line torn by a
 * crash has the next event appended to it (writers never read, so they cannot end it);
 * every line starts with `{"type":"`, which JSON can only hold unescaped as structure, so
 * the last such start in a line that does not parse is that next event, recovered.
 */
export function parseAuditLine(line: string): AuditEvent | undefined {
  if (line.length === 0) return undefined;
  const event = parseEvent(line);
  if (event !== undefined) return event;
  const start = line.lastIndexOf(LINE_START);
  return start > 0 ? parseEvent(line.slice(start)) : undefined;
}

const LINE_START = '{"type":"';

function parseEvent(line: string): AuditEvent | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!isPlainObject(raw)) return undefined;
  const scope = raw.scope;
  if (
    typeof raw.type !== "string" ||
    typeof raw.time !== "string" ||
    typeof raw.requestId !== "string" ||
    typeof raw.tool !== "string" ||
    typeof raw.tier !== "string" ||
    !isPlainObject(scope) ||
    (scope.kind !== "chat" && scope.kind !== "job") ||
    typeof scope.id !== "string"
  )
    return undefined;
  const event: Record<string, unknown> = {};
  for (const field of AUDIT_FIELDS) {
    const value = raw[field];
    if (value === undefined) continue;
    if (field === "scope") event.scope = { kind: scope.kind, id: scope.id };
    else if (NUMBER_FIELDS.has(field)) {
      if (typeof value === "number") event[field] = value;
    } else if (LIST_FIELDS.has(field)) {
      if (Array.isArray(value) && value.every((item) => typeof item === "string")) event[field] = value;
    } else if (typeof value === "string") event[field] = value;
  }
  return event as unknown as AuditEvent;
}

/** Cuts a text field and replaces lone surrogates, so every line is valid UTF-8 of bounded size. */
function clip(text: string): string {
  const cut = text.length > MAX_AUDIT_FIELD_CHARS ? text.slice(0, MAX_AUDIT_FIELD_CHARS) : text;
  return toWellFormed(cut);
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** `text` with every lone surrogate replaced by U+FFFD (what `String#toWellFormed` does on Node 20). */
export function toWellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, "\ufffd");
}
