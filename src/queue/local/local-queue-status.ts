import { lstatSync } from "node:fs";
import { join } from "node:path";
import { readSmallFile } from "../../core/durable-fs.js";
import { parseJsonSafely } from "../../core/safe-json.js";
import type { QueueOutcomeStatus, QueueStatus, QueueWorkerInfo } from "../contract.js";
import { MAX_RESPONSE_BYTES, parseQueueResponse } from "../request-shape.js";
import { parseRequestFileName, type QueueLayout, responseFile } from "./layout.js";
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
 * answers not yet taken by their callers (those few are read for their status). A taken answer
 * stays in `responses/` and is counted by its mark in `finished/` only.
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
  for (const requestId of untakenAnswers(layout)) {
    const status = answerStatus(responseFile(layout, requestId));
    if (status !== undefined) add(status);
  }
  workers.sort((left, right) => left.name.localeCompare(right.name));
  return { backend: "local", counts: { waiting, active, ...counts }, workers, capacity };
}

/**
 * The ids answered in `responses/` whose caller has not taken the answer yet (no mark in
 * `finished/`). Taken answers stay in `responses/` as the ids' tombstones.
 */
export function untakenAnswers(layout: QueueLayout): string[] {
  const taken = new Set(names(layout.finished).map(finishedRequestId));
  return names(layout.responses)
    .filter((name) => !name.startsWith(".") && name.endsWith(".json"))
    .map((name) => name.slice(0, -".json".length))
    .filter((requestId) => !taken.has(requestId));
}

/**
 * Keeps the newest `keep` taken answers (by request id, which starts with its time); older ones
 * go, their mark and their answer both, but never one answered less than `minimumAgeMs` ago:
 * until then its name in `responses/` is what makes a late second answer lose.
 */
export function pruneFinished(layout: QueueLayout, keep: number, minimumAgeMs: number): void {
  const entries = names(layout.finished).filter((name) => !name.startsWith("."));
  if (entries.length <= keep) return;
  const byId = entries
    .map((name) => ({ name, id: finishedRequestId(name) }))
    .sort((left, right) => left.id.localeCompare(right.id));
  const cutoff = Date.now() - minimumAgeMs;
  for (const entry of byId.slice(0, entries.length - keep)) {
    const answer = responseFile(layout, entry.id);
    const stats = lstatSync(answer, { throwIfNoEntry: false });
    if (stats !== undefined && stats.mtimeMs > cutoff) continue;
    removeQuietly(answer);
    removeQuietly(join(layout.finished, entry.name));
  }
}

/** `<status>~<id>.json` to `<id>`. */
function finishedRequestId(name: string): string {
  return name.slice(name.indexOf("~") + 1, name.endsWith(".json") ? -".json".length : undefined);
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
