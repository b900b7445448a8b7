import { parseDocument } from "yaml";
import { type Diagnostic, diagnostic } from "../core/diagnostics.js";
import { MAX_FRONT_MATTER_BYTES, MAX_YAML_ALIAS_COUNT } from "../core/limits.js";
import { isForbiddenKey, isPlainObject } from "../core/safe-json.js";
import { scanFrontMatter } from "./front-matter-scanner.js";
import { parseSimpleFrontMatter } from "./simple-yaml.js";

/**
 * The parts of a SKILL.md: its front matter (the YAML between a first line `---` and
 * the next line that is exactly `---`) and its body. A UTF-8 BOM and CRLF line ends are
 * tolerated. The closing delimiter is found by line, never by substring, so `---` inside
 * a value or a longer `----` line does not end the block.
 */
export interface SplitSkillFile {
  /** The YAML text between the delimiters, `undefined` when the file has no front matter. */
  readonly yaml: string | undefined;
  /** Everything after the closing delimiter (or the whole file), with LF line ends. */
  readonly body: string;
  /** A first line `---` with no closing line: the whole file is treated as body. */
  readonly unterminated: boolean;
}

/** Splits SKILL.md text into front matter and body. Never throws. */
export function splitFrontMatter(text: string): SplitSkillFile {
  const withoutBom = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  // Most files have no carriage return: skip the replace (and its copy) for them.
  const normalised = withoutBom.includes("\r") ? withoutBom.replace(/\r\n?/g, "\n") : withoutBom;
  if (!normalised.startsWith("---\n") && normalised !== "---") {
    return { yaml: undefined, body: normalised, unterminated: false };
  }
  const afterOpen = 4;
  let lineStart = afterOpen;
  while (lineStart <= normalised.length) {
    const lineEnd = normalised.indexOf("\n", lineStart);
    const end = lineEnd === -1 ? normalised.length : lineEnd;
    if (end - lineStart === 3 && normalised.startsWith("---", lineStart)) {
      const yaml = normalised.slice(afterOpen, lineStart);
      const body = lineEnd === -1 ? "" : normalised.slice(lineEnd + 1);
      return { yaml, body, unterminated: false };
    }
    if (lineEnd === -1) break;
    lineStart = lineEnd + 1;
  }
  return { yaml: undefined, body: normalised, unterminated: true };
}

const DASH = 0x2d;
const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/**
 * Where {@link splitFrontMatter} would find the YAML, found in the bytes of a SKILL.md
 * without decoding them: the byte range between a first line `---` (after an optional
 * UTF-8 BOM) and the next line that is exactly `---`. It answers only when no carriage
 * return comes before the end of the closing line (CR and CRLF line ends are rewritten
 * by the split, which then needs the text); `undefined` means "split the decoded text".
 * The range is then exactly the split's `yaml`, in UTF-8.
 */
export function locateFrontMatter(bytes: Uint8Array): { start: number; end: number } | undefined {
  const length = bytes.length;
  const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 7 : 4;
  if (
    length < start ||
    bytes[start - 4] !== DASH ||
    bytes[start - 3] !== DASH ||
    bytes[start - 2] !== DASH ||
    bytes[start - 1] !== LINE_FEED
  ) {
    return undefined;
  }
  const carriageReturn = bytes.indexOf(CARRIAGE_RETURN, start);
  let lineStart = start;
  while (lineStart < length) {
    const lineEnd = bytes.indexOf(LINE_FEED, lineStart);
    const end = lineEnd === -1 ? length : lineEnd;
    if (carriageReturn !== -1 && carriageReturn < end) return undefined;
    if (
      end - lineStart === 3 &&
      bytes[lineStart] === DASH &&
      bytes[lineStart + 1] === DASH &&
      bytes[lineStart + 2] === DASH
    ) {
      return { start, end: lineStart };
    }
    if (lineEnd === -1) return undefined;
    lineStart = lineEnd + 1;
  }
  return undefined;
}

