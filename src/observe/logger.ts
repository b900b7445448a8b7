/**
 * Information lines for operators. skillgate logs what happened and to what (a skill, a
 * script, a kind of repair), never the content a model or a script sent: an argument value
 * may be a secret.
 */

/** Plain fields on a log line: names and numbers, never content. */
export type LogFields = Readonly<Record<string, string | number | boolean>>;

/** Where information lines go; injectable, so a host can route them to its own logging. */
export interface Logger {
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
}

/**
 * A logger that writes one line per message to `write` (default stderr):
 * `skillgate: info: message key=value …`. Line breaks in the message or values become
 * spaces, so one call is always one line.
 */
export function streamLogger(write: (line: string) => void = (line) => process.stderr.write(line)): Logger {
  const line = (level: string, message: string, fields: LogFields | undefined): void => {
    const pairs = Object.entries(fields ?? {}).map(([key, value]) => ` ${key}=${oneLine(String(value))}`);
    try {
      write(`skillgate: ${level}: ${oneLine(message)}${pairs.join("")}\n`);
    } catch {
      // Logging never fails the work it describes.
    }
  };
  return {
    info: (message, fields) => line("info", message, fields),
    warn: (message, fields) => line("warn", message, fields),
  };
}

/** One line on stderr per message: what the CLI and the MCP server it starts pass in. */
export const stderrLogger: Logger = streamLogger();

/** A logger that drops everything: the library's default, so an embedder's stderr stays its own. */
export const silentLogger: Logger = { info: () => {}, warn: () => {} };

function oneLine(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters would break the one-line contract.
  return text.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, " ");
}
