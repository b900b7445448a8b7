import { createTwoFilesPatch, FILE_HEADERS_ONLY } from "diff";
import { SKILL_FILE } from "../../skill/read-skill-file.js";

/**
 * The unified diff an owner reviews for an edit plan (docs/drafts-and-edits.md, "The diff"): one
 * section per file the plan writes or removes, against the skill as it was when the plan was made.
 * A file's section is capped at {@link MAX_DIFF_FILE_BYTES} and the whole diff at
 * {@link MAX_DIFF_TOTAL_BYTES}; whatever is cut is said in a note, because the plan still writes
 * every byte of every file, shown or not.
 */

/** Largest diff section of one file, in UTF-8 bytes (32 KiB). */
export const MAX_DIFF_FILE_BYTES = 32 * 1024;
/** Largest whole diff, in UTF-8 bytes (192 KiB). */
export const MAX_DIFF_TOTAL_BYTES = 192 * 1024;
/**
 * Past this many line edits a file is shown as wholly replaced instead of compared line by
 * line: comparing two unrelated large files costs time that grows with the square of this.
 */
const MAX_EDIT_LENGTH = 1_000;

/** Room kept below the total cap for the note that names the files left out. */
const NOTE_RESERVE_BYTES = 4 * 1024;

/** A plan's diff. */
export interface PlanDiff {
  readonly text: string;
  /** True when a file's section or the whole diff was cut; the text says where. */
  readonly truncated: boolean;
}

/** Builds the diff of writing `write` and removing `remove` over the files of `base`. */
export function buildPlanDiff(
  base: ReadonlyMap<string, Uint8Array>,
  write: Readonly<Record<string, string>>,
  remove: readonly string[],
): PlanDiff {
  const paths = [...new Set([...Object.keys(write), ...remove])].sort((left, right) =>
    left === SKILL_FILE ? -1 : right === SKILL_FILE ? 1 : left < right ? -1 : left > right ? 1 : 0,
  );
  const sections: string[] = [];
  let total = 0;
  let truncated = false;
  for (const [index, path] of paths.entries()) {
    let section = fileSection(path, base.get(path), Object.hasOwn(write, path) ? write[path] : undefined);
    if (byteLength(section) > MAX_DIFF_FILE_BYTES) {
      section = cut(
        section,
        MAX_DIFF_FILE_BYTES,
        (shown, all) =>
          `... diff of ${path} truncated: ${shown} of ${all} bytes shown (each file's diff is capped at 32 KiB); the plan writes the whole file\n`,
      );
      truncated = true;
    }
    const size = byteLength(section);
    if (total + size > MAX_DIFF_TOTAL_BYTES - NOTE_RESERVE_BYTES) {
      sections.push(omittedNote(paths.slice(index)));
      truncated = true;
      break;
    }
    sections.push(section);
    total += size;
  }
  return { text: sections.join(""), truncated };
}

/** The note for files left out of the diff, naming as many as fit in {@link NOTE_RESERVE_BYTES}. */
function omittedNote(rest: readonly string[]): string {
  const start = `... the diff is capped at 192 KiB: ${rest.length} more file${rest.length === 1 ? "" : "s"} not shown, but the plan changes ${rest.length === 1 ? "it" : "them"}: `;
  let listed = 0;
  let names = "";
  for (const path of rest) {
    const next = names === "" ? path : `${names}, ${path}`;
    if (byteLength(start + next) > NOTE_RESERVE_BYTES - 64) break;
    names = next;
    listed += 1;
  }
  const more = listed < rest.length ? ` and ${rest.length - listed} more` : "";
  return `${start}${names}${more}\n`;
}

function fileSection(path: string, before: Uint8Array | undefined, after: string | undefined): string {
  const oldText = before === undefined ? undefined : asText(before);
  if (before !== undefined && oldText === undefined) {
    return after === undefined
      ? `--- a/${path}\n+++ /dev/null\n(binary file of ${before.length} bytes removed)\n`
      : `--- a/${path}\n+++ b/${path}\n(binary file of ${before.length} bytes replaced by text of ${byteLength(after)} bytes)\n${wholeFile("/dev/null", `b/${path}`, "", after)}`;
  }
  const oldName = before === undefined ? "/dev/null" : `a/${path}`;
  const newName = after === undefined ? "/dev/null" : `b/${path}`;
  const patch = createTwoFilesPatch(oldName, newName, oldText ?? "", after ?? "", undefined, undefined, {
    context: 3,
    headerOptions: FILE_HEADERS_ONLY,
    maxEditLength: MAX_EDIT_LENGTH,
  });
  return patch ?? wholeFile(oldName, newName, oldText ?? "", after ?? "");
}

/** A valid unified diff that removes every old line and adds every new one. */
function wholeFile(oldName: string, newName: string, oldText: string, newText: string): string {
  const oldLines = splitLines(oldText);
  const newLines = splitLines(newText);
  const range = (lines: readonly string[]) => (lines.length === 0 ? "0,0" : `1,${lines.length}`);
  return [
    `--- ${oldName}`,
    `+++ ${newName}`,
    `@@ -${range(oldLines)} +${range(newLines)} @@`,
    ...oldLines.map((line) => `-${line}`),
    ...newLines.map((line) => `+${line}`),
    "",
  ].join("\n");
}

function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** UTF-8 text, or `undefined` for bytes that are not (binary files are not diffed). */
function asText(bytes: Uint8Array): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

function byteLength(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** Cuts `text` to at most `limit` bytes at a line end, then appends the note. */
function cut(text: string, limit: number, note: (shown: number, all: number) => string): string {
  const all = byteLength(text);
  const room = limit - byteLength(note(all, all)) - 8;
  let head = Buffer.from(text, "utf8").subarray(0, Math.max(0, room)).toString("utf8");
  const lastLine = head.lastIndexOf("\n");
  head = lastLine === -1 ? "" : head.slice(0, lastLine + 1);
  return `${head}${note(byteLength(head), all)}`;
}
