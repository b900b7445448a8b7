import { randomBytes } from "node:crypto";
import { existsSync, type FSWatcher, mkdirSync, renameSync, rmdirSync, watch } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { FOLDER_MODE, readSmallFile, writeFileAtomicallySync } from "../../core/durable-fs.js";
import { type HeldLock, tryLock } from "../../core/file-lock.js";
import { parseJsonSafely } from "../../core/safe-json.js";
import type { ClaimedRequest, QueueRequest, QueueResponse, QueueWorkerSource } from "../contract.js";
import { answerWithoutRun, MAX_REQUEST_BYTES, parseQueueRequest } from "../request-shape.js";
import { parseRequestFileName, type QueueLayout, queueLayout, responseFile } from "./layout.js";
import { RequestSeal } from "./request-seal.js";
import { SkillSlots } from "./skill-slots.js";
import {
  HEARTBEATS_BEFORE_DEAD,
  names,
  removeQuietly,
  sweepDeadWorkers,
  type WorkerFolder,
  workerFolder,
  writeWorkerInfo,
} from "./worker-folders.js";

/** Options of {@link LocalWorkerSource}. */
export interface LocalWorkerSourceOptions {
  readonly dataFolder: string;
  /** The worker's name, shown in answers, the status and the audit. */
  readonly name: string;
  /** Default this machine's host name. */
  readonly host?: string;
  /** How often the worker refreshes its liveness and sweeps dead workers. */
  readonly heartbeatMs: number;
  /** Per-skill limits on runs at once across the pool (read before each claim). */
  readonly skillLimits?: () => { readonly [skill: string]: { readonly concurrency: number } };
  /** How often the worker looks for requests when no notification came (default 200 ms). */
  readonly pollMs?: number;
}

/** One run in progress. */
interface Running {
  readonly requestId: string;
  readonly controller: AbortController;
}

/**
 * A worker's side of the local file queue (docs/queue.md): a folder of its own with a
 * liveness lock and `info.json`; requests claimed by renaming `requests/<skill>~<id>.json`
 * into its `claimed/` (of several workers, exactly one rename succeeds), each read only once
 * it is this worker's, checked against the controller's seal; answers written exclusively; a
 * `cancel/<id>` aborts that run. A claim is removed once answered; if the worker dies first,
 * a sweep answers it `interrupted` and it is never handed out again.
 */
export class LocalWorkerSource implements QueueWorkerSource {
  readonly layout: QueueLayout;
  readonly #options: LocalWorkerSourceOptions;
  readonly #host: string;
  readonly #running = new Map<string, Running>();
  readonly #slots: SkillSlots;
  #worker: WorkerFolder | undefined;
  #lock: HeldLock | undefined;
  #seal: RequestSeal | undefined;
  #handle: ((claimed: ClaimedRequest) => Promise<void>) | undefined;
  #concurrency = 1;
  #stopping = false;
  #claiming = false;
  #again = false;
  #timers: NodeJS.Timeout[] = [];
  #watchers: FSWatcher[] = [];
  #idle: Array<() => void> = [];

  constructor(options: LocalWorkerSourceOptions) {
    this.#options = options;
    this.#host = options.host ?? hostname();
    this.layout = queueLayout(options.dataFolder);
    this.#slots = new SkillSlots(this.layout, options.heartbeatMs * HEARTBEATS_BEFORE_DEAD);
  }

  /** The worker's folder under `queue/workers/` once started. */
  get folder(): string | undefined {
    return this.#worker?.folder;
  }

