import { Document, isMap, parseDocument } from "yaml";
import { diagnostic } from "../../core/diagnostics.js";
import { MAX_YAML_ALIAS_COUNT } from "../../core/limits.js";
import { SkillInvalidError } from "../errors.js";

/**
 * Changes a few keys of a SKILL.md's front matter and leaves everything else as it was: the
 * body byte for byte, and in the front matter the other keys, their order and comments (the
 * `yaml` library edits the document, it does not re-emit it from values). Used to apply an
 * edit's new description or governance keys and to stamp `skillgate.last-edit`.
 */

/** What to change: `undefined` leaves a key alone, `null` removes it. */
export interface FrontMatterChanges {
  readonly description?: string;
  /** Keys under `metadata`, each set to text or removed. */
  readonly metadata?: Readonly<Record<string, string | null>>;
}

/** Options of {@link buildSkillFile}. */
export interface SkillFileParts {
  readonly name: string;
  readonly description: string;
  /** Keys under `metadata`, in order; all text. */
  readonly metadata: Readonly<Record<string, string>>;
  readonly body: string;
}

/** Emits YAML with no folding, so a value is never split over lines it did not have. */
const EMIT = { lineWidth: 0, minContentWidth: 0 } as const;

/** A new SKILL.md from its parts: front matter (name, description, metadata) and body. */
export function buildSkillFile(parts: SkillFileParts): string {
  const metadata: Record<string, string> = {};
  for (const [key, value] of Object.entries(parts.metadata))
    Object.defineProperty(metadata, key, { value, enumerable: true });
  const front: Record<string, unknown> = { name: parts.name, description: parts.description };
  if (Object.keys(metadata).length > 0) front.metadata = metadata;
  const yaml = new Document(front, { schema: "core" }).toString(EMIT);
  const body = parts.body.replace(/\r\n?/g, "\n");
  return `---\n${yaml}---\n\n${body.replace(/^\n+/, "")}${body.endsWith("\n") || body === "" ? "" : "\n"}`;
}

/**
 * Applies `changes` to the front matter of `text` (a SKILL.md of skill `name`). A file
 * without front matter gets one holding `name` and the changes. Throws `skill_invalid`
 * when the existing front matter is not a YAML mapping that can be edited.
 */
export function editFrontMatter(text: string, name: string, changes: FrontMatterChanges): string {
  const found = locateFrontMatter(text);
  const document =
    found === undefined
      ? new Document({ name }, { schema: "core" })
      : parseDocument(found.yaml, { schema: "core", uniqueKeys: true });
  if (document.errors.length > 0 || (document.contents !== null && !isMap(document.contents)))
    throw new SkillInvalidError(name, [
      diagnostic(
        "invalid_front_matter",
        "error",
        "SKILL.md front matter cannot be edited: it is not a YAML mapping",
      ),
    ]);
  try {
    // Refuse alias bombs before touching anything: toJS expands aliases under the limit.
    document.toJS({ maxAliasCount: MAX_YAML_ALIAS_COUNT });
  } catch (error) {
    throw new SkillInvalidError(name, [
      diagnostic("invalid_front_matter", "error", `SKILL.md front matter cannot be edited: ${String(error)}`),
    ]);
  }
  if (document.contents === null) document.contents = document.createNode({});
  if (changes.description !== undefined) document.set("description", changes.description);
  const metadata = changes.metadata ?? {};
  if (Object.keys(metadata).length > 0 && !isMap(document.get("metadata", true)))
    document.set("metadata", document.createNode({}));
  for (const [key, value] of Object.entries(metadata)) {
    if (value === null) document.deleteIn(["metadata", key]);
    else document.setIn(["metadata", key], value);
  }
  const yaml = document.toString(EMIT);
  if (found === undefined) return `---\n${yaml}---\n\n${text}`;
  return `${found.open}${yaml}${found.close}${found.body}`;
}

/**
 * Finds the front matter the way `splitFrontMatter` does (a first line `---`, up to the next
 * line that is exactly `---`), but keeps the original bytes around it: the opening (with a
 * BOM), the closing line with its own line end, and the body untouched.
 */
function locateFrontMatter(
  text: string,
): { open: string; yaml: string; close: string; body: string } | undefined {
  const bom = text.charCodeAt(0) === 0xfeff ? "\ufeff" : "";
  const first = /^---(\r\n|\n)/.exec(text.slice(bom.length));
  if (first === null) return undefined;
  const open = `${bom}---${first[1]}`;
  let lineStart = open.length;
  while (lineStart <= text.length) {
    const lineEnd = text.indexOf("\n", lineStart);
    const end = lineEnd === -1 ? text.length : lineEnd;
    const line = text.slice(lineStart, end).replace(/\r$/, "");
    if (line === "---") {
      const closeEnd = lineEnd === -1 ? text.length : lineEnd + 1;
      return {
        open,
        yaml: text.slice(open.length, lineStart).replace(/\r\n/g, "\n"),
        close: text.slice(lineStart, closeEnd),
        body: text.slice(closeEnd),
      };
    }
    if (lineEnd === -1) break;
    lineStart = lineEnd + 1;
  }
  return undefined;
}
