import { InvalidArgumentError, SkillgateError } from "../core/errors.js";
import { sliceAtCodePoint } from "../core/text.js";
import { toWellFormed } from "./audit-line.js";

/**
 * What the chat log accepts, and the caps it applies. Ids (chats, jobs, owners, grants) are
 * refused when malformed, since a mangled id would name another chat; texts (titles,
 * messages) are kept, capped and made valid UTF-8, since a transcript must not be lost over
 * one odd character.
 */

/** Longest chat, job or owner id, in characters (the same as the reviews file's). */
export const MAX_CHAT_ID_LENGTH = 200;
/** Longest grant, in characters (`skill:<64-character name>@<8 hex>` fits with room). */
export const MAX_GRANT_LENGTH = 200;
/** Longest chat title kept, in characters; longer titles are cut. */
export const MAX_CHAT_TITLE_CHARS = 200;
/**
 * Longest message text kept, in UTF-16 units (100,000: about 25,000 tokens, more than any
 * transcript reader shows). The rest is dropped and its length kept as `omittedChars`.
 */
export const MAX_MESSAGE_CHARS = 100_000;

/** A chat (a person's conversation) or a job (an unattended run). */
export type ChatKind = "chat" | "job";

/** Which chat or job: ids are unique within a kind. */
export interface ChatScope {
  readonly kind: ChatKind;
  readonly id: string;
}

/** A chat or job: a bare string names a chat. */
export type ChatRef = string | ChatScope;

/** Who wrote a transcript message. */
export type MessageRole = "user" | "assistant" | "tool";

const ROLES: readonly MessageRole[] = ["user", "assistant", "tool"];

/** The chat log cannot open or read its database: not SQLite, or written by a newer skillgate. */
export class ChatLogUnreadableError extends SkillgateError<{ file: string; reason: string }> {
  constructor(file: string, reason: string, options?: { cause?: unknown }) {
    super(
      "chat_log_unreadable",
      `the chat database ${file} cannot be used: ${reason}`,
      { file, reason },
      options,
    );
  }
}

/** `ref` as a checked scope; throws `invalid_argument` naming `argument`. */
export function checkScope(ref: unknown, argument = "chat"): ChatScope {
  if (typeof ref === "string") return { kind: "chat", id: checkId(ref, argument) };
  if (typeof ref !== "object" || ref === null)
    throw new InvalidArgumentError(argument, `${argument} must be a chat id or { kind, id }`);
  const { kind, id } = ref as { kind?: unknown; id?: unknown };
  if (kind !== "chat" && kind !== "job")
    throw new InvalidArgumentError(`${argument}.kind`, `${argument}.kind must be "chat" or "job"`);
  return { kind, id: checkId(id, `${argument}.id`) };
}

/** An id of 1 to {@link MAX_CHAT_ID_LENGTH} characters, no control character, valid UTF-16. */
export function checkId(value: unknown, argument: string, max = MAX_CHAT_ID_LENGTH): string {
  if (
    typeof value !== "string" ||
    value.length === 0 ||
    value.length > max ||
    hasControl(value) ||
    toWellFormed(value) !== value
  )
    throw new InvalidArgumentError(
      argument,
      `${argument} must be 1 to ${max} characters without control characters or broken Unicode`,
    );
  return value;
}

/** A role the transcript keeps. */
export function checkRole(value: unknown): MessageRole {
  if (!ROLES.includes(value as MessageRole))
    throw new InvalidArgumentError("role", `role must be one of ${ROLES.join(", ")}`);
  return value as MessageRole;
}

/** A title on one line, cut to {@link MAX_CHAT_TITLE_CHARS}: control characters become spaces. */
export function cleanTitle(value: unknown): string {
  if (typeof value !== "string") throw new InvalidArgumentError("title", "title must be text");
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is replaced.
  const oneLine = value.replace(/[\u0000-\u001f\u007f]/g, " ");
  return toWellFormed(sliceAtCodePoint(oneLine, MAX_CHAT_TITLE_CHARS));
}

/** A message text as stored: cut to {@link MAX_MESSAGE_CHARS}, valid UTF-16; NUL and newlines kept. */
export function capMessage(value: unknown): { text: string; omittedChars: number } {
  if (typeof value !== "string") throw new InvalidArgumentError("text", "text must be text");
  const kept = sliceAtCodePoint(value, MAX_MESSAGE_CHARS);
  return { text: toWellFormed(kept), omittedChars: value.length - kept.length };
}

/** A time for the database: milliseconds since the epoch, from a Date, a number or an ISO text. */
export function checkTime(value: unknown, argument: string): number {
  const milliseconds =
    value instanceof Date ? value.getTime() : typeof value === "string" ? Date.parse(value) : value;
  // ±8.64e15 ms is the range a Date (and so an ISO text) can hold.
  if (typeof milliseconds !== "number" || !(Math.abs(milliseconds) <= 8.64e15))
    throw new InvalidArgumentError(argument, `${argument} must be a date and time`);
  return Math.round(milliseconds);
}

function hasControl(text: string): boolean {
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}
