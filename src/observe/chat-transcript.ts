import { InvalidArgumentError } from "../core/errors.js";
import { sliceAtCodePoint } from "../core/text.js";
import type { ChatScope, MessageRole } from "./chat-input.js";
import type { ChatStatements } from "./chat-statements.js";

/** Characters of message text a transcript read returns by default: 20,000 (about 5,000 tokens). */
export const DEFAULT_TRANSCRIPT_CHARS = 20_000;
/** The most characters one transcript read may ask for. */
export const MAX_TRANSCRIPT_CHARS = 1_000_000;

/** Options of a transcript read. */
export interface TranscriptOptions {
  /**
   * Characters of message text to return, from the start (1 to {@link MAX_TRANSCRIPT_CHARS};
   * default {@link DEFAULT_TRANSCRIPT_CHARS}). Roles and times are not counted.
   */
  readonly maxChars?: number;
}

/** One message as read. */
export interface TranscriptMessage {
  readonly role: MessageRole;
  readonly text: string;
  /** ISO time. */
  readonly time: string;
  /** Characters of this message not in `text`: cut when stored (over the cap) or by this read. */
  readonly clippedChars: number;
}

/** A chat's transcript, from its first message, within a character budget. */
export interface Transcript {
  readonly chat: ChatScope;
  readonly messages: readonly TranscriptMessage[];
  /** Messages and characters the chat holds (characters as sent, before any cap). */
  readonly totalMessages: number;
  readonly totalChars: number;
  /** Characters of message text returned. */
  readonly shownChars: number;
  /** True when anything is missing: a message cut, or messages left out. */
  readonly clipped: boolean;
  /** For a model or a person, when clipped: what is missing. */
  readonly note?: string;
}

/** Reads a transcript in one read transaction, so its counts and messages agree. */
export function readTranscript(
  statements: ChatStatements,
  chat: ChatScope,
  options: TranscriptOptions,
): Transcript | undefined {
  const maxChars = options.maxChars ?? DEFAULT_TRANSCRIPT_CHARS;
  if (!Number.isSafeInteger(maxChars) || maxChars < 1 || maxChars > MAX_TRANSCRIPT_CHARS)
    throw new InvalidArgumentError(
      "maxChars",
      `maxChars must be a whole number from 1 to ${MAX_TRANSCRIPT_CHARS.toLocaleString("en-US")}`,
    );
  return statements.database.transaction(() => {
    const row = statements.key.get(chat.kind, chat.id);
    if (row === undefined) return undefined;
    const size = statements.transcriptSize.get(row.key) ?? { messages: 0, chars: 0 };
    const messages: TranscriptMessage[] = [];
    let budget = maxChars;
    let clipped = false;
    for (const message of statements.messages.iterate(row.key)) {
      if (budget === 0) {
        clipped = true;
        break; // Leaving the loop resets the statement: the rest is never read.
      }
      const text = sliceAtCodePoint(message.text, budget);
      const cut = message.text.length - text.length;
      if (cut > 0 || message.omitted > 0) clipped = true;
      messages.push({
        role: message.role,
        text,
        time: new Date(message.time).toISOString(),
        clippedChars: cut + message.omitted,
      });
      budget -= text.length;
      // A cut that kept nothing (half a surrogate pair) ends the read like an empty budget.
      if (cut > 0) budget = 0;
    }
    const shownChars = maxChars - budget;
    const transcript = {
      chat,
      messages,
      totalMessages: size.messages,
      totalChars: size.chars,
      shownChars,
      clipped,
    };
    if (!clipped) return transcript;
    const notShown = size.chars - messages.reduce((sum, message) => sum + message.text.length, 0);
    return {
      ...transcript,
      note: `[transcript clipped: ${notShown.toLocaleString("en-US")} of ${size.chars.toLocaleString("en-US")} characters not shown; ${messages.length} of ${size.messages} messages shown]`,
    };
  })();
}

/**
 * A transcript as plain text for a model: one `[time] role:` header per message, the text,
 * a `[… N characters not shown]` line after a cut message, and the note at the end.
 */
export function renderTranscript(transcript: Transcript): string {
  const parts = transcript.messages.map((message) => {
    const cut = message.clippedChars > 0 ? `\n[… ${message.clippedChars} characters not shown]` : "";
    return `[${message.time}] ${message.role}:\n${message.text}${cut}`;
  });
  if (transcript.note !== undefined) parts.push(transcript.note);
  return parts.length === 0 ? "(no messages)" : parts.join("\n\n");
}
