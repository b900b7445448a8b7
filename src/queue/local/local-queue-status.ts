import { join } from "node:path";
import { readSmallFile } from "../../core/durable-fs.js";
import { parseJsonSafely } from "../../core/safe-json.js";
import type { QueueOutcomeStatus, QueueStatus, QueueWorkerInfo } from "../contract.js";
import { MAX_RESPONSE_BYTES, parseQueueResponse } from "../request-shape.js";
import { parseRequestFileName, type QueueLayout } from "./layout.js";
import {
  claimedNames,
  names,
  readWorkerInfo,
  removeQuietly,
  workerFolders,
  workerIsAlive,
} from "./worker-folders.js";

/**
 * The local queue's counts and workers, from names alone where it can: waiting is the request
 * files, active the claims, and the ended ones the `finished/<status>~<id>.json` names plus
 * answers not yet taken by their callers (those few are read for their status).
 */
export function localQueueStatus(layout: QueueLayout, capacity: number, staleMs: number): QueueStatus {
  const waiting = names(layout.requests).filter((name) => parseRequestFileName(name) !== undefined).length;
  let active = 0;
  const workers: QueueWorkerInfo[] = [];
  for (const worker of workerFolders(layout)) {
    const claimed = claimedNames(worker).length;
    active += claimed;
    if (!workerIsAlive(worker, staleMs)) continue;
    const info = readWorkerInfo(worker);
    if (info !== undefined) workers.push(info);
  }
  const counts = { done: 0, interrupted: 0, failed: 0 };
  const add = (status: string): void => {
    if (status === "ok") counts.done += 1;
    else if (status === "interrupted") counts.interrupted += 1;
    else counts.failed += 1;
  };
  for (const name of names(layout.finished)) {
    const cut = name.indexOf("~");
    if (cut > 0 && !name.startsWith(".")) add(name.slice(0, cut));
  }
  for (const name of names(layout.responses)) {
    if (name.startsWith(".") || !name.endsWith(".json")) continue;
    const status = answerStatus(join(layout.responses, name));
    if (status !== undefined) add(status);
  }
  workers.sort((left, right) => left.name.localeCompare(right.name));
  return { backend: "local", counts: { waiting, active, ...counts }, workers, capacity };
}

/** Keeps the newest `keep` answers in `finished/` (by request id, which starts with its time). */
export function pruneFinished(layout: QueueLayout, keep: number): void {
  const entries = names(layout.finished).filter((name) => !name.startsWith("."));
  if (entries.length <= keep) return;
  const byId = entries
    .map((name) => ({ name, id: name.slice(name.indexOf("~") + 1) }))
    .sort((left, right) => left.id.localeCompare(right.id));
  for (const entry of byId.slice(0, entries.length - keep)) removeQuietly(join(layout.finished, entry.name));
}

function answerStatus(file: string): QueueOutcomeStatus | undefined {
  const text = readSmallFile(file, MAX_RESPONSE_BYTES);
  if (text === undefined) return undefined;
  try {
    return parseQueueResponse(parseJsonSafely(text))?.status;
  } catch {
    return undefined;
  }
}
