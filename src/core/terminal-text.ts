/**
 * Making text that someone else wrote safe to show on a person's terminal (docs/running-scripts.md,
 * "Output on a terminal"). A script's output may hold control sequences that set the window
 * title (OSC 0/2), write to the clipboard (OSC 52), clear the screen or move the cursor (CSI),
 * or hide text behind carriage returns and bidirectional overrides. On a terminal each such
 * character is shown escaped instead, so `ESC ] 0 ; title BEL` prints as `\x1b]0;title\x07`.
 *
 * Every control is escaped on its own, with no parsing of sequences: the printable rest of a
 * sequence is harmless once its introducer is shown as text, and a sequence split across two
 * chunks of output needs no state. Only the newline and the tab pass; a carriage return passes
 * only as part of `\r\n`. A backslash is not escaped, so `\x1b` printed literally by a script
 * looks the same as an escaped ESC: the point is that nothing acts on the terminal, not that
 * the view can be decoded back into bytes (`--json` and pipes carry the bytes unchanged).
 */

/**
 * C0 controls but tab and newline, DEL, C1 controls (as code points, the way decoded UTF-8
 * carries them), and the bidirectional embedding, override and isolate characters.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is escaped.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** Shows one control character as text: `\xHH` below U+0100, else `\uHHHH`. */
function visible(character: string): string {
  const code = character.charCodeAt(0);
  return code < 0x100
    ? `\\x${code.toString(16).padStart(2, "0")}`
    : `\\u${code.toString(16).padStart(4, "0")}`;
}

/**
 * `text` with every terminal control character except newline and tab shown escaped; a
 * carriage return directly before a newline is kept. Pure: the same text gives the same result.
 */
export function escapeTerminalControls(text: string): string {
  return text.replace(CONTROL, (character, offset: number) =>
    character === "\r" && text.charCodeAt(offset + 1) === 0x0a ? character : visible(character),
  );
}

/** A filter for text that arrives in pieces: {@link escapeTerminalControls} across chunk ends. */
export interface TerminalTextFilter {
  /** The safe text for this chunk; a carriage return at its very end waits for the next chunk. */
  readonly write: (chunk: string) => string;
  /** Whatever was held back, escaped: call once when the stream ends. */
  readonly end: () => string;
}

/**
 * A stateful {@link TerminalTextFilter}: the only thing it carries between chunks is a final
 * `\r`, since whether it is kept depends on the next character.
 */
export function createTerminalTextFilter(): TerminalTextFilter {
  let heldReturn = false;
  return {
    write: (chunk) => {
      const text = (heldReturn ? "\r" : "") + chunk;
      heldReturn = text.endsWith("\r");
      return escapeTerminalControls(heldReturn ? text.slice(0, -1) : text);
    },
    end: () => {
      const rest = heldReturn ? visible("\r") : "";
      heldReturn = false;
      return rest;
    },
  };
}

/** What `JSON.stringify` leaves raw but a terminal may act on: DEL, C1 controls, bidi controls. */
const RAW_IN_JSON = /[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * JSON text (as `JSON.stringify` writes it) with DEL, the C1 controls and the bidirectional
 * controls written as `\uHHHH` escapes. `JSON.stringify` already escapes C0 controls; these are
 * the rest a terminal could obey. The value the JSON decodes to is unchanged, since such
 * characters can only occur inside its strings.
 */
export function escapeJsonControls(json: string): string {
  return json.replace(
    RAW_IN_JSON,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
