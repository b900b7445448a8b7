import { join } from "node:path";
import { TEMP_PREFIX } from "../../core/durable-fs.js";

/**
 * Where the local queue keeps its files, all under `<data>/queue/` (docs/queue.md, "The
 * local backend's files"):
 *
 * - `requests/<skill>~<id>.json`: a waiting request, sealed by the controller. The skill is in
 *   the name so a worker can honour per-skill limits without opening another request.
 * - `workers/<folder>/`: one live worker: `lock` (its liveness, a file lock it refreshes),
 *   `info.json` (name, host, concurrency, running), `claimed/<skill>~<id>.json` (what it took,
 *   by rename out of `requests/`).
 * - `responses/<id>.json`: the one answer, written exclusively.
 * - `cancel/<id>`: the controller asks the worker to stop that run.
 * - `callers/<id>.json`: who waits for a request (the controller's process), so answers whose
 *   callers are gone still reach the audit.
 * - `finished/<status>~<id>.json`: answers their callers took, kept for the counts.
 * - `slots/<skill>/<n>`: per-skill concurrency slots, file locks held while a run goes.
 * - `seal.key`: the key requests are sealed with.
 */
export interface QueueLayout {
  readonly root: string;
  readonly requests: string;
  readonly workers: string;
  readonly responses: string;
  readonly cancel: string;
  readonly callers: string;
  readonly finished: string;
  readonly slots: string;
  readonly sealKey: string;
}

/** The layout under `<data>/queue`. */
export function queueLayout(dataFolder: string): QueueLayout {
  const root = join(dataFolder, "queue");
  return {
    root,
    requests: join(root, "requests"),
    workers: join(root, "workers"),
    responses: join(root, "responses"),
    cancel: join(root, "cancel"),
    callers: join(root, "callers"),
    finished: join(root, "finished"),
    slots: join(root, "slots"),
    sealKey: join(root, "seal.key"),
  };
}

/** A request id as the queue accepts it: safe as a file name, bounded. */
export const REQUEST_ID = /^[A-Za-z0-9_-]{1,100}$/;
/** A skill name as it may appear in a file name. */
export const SKILL_IN_NAME = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

/** `<skill>~<id>.json`. */
export function requestFileName(skill: string, requestId: string): string {
  return `${skill}~${requestId}.json`;
}

/** The skill and id a request file's name holds, or undefined for any other name (temporary files too). */
export function parseRequestFileName(name: string): { skill: string; requestId: string } | undefined {
  if (name.startsWith(TEMP_PREFIX) || !name.endsWith(".json")) return undefined;
  const stem = name.slice(0, -".json".length);
  const cut = stem.indexOf("~");
  if (cut <= 0) return undefined;
  const skill = stem.slice(0, cut);
  const requestId = stem.slice(cut + 1);
  return SKILL_IN_NAME.test(skill) && REQUEST_ID.test(requestId) ? { skill, requestId } : undefined;
}

/** `<id>.json` in `responses/`. */
export function responseFile(layout: QueueLayout, requestId: string): string {
  return join(layout.responses, `${requestId}.json`);
}
