import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { FILE_MODE, FOLDER_MODE } from "../core/durable-fs.js";
import { ScriptCheckFailedError, type ScriptCheckProblem } from "./errors.js";
import type { FileSet } from "./file-sets.js";
import { checkSkillScripts, type ScriptCheckOptions, scriptLanguage } from "./import/script-check.js";
import type { ScriptProblem } from "./import/script-problems.js";
import { resolveInside } from "./paths.js";
import { createStaging, discardStaging } from "./staging.js";

/**
 * The script check before save (docs/store.md, "The script check"), as the store's writes use it:
 * every new version's scripts are syntax-checked before it is published. A script that does not
 * parse refuses the write with `script_check_failed` (nothing is published); a script that could
 * not be checked (no checker installed, a timeout) is a warning the write returns.
 */

/** Whether and how the store checks scripts. */
export interface ScriptGate {
  readonly enabled: boolean;
  readonly options: ScriptCheckOptions;
}

/**
 * Checks every script in `folder` (a staged version of skill `name`). Throws
 * {@link ScriptCheckFailedError} when one does not parse; returns the warnings otherwise.
 */
export async function gateFolderScripts(
  gate: ScriptGate,
  name: string,
  folder: string,
): Promise<ScriptProblem[]> {
  if (!gate.enabled) return [];
  const result = await checkSkillScripts(folder, gate.options);
  if (result.errors.length > 0) throw new ScriptCheckFailedError(name, result.errors.map(problemData));
  return result.warnings;
}

/**
 * Checks only the scripts among `files` (what an update writes), each alone in a scratch
 * staging folder of the store, so a long check never runs while the store is locked. A
 * script's syntax does not depend on the files beside it, so this equals checking them in
 * the whole new version.
 */
export async function gateWrittenScripts(
  gate: ScriptGate,
  storeFolder: string,
  name: string,
  files: FileSet,
): Promise<ScriptProblem[]> {
  if (!gate.enabled) return [];
  const scripts = [...files].filter(([path]) => scriptLanguage(path) !== undefined);
  if (scripts.length === 0) return [];
  const scratch = await createStaging(storeFolder);
  try {
    for (const [path, bytes] of scripts) {
      const target = resolveInside(scratch, path);
      await mkdir(dirname(target), { recursive: true, mode: FOLDER_MODE });
      await writeFile(target, bytes, { mode: FILE_MODE, flag: "wx" });
    }
    return await gateFolderScripts(gate, name, scratch);
  } finally {
    await discardStaging(scratch);
  }
}

function problemData(problem: ScriptProblem): ScriptCheckProblem {
  return {
    file: problem.file,
    message: problem.message,
    ...(problem.line !== undefined ? { line: problem.line } : {}),
    ...(problem.column !== undefined ? { column: problem.column } : {}),
  };
}
