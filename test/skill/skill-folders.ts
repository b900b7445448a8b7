import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";

/**
 * Temporary skill folders for tests: each lives in its own mkdtemp root and is removed
 * after the test that made it.
 */

const roots: string[] = [];

afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** A new empty temporary root folder, removed after the current test. */
export function temporaryRoot(): string {
  const root = mkdtempSync(join(tmpdir(), "skillgate-test-"));
  roots.push(root);
  return root;
}

/** An empty skill folder named `name` in a fresh temporary root. */
export function emptySkillFolder(name: string): string {
  const directory = join(temporaryRoot(), name);
  mkdirSync(directory);
  return directory;
}

/** A skill folder named `name` holding `SKILL.md` with `content` (text is written as UTF-8). */
export function skillFolder(name: string, content: string | Uint8Array): string {
  const directory = emptySkillFolder(name);
  writeFileSync(join(directory, "SKILL.md"), content);
  return directory;
}

/** SKILL.md text from front matter lines and a body. */
export function skillText(frontMatter: string, body = "Do the thing.\n"): string {
  return `---\n${frontMatter}${frontMatter.endsWith("\n") ? "" : "\n"}---\n\n${body}`;
}

/** Every path below `directory`, relative and sorted: a listing to compare before and after. */
export function listing(directory: string): string[] {
  return (readdirSync(directory, { recursive: true }) as string[]).map(String).sort();
}
