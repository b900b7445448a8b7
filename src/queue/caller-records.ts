import { mkdirSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { FOLDER_MODE, readSmallFile, writeFileAtomicallySync } from "../core/durable-fs.js";
import { processHasEnded } from "../core/process-groups.js";
import { parseJsonSafely } from "../core/safe-json.js";
import { names, removeQuietly } from "./local/worker-folders.js";

/**
 * Who waits for each queued request: `<data>/queue/callers/<id>.json`, written by the
 * controller when it submits and removed when its caller took the answer. Whatever the
 * backend, a controller that restarts finds the records of callers that are gone (their
 * process ended) and still collects those answers for the audit (`caller: gone`).
 */
export interface CallerRecord {
  readonly queueId: string;
  readonly pid: number;
  readonly host: string;
  readonly skill: string;
  readonly hash8: string;
  /** The tool call the run served. */
  readonly requestId: string;
  readonly scope: { readonly kind: "chat" | "job"; readonly id: string };
  readonly submittedAt: string;
}

/** The callers folder of a data folder. */
export function callersFolder(dataFolder: string): string {
  return join(dataFolder, "queue", "callers");
}

/** Records a caller (best effort: a record that cannot be written only loses the gone-caller audit). */
export function writeCallerRecord(dataFolder: string, record: CallerRecord): void {
  try {
    const folder = callersFolder(dataFolder);
    mkdirSync(folder, { recursive: true, mode: FOLDER_MODE });
    writeFileAtomicallySync(join(folder, `${record.queueId}.json`), JSON.stringify(record));
  } catch {
    // The run goes on; only a restart's audit of it would be missing.
  }
}

/** Removes a caller's record once its answer was taken. */
export function removeCallerRecord(dataFolder: string, queueId: string): void {
  removeQuietly(join(callersFolder(dataFolder), `${queueId}.json`));
}

/** The records whose caller process has ended (on this host), so nobody takes their answers. */
export function goneCallers(dataFolder: string): CallerRecord[] {
  const folder = callersFolder(dataFolder);
  const gone: CallerRecord[] = [];
  for (const name of names(folder)) {
    if (name.startsWith(".") || !name.endsWith(".json")) continue;
    const record = readRecord(join(folder, name));
    if (record === undefined) continue;
    if (record.host === hostname() && processHasEnded(record.pid)) gone.push(record);
  }
  return gone;
}

function readRecord(file: string): CallerRecord | undefined {
  const text = readSmallFile(file, 8192);
  if (text === undefined) return undefined;
  try {
    const value = parseJsonSafely(text) as Partial<CallerRecord> | null;
    if (
      value === null ||
      typeof value !== "object" ||
      typeof value.queueId !== "string" ||
      typeof value.pid !== "number" ||
      typeof value.host !== "string" ||
      typeof value.skill !== "string" ||
      typeof value.requestId !== "string" ||
      typeof value.scope !== "object" ||
      value.scope === null
    )
      return undefined;
    return {
      queueId: value.queueId,
      pid: value.pid,
      host: value.host,
      skill: value.skill,
      hash8: typeof value.hash8 === "string" ? value.hash8 : "",
      requestId: value.requestId,
      scope: {
        kind: value.scope.kind === "job" ? "job" : "chat",
        id: typeof value.scope.id === "string" ? value.scope.id : "",
      },
      submittedAt: typeof value.submittedAt === "string" ? value.submittedAt : "",
    };
  } catch {
    return undefined;
  }
}
