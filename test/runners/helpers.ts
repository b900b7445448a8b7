import { mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach } from "vitest";
import { removeTree } from "../../src/core/remove-tree.js";
import { DEFAULT_RUN_LIMITS, type RunLimits, type RunRequest } from "../../src/runners/contract.js";
import { hashSkillFolder } from "../../src/skill/content-hash.js";
import type { ExecutionMode } from "../../src/skill/governance.js";
import { scriptLanguage } from "../../src/skill/scripts.js";

/**
 * Real folders for runner tests: a data folder and skill folders under a fresh temporary
 * folder, removed after each test (read-only snapshot folders included).
 */

const made: string[] = [];

afterEach(() => {
  for (const folder of made.splice(0)) removeTree(folder);
});

/** A fresh folder with `data/` and `skills/` paths (not created). */
export function runnerTree(): { root: string; data: string; skills: string } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "skillgate-runners-")));
  made.push(root);
  return { root, data: join(root, "data"), skills: join(root, "skills") };
}

/** Writes a skill folder with a SKILL.md and `files`, returning its path. */
export function writeSkillFolder(skills: string, name: string, files: Record<string, string>): string {
  const folder = join(skills, name);
  const all = { "SKILL.md": `---\nname: ${name}\ndescription: Test skill ${name}.\n---\nBody.\n`, ...files };
  for (const [path, text] of Object.entries(all)) {
    mkdirSync(dirname(join(folder, path)), { recursive: true });
    writeFileSync(join(folder, path), text);
  }
  return folder;
}

/** The folder's content hash; fails the test when it has none. */
export function hashOf(folder: string): string {
  const hash = hashSkillFolder(folder).hash;
  if (hash === undefined) throw new Error(`${folder} has no hash`);
  return hash;
}

/** A run request for `script` of the skill at `folder`, approved at its current hash. */
export function requestFor(
  folder: string,
  script: string,
  options: {
    skill?: string;
    execution?: ExecutionMode;
    arguments?: RunRequest["arguments"];
    limits?: Partial<RunLimits>;
    hash?: string;
    signal?: AbortSignal;
    onOutput?: RunRequest["onOutput"];
  } = {},
): RunRequest {
  const language = scriptLanguage(script);
  if (language === undefined) throw new Error(`${script} is not a script`);
  return {
    skill: options.skill ?? folder.split("/").pop() ?? "skill",
    hash: options.hash ?? hashOf(folder),
    folder,
    execution: options.execution ?? "local",
    script,
    language,
    arguments: options.arguments ?? {},
    limits: { ...DEFAULT_RUN_LIMITS, ...options.limits },
    ...(options.signal !== undefined ? { signal: options.signal } : {}),
    ...(options.onOutput !== undefined ? { onOutput: options.onOutput } : {}),
  };
}

/**
 * True while a process with this pid exists and is not a zombie (a killed process whose
 * parent has not reaped it yet runs nothing).
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}
