import { constants, copyFileSync, type FSWatcher, linkSync, mkdirSync, unlinkSync, watch } from "node:fs";
import { join } from "node:path";
import { FOLDER_MODE, readSmallFile, writeFileAtomicallySync } from "../../core/durable-fs.js";
import { isSkillgateError } from "../../core/errors.js";
import { parseJsonSafely } from "../../core/safe-json.js";
import type { QueueClient, QueueRequest, QueueResponse, QueueStatus, QueueWaitOptions } from "../contract.js";
import { QueueFullError, QueueRequestTooLargeError, QueueUnavailableError } from "../queue-errors.js";
import {
  answerWithoutRun,
  MAX_REQUEST_BYTES,
  MAX_RESPONSE_BYTES,
  parseQueueResponse,
} from "../request-shape.js";
import {
  type QueueLayout,
  queueLayout,
  REQUEST_ID,
  requestFileName,
  responseFile,
  SKILL_IN_NAME,
} from "./layout.js";
import { localQueueStatus, pruneFinished } from "./local-queue-status.js";
import { RequestSeal } from "./request-seal.js";
import {
  HEARTBEATS_BEFORE_DEAD,
  names,
  readWorkerInfo,
  removeQuietly,
  sweepDeadWorkers,
  workerFolders,
  workerIsAlive,
} from "./worker-folders.js";

/** Options of {@link LocalQueueClient}. */
export interface LocalQueueClientOptions {
  readonly dataFolder: string;
  /** Requests that may wait at once (read at each submit). */
  readonly capacity: number | (() => number);
  /** The workers' heartbeat: a worker silent for 3 of these is judged dead and swept. */
  readonly heartbeatMs: number;
  /** How often a waiting caller looks again when no change notification came (default 250 ms). */
  readonly pollMs?: number;
}

/** Taken answers kept for the counts (and as the ids' tombstones); older ones are removed. */
const FINISHED_KEPT = 10_000;
/**
 * However many came after, a taken answer stays this long: its name in `responses/` is what
 * keeps a worker judged dead from landing a second answer when its run ends (runs are bounded
 * by their timeout, far below this).
 */
const ANSWER_KEPT_MS = 24 * 3600_000;

/**
 * The controller's side of the local file queue (docs/queue.md, "The local backend"): a submit
 * writes `requests/<skill>~<id>.json` sealed ({@link RequestSeal}), atomically, refused past the
 * capacity; a wait watches `responses/` (with a poll as a safety net), sweeps dead workers'
 * claims while it waits, and takes the answer (it stays, marked in `finished/`); a cancel withdraws a request
 * still waiting, or asks its worker through `cancel/<id>`.
 */
export class LocalQueueClient implements QueueClient {
  readonly layout: QueueLayout;
  readonly #options: LocalQueueClientOptions;
  readonly #files = new Map<string, string>();
  #seal: RequestSeal | undefined;
  #taken = 0;

  constructor(options: LocalQueueClientOptions) {
    this.#options = options;
    this.layout = queueLayout(options.dataFolder);
  }

  async submit(request: QueueRequest): Promise<void> {
    if (!REQUEST_ID.test(request.requestId) || !SKILL_IN_NAME.test(request.skill))
      throw new QueueUnavailableError(
        "local",
        `request ${JSON.stringify(request.requestId)} cannot be queued`,
      );
    const seal = this.#ready();
    const capacity =
      typeof this.#options.capacity === "function" ? this.#options.capacity() : this.#options.capacity;
    const waiting = names(this.layout.requests).filter((name) => !name.startsWith(".")).length;
    if (waiting >= capacity) throw new QueueFullError(waiting, capacity);
    const name = requestFileName(request.skill, request.requestId);
    const body = `${JSON.stringify({ request, seal: seal.seal(request) })}\n`;
    if (Buffer.byteLength(body, "utf8") > MAX_REQUEST_BYTES)
      throw new QueueRequestTooLargeError(MAX_REQUEST_BYTES);
    try {
      if (!writeFileAtomicallySync(join(this.layout.requests, name), body, { exclusive: true }))
        throw new QueueUnavailableError("local", `request ${request.requestId} was already queued`);
    } catch (error) {
      if (isSkillgateError(error)) throw error;
      throw unavailable(error);
    }
    this.#files.set(request.requestId, name);
  }

  async waitFor(
    requestId: string,
    signal?: AbortSignal,
    options: QueueWaitOptions = {},
  ): Promise<QueueResponse> {
    this.#ready();
    const pollMs = this.#options.pollMs ?? 250;
    const staleMs = this.#options.heartbeatMs * HEARTBEATS_BEFORE_DEAD;
    let watcher: FSWatcher | undefined;
    let wake: (() => void) | undefined;
    try {
      watcher = watch(this.layout.responses, () => wake?.());
      watcher.on("error", () => undefined);
    } catch {
      // No notifications here: the poll alone finds the answer.
    }
    const onAbort = (): void => wake?.();
    signal?.addEventListener("abort", onAbort);
    const stopWaiting = options.stopWaiting;
    stopWaiting?.addEventListener("abort", onAbort);
    let cancelled = false;
    let lastSweep = 0;
    try {
      for (;;) {
        const answer = this.#take(requestId);
        if (answer !== undefined) return answer;
        if (stopWaiting?.aborted === true) throw new DOMException("the wait was stopped", "AbortError");
        if (signal?.aborted === true && !cancelled) {
          cancelled = true;
          const withdrawn = this.#cancel(requestId);
          if (withdrawn !== undefined) return withdrawn;
          continue;
        }
        if (Date.now() - lastSweep >= this.#options.heartbeatMs) {
          lastSweep = Date.now();
          sweepDeadWorkers(this.layout, staleMs);
          continue;
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, pollMs);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = undefined;
      }
    } finally {
      signal?.removeEventListener("abort", onAbort);
      stopWaiting?.removeEventListener("abort", onAbort);
      watcher?.close();
      if (stopWaiting?.aborted !== true) {
        removeQuietly(join(this.layout.cancel, requestId));
        this.#files.delete(requestId);
      }
    }
  }