/** The outcome of parsing front matter: a mapping (possibly empty) and any problems. */
export interface ParsedFrontMatter {
  /** The parsed mapping; `undefined` when the YAML could not be used at all. */
  readonly data: Record<string, unknown> | undefined;
  readonly diagnostics: Diagnostic[];
}

/**
 * Parses front matter YAML with the YAML 1.2 core schema, unique keys, a byte limit and
 * bounded alias expansion. Problems come back as diagnostics, never as exceptions.
 */
export function parseFrontMatterYaml(yaml: string, path?: string): ParsedFrontMatter {
  // A UTF-16 unit takes at most 3 bytes in UTF-8: a short text is under the limit uncounted.
  const bytes = yaml.length * 3 <= MAX_FRONT_MATTER_BYTES ? 0 : Buffer.byteLength(yaml, "utf8");
  if (bytes > MAX_FRONT_MATTER_BYTES) {
    return failed(
      "front_matter_too_large",
      `front matter is ${bytes} bytes; the limit is ${MAX_FRONT_MATTER_BYTES}`,
      path,
      "move long text into the body or a file under references/",
    );
  }
  // The one-pass scanner takes the common shape; the line-based fast path takes a little
  // more; everything else goes to the yaml library.
  const simple = scanFrontMatter(yaml) ?? parseSimpleFrontMatter(yaml);
  if (simple !== undefined) return { data: simple, diagnostics: [] };
  return parseWithYamlLibrary(yaml, path);
}

/** The full YAML path, used directly by tests that prove the fast path equal to it. */
export function parseWithYamlLibrary(yaml: string, path?: string): ParsedFrontMatter {
  let document: ReturnType<typeof parseDocument>;
  try {
    document = parseDocument(yaml, { schema: "core", uniqueKeys: true, prettyErrors: false });
  } catch (error) {
    return failed("invalid_front_matter", `front matter is not valid YAML: ${String(error)}`, path);
  }
  const duplicate = document.errors.find((error) => error.code === "DUPLICATE_KEY");
  if (duplicate) {
    return failed("duplicate_key", `front matter repeats a key: ${firstLine(duplicate.message)}`, path);
  }
  const firstError = document.errors[0];
  if (firstError) {
    return failed(
      "invalid_front_matter",
      `front matter is not valid YAML: ${firstLine(firstError.message)}`,
      path,
    );
  }
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: MAX_YAML_ALIAS_COUNT });
  } catch (error) {
    if (error instanceof ReferenceError) {
      return failed(
        "yaml_alias_limit",
        `front matter expands too many aliases (limit ${MAX_YAML_ALIAS_COUNT})`,
        path,
      );
    }
    return failed("invalid_front_matter", `front matter is not valid YAML: ${String(error)}`, path);
  }
  if (value === null || value === undefined) return { data: {}, diagnostics: [] };
  if (!isPlainObject(value)) {
    return failed("front_matter_not_mapping", "front matter must be a mapping of keys to values", path);
  }
  try {
    return { data: withoutForbiddenKeys(value), diagnostics: [] };
  } catch (error) {
    // Recursion over a mapping nested nearly as deep as the stack allows.
    return failed("invalid_front_matter", `front matter nests too deeply: ${String(error)}`, path);
  }
}

function withoutForbiddenKeys(value: Record<string, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (isForbiddenKey(key)) continue;
    copy[key] = isPlainObject(inner) ? withoutForbiddenKeys(inner) : inner;
  }
  return copy;
}

function failed(
  code:
    | "front_matter_too_large"
    | "invalid_front_matter"
    | "duplicate_key"
    | "yaml_alias_limit"
    | "front_matter_not_mapping",
  message: string,
  path: string | undefined,
  hint?: string,
): ParsedFrontMatter {
  return { data: undefined, diagnostics: [diagnostic(code, "error", message, { path, hint })] };
}

function firstLine(message: string): string {
  return message.split("\n")[0] ?? message;
}