  /** Registers the worker (folder, lock, info), sweeps dead workers, and starts claiming. */
  async start(handle: (claimed: ClaimedRequest) => Promise<void>, concurrency: number): Promise<void> {
    if (this.#handle !== undefined) throw new Error("this worker source was started already");
    this.#handle = handle;
    this.#concurrency = Math.max(1, concurrency);
    for (const folder of [
      this.layout.requests,
      this.layout.workers,
      this.layout.responses,
      this.layout.cancel,
    ])
      mkdirSync(folder, { recursive: true, mode: FOLDER_MODE });
    this.#seal = RequestSeal.open(this.layout.sealKey);
    this.#register();
    sweepDeadWorkers(this.layout, this.#staleMs, this.#worker?.folder);
    this.#watch(this.layout.requests, () => this.#claim());
    this.#watch(this.layout.cancel, () => this.#checkCancels());
    this.#timers.push(
      setInterval(() => {
        this.#claim();
        this.#checkCancels();
      }, this.#options.pollMs ?? 200),
      setInterval(() => this.#heartbeat(), this.#options.heartbeatMs),
    );
    for (const timer of this.#timers) timer.unref();
    this.#claim();
  }

  /** Takes no new requests, waits for the running ones' answers, then leaves the queue. */
  async stop(): Promise<void> {
    if (this.#stopping) return this.#whenIdle();
    this.#stopping = true;
    if (this.#worker === undefined) return;
    this.#writeInfo();
    await this.#whenIdle();
    for (const timer of this.#timers) clearInterval(timer);
    for (const watcher of this.#watchers) watcher.close();
    const worker = this.#worker;
    removeQuietly(worker.info);
    try {
      rmdirSync(worker.claimed);
    } catch {
      // A claim left behind (its answer could not be written): the lock goes, and a sweep answers it.
    }
    this.#lock?.release();
    try {
      rmdirSync(worker.folder);
    } catch {
      // Left for a sweep.
    }
  }

  /** Aborts every running request (a hard stop); their answers still follow. */
  abortAll(): void {
    for (const running of this.#running.values()) running.controller.abort();
  }

  /** A folder of its own (unique per process and start), its liveness lock and its info. */
  #register(): void {
    const safeName = this.#options.name.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 60);
    const worker = workerFolder(this.layout, `${safeName}.${process.pid}.${randomBytes(4).toString("hex")}`);
    mkdirSync(worker.folder, { mode: FOLDER_MODE });
    const lock = tryLock(worker.lock, { staleMs: this.#staleMs, takeOver: false });
    if (lock === undefined) throw new Error(`worker folder ${worker.folder} is taken`);
    mkdirSync(worker.claimed, { mode: FOLDER_MODE });
    this.#worker = worker;
    this.#lock = lock;
    this.#writeInfo();
  }

  /**
   * True when this worker's folder is no longer its own: a sweep judged it dead (it was
   * silent past the limit: a suspended machine, a stalled loop) and answered its claims
   * `interrupted`. The worker then registers again under a new folder; the runs it still holds
   * finish, but their answers lose to the sweep's.
   */
  #lostRegistration(): boolean {
    const worker = this.#worker;
    return worker !== undefined && (!existsSync(worker.claimed) || !existsSync(worker.lock));
  }

  get #staleMs(): number {
    return this.#options.heartbeatMs * HEARTBEATS_BEFORE_DEAD;
  }

  #whenIdle(): Promise<void> {
    if (this.#running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  #watch(folder: string, onChange: () => void): void {
    try {
      const watcher = watch(folder, onChange);
      watcher.on("error", () => undefined);
      this.#watchers.push(watcher);
    } catch {
      // No notifications: the poll alone.
    }
  }

  #heartbeat(): void {
    if (!this.#stopping && this.#lostRegistration()) {
      try {
        this.#register();
      } catch {
        // The queue folder is unwritable now; the next heartbeat tries again.
      }
    }
    this.#lock?.refresh();
    this.#slots.refresh();
    this.#writeInfo();
    if (this.#worker !== undefined) sweepDeadWorkers(this.layout, this.#staleMs, this.#worker.folder);
  }

  #writeInfo(): void {
    if (this.#worker === undefined) return;
    try {
      writeWorkerInfo(this.#worker, {
        name: this.#options.name,
        host: this.#host,
        pid: process.pid,
        concurrency: this.#concurrency,
        running: this.#running.size,
        lastSeen: new Date().toISOString(),
        stopping: this.#stopping,
        heartbeatMs: this.#options.heartbeatMs,
      });
    } catch {
      // Swept away meanwhile (judged dead); the next heartbeat tries again.
    }
  }

  /** Claims requests while there is room; one pass at a time, another pass if asked meanwhile. */
  #claim(): void {
    if (this.#claiming) {
      this.#again = true;
      return;
    }
    this.#claiming = true;
    try {
      do {
        this.#again = false;
        this.#claimPass();
      } while (this.#again);
    } finally {
      this.#claiming = false;
    }
  }

  #claimPass(): void {
    const worker = this.#worker;
    if (worker === undefined || this.#stopping || this.#running.size >= this.#concurrency) return;
    const waiting = names(this.layout.requests)
      .map((name) => ({ name, parsed: parseRequestFileName(name) }))
      .filter((entry) => entry.parsed !== undefined)
      .sort((left, right) => (left.parsed?.requestId ?? "").localeCompare(right.parsed?.requestId ?? ""));
    const limits = this.#options.skillLimits?.() ?? {};
    const full = new Set<string>();
    for (const { name, parsed } of waiting) {
      if (parsed === undefined || this.#running.size >= this.#concurrency || this.#stopping) return;
      if (full.has(parsed.skill)) continue;
      const limit = limits[parsed.skill]?.concurrency;
      const slot = limit !== undefined ? this.#slots.take(parsed.skill, limit) : undefined;
      if (limit !== undefined && slot === undefined) {
        full.add(parsed.skill);
        continue;
      }
      const claimedFile = join(worker.claimed, name);
      try {
        renameSync(join(this.layout.requests, name), claimedFile);
      } catch (error) {
        if (slot !== undefined) this.#slots.release(slot);
        if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
        throw error;
      }
      this.#begin(claimedFile, parsed, slot);
    }
  }

  /** Reads the claim (it is this worker's now), checks it, and hands it to the handler. */
  #begin(claimedFile: string, named: { skill: string; requestId: string }, slot: HeldLock | undefined): void {
    const controller = new AbortController();
    const running: Running = { requestId: named.requestId, controller };
    this.#running.set(named.requestId, running);
    let answered = false;
    const answer = async (response: QueueResponse): Promise<void> => {
      if (answered) return;
      answered = true;
      // A claim gone means a sweep answered it already (this worker was judged dead): that answer stands.
      // A sweep between this check and the write is harmless too: its answer keeps its name in
      // responses/ even once taken, so the exclusive write below finds it and writes nothing.
      if (!existsSync(claimedFile)) return;
      const body = JSON.stringify({ ...response, requestId: named.requestId, worker: this.#identity });
      try {
        writeFileAtomicallySync(responseFile(this.layout, named.requestId), body, { exclusive: true });
      } finally {
        removeQuietly(claimedFile);
      }
    };
    const finish = (): void => {
      if (slot !== undefined) this.#slots.release(slot);
      removeQuietly(join(this.layout.cancel, named.requestId));
      this.#running.delete(named.requestId);
      if (this.#running.size === 0) for (const wake of this.#idle.splice(0)) wake();
      this.#claim();
    };
    const request = this.#read(claimedFile, named);
    if (!request.ok) {
      void answer(
        answerWithoutRun(named.requestId, "refused", request.code, request.text, this.#identity),
      ).finally(finish);
      return;
    }
    if (existsSync(join(this.layout.cancel, named.requestId))) controller.abort();
    const handle = this.#handle;
    const claimed: ClaimedRequest = { request: request.request, signal: controller.signal, answer };
    void (async () => {
      try {
        await handle?.(claimed);
      } finally {
        if (!answered)
          await answer(
            answerWithoutRun(
              named.requestId,
              "interrupted",
              "worker_failed",
              "the worker failed while it held this request, so the script may or may not have started; it will not be run again.",
              this.#identity,
            ),
          ).catch(() => undefined);
        finish();
      }
    })();
  }

  get #identity(): { name: string; host: string } {
    return { name: this.#options.name, host: this.#host };
  }

  #read(
    file: string,
    named: { skill: string; requestId: string },
  ): { ok: true; request: QueueRequest } | { ok: false; code: string; text: string } {
    const refused = (detail: string) => ({
      ok: false as const,
      code: "request_tampered",
      text: `the queued request ${named.requestId} ${detail}, so it did not run; tell the host's owner.`,
    });
    const text = readSmallFile(file, MAX_REQUEST_BYTES);
    if (text === undefined) return refused("is not a readable request file");
    let envelope: unknown;
    try {
      envelope = parseJsonSafely(text);
    } catch {
      return refused("is not valid JSON");
    }
    const body = envelope as { request?: unknown; seal?: unknown } | null;
    const request = parseQueueRequest(body?.request);
    if (request === undefined) return refused("does not have a request's shape");
    if (request.requestId !== named.requestId || request.skill !== named.skill)
      return refused("names another request or skill than its file");
    if (this.#seal?.verify(request, body?.seal) !== true)
      return refused("does not carry the controller's seal (it was changed after it was queued)");
    return { ok: true, request };
  }

  #checkCancels(): void {
    if (this.#running.size === 0) return;
    const cancelled = new Set(names(this.layout.cancel));
    for (const running of this.#running.values())
      if (cancelled.has(running.requestId)) running.controller.abort();
  }
}
