import { watch } from "node:fs";
import { mkdir, readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomically } from "../../core/durable-fs.js";
import { SkillgateError } from "../../core/errors.js";
import { parseJsonSafely } from "../../core/safe-json.js";
import type { GenerationRecord } from "./generation.js";

/**
 * The generations of every reloading Lua skill, as files other processes can read and answer:
 * `<folder>/<skill>.json` holds a skill's records (written by the process that runs the
 * reloader), `<folder>/answers/<generation id>.json` an owner's approve or reject (written by
 * `skillgate generations`, `/api/generations` or the UI, all through
 * {@link manageGenerations}). The reloader watches the answers folder and acts on each answer
 * once, removing it.
 */

/** The folder under the data folder. */
export function generationsFolder(dataFolder: string): string {
  return join(dataFolder, "capabilities", "generations");
}

/** An owner's answer to a switch waiting for approval. */
export interface GenerationAnswer {
  readonly id: string;
  readonly answer: "approve" | "reject";
  readonly at: string;
}

/** What {@link manageGenerations} is asked. */
export type GenerationsRequest =
  | { readonly action: "list" }
  | { readonly action: "approve" | "reject"; readonly id: string };

/** What it answers: every record (list), or the one answered. */
export type GenerationsResponse =
  | { readonly action: "list"; readonly generations: readonly GenerationRecord[] }
  | { readonly action: "approve" | "reject"; readonly generation: GenerationRecord };

function fileNameOf(id: string): string {
  return encodeURIComponent(id);
}

/** Writes a skill's records (the reloader's side). */
export async function publishGenerations(
  folder: string,
  skill: string,
  records: readonly GenerationRecord[],
): Promise<void> {
  await mkdir(folder, { recursive: true, mode: 0o700 });
  await writeFileAtomically(
    join(folder, `${fileNameOf(skill)}.json`),
    `${JSON.stringify(records, null, 2)}\n`,
  );
}

/** Every skill's records, newest generation first within a skill. */
export async function readGenerations(folder: string): Promise<GenerationRecord[]> {
  let names: string[];
  try {
    names = await readdir(folder);
  } catch {
    return [];
  }
  const records: GenerationRecord[] = [];
  for (const name of names.filter((entry) => entry.endsWith(".json")).sort()) {
    try {
      const parsed = parseJsonSafely(await readFile(join(folder, name), "utf8"));
      if (Array.isArray(parsed)) records.push(...(parsed as unknown as GenerationRecord[]));
    } catch {
      // A file being replaced is read next time; the rename makes that rare.
    }
  }
  return records.sort((a, b) => a.skill.localeCompare(b.skill) || b.number - a.number);
}

/**
 * The one core function behind the CLI, the HTTP API and the UI: list the generations, or
 * record the owner's answer to one waiting for approval. Throws `generation_not_found` and
 * `generation_not_waiting`.
 */
export async function manageGenerations(
  folder: string,
  request: GenerationsRequest,
  live?: readonly GenerationRecord[],
): Promise<GenerationsResponse> {
  const generations = withLiveRecords(await readGenerations(folder), live);
  if (request.action === "list") return { action: "list", generations };
  const generation = generations.find((record) => record.id === request.id);
  if (generation === undefined)
    throw new SkillgateError("generation_not_found", `no generation ${request.id}`, { id: request.id });
  if (generation.state !== "waiting_approval")
    throw new SkillgateError("generation_not_waiting", `generation ${request.id} is ${generation.state}`, {
      id: request.id,
      state: generation.state,
    });
  const answers = join(folder, "answers");
  await mkdir(answers, { recursive: true, mode: 0o700 });
  const answer: GenerationAnswer = { id: request.id, answer: request.action, at: new Date().toISOString() };
  await writeFileAtomically(join(answers, `${fileNameOf(request.id)}.json`), JSON.stringify(answer));
  return { action: request.action, generation };
}

/**
 * The board's records with those of the skills in `live` (the reloaders of the asking process,
 * which know their state before the board's file is rewritten) in their place.
 */
function withLiveRecords(
  board: readonly GenerationRecord[],
  live: readonly GenerationRecord[] | undefined,
): GenerationRecord[] {
  if (live === undefined || live.length === 0) return [...board];
  const skills = new Set(live.map((record) => record.skill));
  return [...board.filter((record) => !skills.has(record.skill)), ...live].sort(
    (a, b) => a.skill.localeCompare(b.skill) || b.number - a.number,
  );
}

/**
 * Calls `onAnswer` for each answer file `accepts` takes, now and as they arrive (fs.watch);
 * each is removed once handed over. Answers it does not take are left for another watcher
 * (several reloaders of one process share the folder, each taking its own skill's). Returns
 * what stops watching.
 */
export async function watchGenerationAnswers(
  folder: string,
  onAnswer: (answer: GenerationAnswer) => void,
  accepts: (answer: GenerationAnswer) => boolean = () => true,
): Promise<() => void> {
  const answers = join(folder, "answers");
  await mkdir(answers, { recursive: true, mode: 0o700 });
  let scanning = Promise.resolve();
  const scan = (): void => {
    scanning = scanning.then(async () => {
      for (const name of (await readdir(answers).catch(() => [])).filter((entry) =>
        entry.endsWith(".json"),
      )) {
        const path = join(answers, name);
        try {
          const parsed = parseJsonSafely(await readFile(path, "utf8")) as unknown as GenerationAnswer;
          const wellFormed =
            typeof parsed.id === "string" && (parsed.answer === "approve" || parsed.answer === "reject");
          if (wellFormed && !accepts(parsed)) continue;
          await rm(path, { force: true });
          if (wellFormed) onAnswer(parsed);
        } catch {
          // Half-written answers do not exist (atomic writes); anything else unreadable is skipped.
        }
      }
    });
  };
  const watcher = watch(answers, () => scan());
  scan();
  return () => watcher.close();
}
