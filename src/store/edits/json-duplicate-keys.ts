/**
 * Finds a repeated key in JSON text. `JSON.parse` keeps the last of two equal keys without a
 * word, so `{"skillName": "a", "skillName": "b"}` would reach a reader as "b" while a person
 * reading the text may see "a". Arguments that are read once and exactly must refuse it.
 */

/** A key that appears twice in one object, with where that object is. */
export interface DuplicateKey {
  /** The key, decoded (`"\u0061"` and `"a"` are the same key). */
  readonly key: string;
  /** The keys leading to the object that repeats it (`[]` for the top level, `["files"]` inside files). */
  readonly path: readonly string[];
}

interface Frame {
  readonly kind: "object" | "array";
  readonly keys: Set<string>;
  /** For objects: the key whose value is being read. */
  current: string | undefined;
}

/**
 * The first repeated key in `text`, at any depth, or `undefined`. `text` must be valid JSON
 * (parse it first); the scan is iterative, so any nesting depth is safe.
 */
export function findDuplicateKey(text: string): DuplicateKey | undefined {
  const frames: Frame[] = [];
  // The last structural token: a string in an object is a key right after `{` or `,`.
  let last = "";
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index] as string;
    if (char === '"') {
      const end = stringEnd(text, index);
      const top = frames[frames.length - 1];
      if (top?.kind === "object" && (last === "{" || last === ",")) {
        const key = JSON.parse(text.slice(index, end + 1)) as string;
        if (top.keys.has(key)) return { key, path: pathOf(frames) };
        top.keys.add(key);
        top.current = key;
        last = "key";
      } else {
        last = "value";
      }
      index = end;
    } else if (char === "{" || char === "[") {
      frames.push({ kind: char === "{" ? "object" : "array", keys: new Set(), current: undefined });
      last = char;
    } else if (char === "}" || char === "]") {
      frames.pop();
      last = "value";
    } else if (char === "," || char === ":") {
      last = char;
    } else if (!/\s/.test(char)) {
      last = "value";
    }
  }
  return undefined;
}

/** The index of the quote that closes the string starting at `start`. */
function stringEnd(text: string, start: number): number {
  for (let index = start + 1; index < text.length; index += 1) {
    const char = text[index];
    if (char === "\\") index += 1;
    else if (char === '"') return index;
  }
  return text.length - 1;
}

function pathOf(frames: readonly Frame[]): string[] {
  const path: string[] = [];
  for (const frame of frames.slice(0, -1)) path.push(frame.kind === "object" ? (frame.current ?? "") : "[]");
  return path;
}