  async status(): Promise<QueueStatus> {
    const capacity =
      typeof this.#options.capacity === "function" ? this.#options.capacity() : this.#options.capacity;
    return localQueueStatus(this.layout, capacity, this.#options.heartbeatMs * HEARTBEATS_BEFORE_DEAD);
  }

  async hasLiveWorker(): Promise<boolean> {
    const staleMs = this.#options.heartbeatMs * HEARTBEATS_BEFORE_DEAD;
    return workerFolders(this.layout).some(
      (worker) => workerIsAlive(worker, staleMs) && readWorkerInfo(worker)?.stopping !== true,
    );
  }

  /** Answers every claim of a dead worker `interrupted`; returns their ids. */
  sweep(): string[] {
    return sweepDeadWorkers(this.layout, this.#options.heartbeatMs * HEARTBEATS_BEFORE_DEAD);
  }

  async close(): Promise<void> {
    // Nothing held open between calls.
  }

  /** Makes the folders and opens the seal, or throws `queue_unavailable`. */
  #ready(): RequestSeal {
    if (this.#seal !== undefined) return this.#seal;
    try {
      for (const folder of [
        this.layout.requests,
        this.layout.workers,
        this.layout.responses,
        this.layout.cancel,
        this.layout.finished,
      ])
        mkdirSync(folder, { recursive: true, mode: FOLDER_MODE });
      this.#seal = RequestSeal.open(this.layout.sealKey);
    } catch (error) {
      throw unavailable(error);
    }
    return this.#seal;
  }

  /**
   * The answer, if there is one. It stays in `responses/` (its name there is what makes every
   * later answer for the id lose, a swept worker's or a sweep's); the caller's taking it is
   * marked by `finished/<status>~<id>.json`, a hard link to it, for the counts.
   */
  #take(requestId: string): QueueResponse | undefined {
    const file = responseFile(this.layout, requestId);
    const text = readSmallFile(file, MAX_RESPONSE_BYTES);
    if (text === undefined) return undefined;
    let parsed: QueueResponse | undefined;
    try {
      parsed = parseQueueResponse(parseJsonSafely(text));
    } catch {
      parsed = undefined;
    }
    const answer =
      parsed ??
      answerWithoutRun(
        requestId,
        "interrupted",
        "answer_unreadable",
        "the worker's answer could not be read, so the script may or may not have run; it will not be run again.",
      );
    if (markTaken(this.layout, file, answer.status, requestId)) {
      this.#taken += 1;
      if (this.#taken % 500 === 0) pruneFinished(this.layout, FINISHED_KEPT, ANSWER_KEPT_MS);
    }
    return answer;
  }

  /**
   * Withdraws a request nobody claimed yet (its file removed: no worker can take it now) and
   * answers it `cancelled`; for a claimed one, asks its worker (`cancel/<id>`) and returns
   * undefined: the worker's answer follows.
   */
  #cancel(requestId: string): QueueResponse | undefined {
    const name =
      this.#files.get(requestId) ??
      names(this.layout.requests).find((entry) => entry.endsWith(`~${requestId}.json`));
    if (name !== undefined) {
      try {
        unlinkSync(join(this.layout.requests, name));
        const answer = answerWithoutRun(
          requestId,
          "cancelled",
          "cancelled",
          "the call was cancelled before a worker took it; the script did not run.",
        );
        writeFileAtomicallySync(responseFile(this.layout, requestId), JSON.stringify(answer), {
          exclusive: true,
        });
        return this.#take(requestId) ?? answer;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      }
    }
    writeFileAtomicallySync(join(this.layout.cancel, requestId), "cancel\n");
    return undefined;
  }
}

/**
 * Marks the answer in `file` taken: `finished/<status>~<id>.json`, a hard link (a copy where
 * links are not supported). False when it was marked before. A mark lost in a crash only
 * counts the answer as not yet taken.
 */
function markTaken(layout: QueueLayout, file: string, status: string, requestId: string): boolean {
  const mark = join(layout.finished, `${status}~${requestId}.json`);
  try {
    linkSync(file, mark);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return false;
    if (code === "ENOENT") return false;
    try {
      copyFileSync(file, mark, constants.COPYFILE_EXCL);
      return true;
    } catch {
      return false;
    }
  }
}

function unavailable(error: unknown): QueueUnavailableError {
  const code =
    (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
  return new QueueUnavailableError("local", `the data folder's queue cannot be written: ${code}`, {
    cause: error,
  });
}
