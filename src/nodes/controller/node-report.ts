import { escapeTerminalControls } from "../../core/terminal-text.js";
import { collapseWhitespace } from "../../core/text.js";

/**
 * What a node says about its own run, made safe to show a model (docs/nodes.md, "What a
 * compromised node can and cannot do"). A node is not trusted: its refusal text must never
 * read as one of the controller's own `HOST:` lines, or a compromised node could word any
 * instruction the model trusts. So the controller always wraps it as
 * `HOST: node NAME reports: TEXT`, where TEXT is the node's text with a leading `HOST:` taken
 * off, every terminal control shown escaped, every run of whitespace (newlines included) made
 * one space, so it cannot start a line of its own, and at most {@link MAX_NODE_TEXT_BYTES}.
 */

/** The most bytes of a node's own text a wrapped message carries (UTF-8, the ellipsis included). */
export const MAX_NODE_TEXT_BYTES = 500;

/** A code a node reports is kept only when it has the shape of a skillgate code. */
const CODE_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

/** A leading `HOST:` (any case, any spaces around it) the node put in front of its text. */
const HOST_PREFIX = /^\s*host\s*:\s*/i;

const ELLIPSIS = "…";

/**
 * The code a node reported, when it looks like one (lower-case letters, digits and `_`, at
 * most 64); otherwise undefined, so a node cannot put text in the result's `code`.
 */
export function nodeReportedCode(code: string | undefined): string | undefined {
  return code !== undefined && CODE_PATTERN.test(code) ? code : undefined;
}

/** A signal a node reports is kept only when it is a signal's name (`SIGKILL`, `SIGSEGV`, …). */
const SIGNAL_PATTERN = /^SIG[A-Z0-9]{1,12}$/;

/** The signal a node reported, when it is a signal's name; otherwise undefined. */
export function nodeReportedSignal(signal: string | undefined): string | undefined {
  return signal !== undefined && SIGNAL_PATTERN.test(signal) ? signal : undefined;
}

/**
 * The model-facing text of a node's own message: `HOST: node NAME reports: TEXT`, ending in
 * ` [code]` when a valid `code` is given and TEXT does not end with it already.
 */
export function nodeReportedMessage(node: string, message: string, code?: string): string {
  let text = message;
  while (HOST_PREFIX.test(text)) text = text.replace(HOST_PREFIX, "");
  text = clipToBytes(collapseWhitespace(escapeTerminalControls(text)), MAX_NODE_TEXT_BYTES);
  const body = text === "" ? "(no text)" : text;
  const kept = nodeReportedCode(code);
  const suffix = kept !== undefined && !body.endsWith(`[${kept}]`) ? ` [${kept}]` : "";
  return `HOST: node ${node} reports: ${body}${suffix}`;
}

/** `text` cut to at most `maxBytes` of UTF-8 on a code point, ending in "…" when cut. */
function clipToBytes(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  const budget = maxBytes - Buffer.byteLength(ELLIPSIS);
  let bytes = 0;
  let end = 0;
  for (const character of text) {
    const size = Buffer.byteLength(character);
    if (bytes + size > budget) break;
    bytes += size;
    end += character.length;
  }
  return `${text.slice(0, end)}${ELLIPSIS}`;
}
