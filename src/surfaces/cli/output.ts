/**
 * Terminal output for the CLI: colour only on a TTY (and never with NO_COLOR), aligned
 * columns, and JSON with a trailing newline.
 */

/** How the CLI writes: injectable so tests can capture output. */
export interface CliOutput {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  readonly color: boolean;
}

/** The process's own stdout and stderr. */
export function processOutput(): CliOutput {
  const color =
    process.stdout.isTTY === true && process.env.NO_COLOR === undefined && process.env.TERM !== "dumb";
  return {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    color,
  };
}

/**
 * When the reader of `stream` goes away (`skillgate list | head -2`, `skillgate index | true`),
 * the next write fails with EPIPE: the command ends there, quietly, with exit code 0, as
 * nobody is left to read what it would print (docs/cli.md). Other stream errors still end
 * the process with their error.
 */
export function endQuietlyOnClosedPipe(stream: NodeJS.WriteStream): void {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(0);
    throw error;
  });
}

const CODES = { red: 31, green: 32, yellow: 33, blue: 34, dim: 2, bold: 1 } as const;

/** A colour or style name. */
export type Style = keyof typeof CODES;

/** Wraps text in an ANSI style when colour is on. */
export function paint(output: CliOutput, style: Style, text: string): string {
  return output.color ? `\u001b[${CODES[style]}m${text}\u001b[0m` : text;
}

/** Prints a value as indented JSON. */
export function printJson(output: CliOutput, value: unknown): void {
  output.out(`${JSON.stringify(value, null, 2)}\n`);
}

/**
 * Lays rows out in columns padded to the widest cell; the last column is not padded.
 * `styles` colours cells after the widths are measured, so escapes do not skew them.
 */
export function table(
  output: CliOutput,
  header: readonly string[],
  rows: readonly (readonly string[])[],
  styles: (row: number, column: number) => Style | undefined = () => undefined,
): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? "").length)),
  );
  const renderRow = (cells: readonly string[], rowIndex: number): string =>
    cells
      .map((cell, column) => {
        const padded = column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0);
        const style = rowIndex < 0 ? "bold" : styles(rowIndex, column);
        return style ? paint(output, style, padded) : padded;
      })
      .join("  ")
      .trimEnd();
  return [renderRow(header, -1), ...rows.map((row, index) => renderRow(row, index))].join("\n");
}

/** The style for a decision kind. */
export function decisionStyle(decision: string): Style | undefined {
  switch (decision) {
    case "registered":
      return "green";
    case "rejected":
      return "red";
    case "display_only":
    case "disabled":
      return "yellow";
    default:
      return "dim";
  }
}
