import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { isSkillgateError } from "../core/errors.js";
import type { Runner, RunRequest, RunResult } from "../runners/contract.js";
import { refusal } from "../runners/refusal.js";
import { scriptLanguage } from "../skill/scripts.js";
import { type CallerRecord, goneCallers, removeCallerRecord, writeCallerRecord } from "./caller-records.js";
import type { QueueClient, QueueRequest, QueueResponse } from "./contract.js";

/** What the controller's audit is told when a queued run ends. */
export interface QueueRunFinished {
  readonly skill: string;
  readonly hash8: string;
  readonly call: RunRequest["call"];
  readonly status: QueueResponse["status"];
  readonly code?: string;
  readonly worker?: string;
  readonly durationMs: number;
  /** `gone`: the caller had gone (a controller restart) before the answer came. */
  readonly caller: "waiting" | "gone";
}

/** Options of {@link QueueRunner}. */
export interface QueueRunnerOptions {
  /** The backend's controller side, opened on first use. */
  readonly client: () => Promise<QueueClient>;
  /** The controller's data folder: the callers' records live in `<data>/queue/callers/`. */
  readonly dataFolder: string;
  /** One call per run that was submitted, for the audit line with the worker's name. */
  readonly onFinished?: (finished: QueueRunFinished) => void;
  /**
   * How long a request may wait for a worker beyond its own timeout before it is withdrawn and
   * refused (`queue_no_worker`); default 10 minutes.
   */
  readonly maxWaitMs?: number;
}

/** Default {@link QueueRunnerOptions.maxWaitMs}. */
export const DEFAULT_MAX_QUEUE_WAIT_MS = 10 * 60_000;

/**
 * The controller's Runner for `skillgate.execution: queue` (docs/queue.md): the router's
 * verified request becomes a {@link QueueRequest} (the skill, the approved hash, the script,
 * arguments, argv, limits, network; no folder, no workspace, no environment), is submitted
 * and waited for; the answer becomes the RunResult. A caller's abort cancels the request; a
 * full or unreachable queue is a `HOST:` refusal, never a hang; a worker that went away is
 * `interrupted`, never run again.
 */
export class QueueRunner implements Runner {
  readonly #options: QueueRunnerOptions;
  readonly #collecting = new Set<string>();
  readonly #stop = new AbortController();

  constructor(options: QueueRunnerOptions) {
    this.#options = options;
  }

  /** The queue runs scripts of a known language only; the worker's sandbox decides the rest. */
  admit(request: RunRequest): RunResult | undefined {
    if (scriptLanguage(request.script) === undefined)
      return refusal("invalid_script", `${request.script} of ${request.skill} is not a script; nothing ran.`);
    if (request.workspace !== undefined)
      return refusal(
        "workspace_not_allowed",
        `${request.skill} runs on the shared worker pool (skillgate.execution: queue), where a script sees no workspace, so ${request.script} did not run.`,
      );
    return undefined;
  }

  async run(request: RunRequest): Promise<RunResult> {
    const refused = this.admit(request);
    if (refused !== undefined) return refused;
    const queued = toQueueRequest(request, newQueueId());
    let client: QueueClient;
    try {
      client = await this.#options.client();
      if ((await client.hasLiveWorker?.()) === false)
        return refusal(
          "queue_no_worker",
          `no worker of the pool is running, so ${request.script} of ${request.skill} did not run; tell the host's owner (skillgate worker starts one, skillgate queue status shows them).`,
        );
      await client.submit(queued);
    } catch (error) {
      return queueRefusal(error);
    }
    const record: CallerRecord = {
      queueId: queued.requestId,
      pid: process.pid,
      host: hostname(),
      skill: request.skill,
      hash8: request.hash.slice(0, 8),
      requestId: request.call?.requestId ?? "",
      scope: request.call?.scope ?? { kind: "chat", id: "" },
      submittedAt: queued.submittedAt,
    };
    writeCallerRecord(this.#options.dataFolder, record);
    const deadline = new AbortController();
    const waitMs = (this.#options.maxWaitMs ?? DEFAULT_MAX_QUEUE_WAIT_MS) + request.limits.timeoutMs;
    const timer = setTimeout(() => deadline.abort(), waitMs);
    const signal =
      request.signal === undefined ? deadline.signal : AbortSignal.any([deadline.signal, request.signal]);
    let response: QueueResponse;
    try {
      response = await client.waitFor(queued.requestId, signal);
    } catch (error) {
      return queueRefusal(error);
    } finally {
      clearTimeout(timer);
    }
    removeCallerRecord(this.#options.dataFolder, queued.requestId);
    this.#report(record, response, request.call, "waiting");
    // The pool does not stream: a caller that follows the output gets all of it with the answer.
    if (response.stdout !== "") request.onOutput?.("stdout", response.stdout);
    if (response.stderr !== "") request.onOutput?.("stderr", response.stderr);
    return toRunResult(request, response, {
      callerCancelled: request.signal?.aborted === true,
      waitedMs: waitMs,
    });
  }

  /**
   * Collects the answers of requests whose callers are gone (their controller process ended):
   * each is waited for in the background and reported with `caller: gone`. Call once at the
   * controller's start; {@link close} stops the waits without cancelling the requests.
   */
  collectGoneCallers(): number {
    const gone = goneCallers(this.#options.dataFolder).filter(
      (record) => !this.#collecting.has(record.queueId),
    );
    for (const record of gone) {
      this.#collecting.add(record.queueId);
      void (async () => {
        try {
          const client = await this.#options.client();
          const response = await client.waitFor(record.queueId, undefined, {
            stopWaiting: this.#stop.signal,
          });
          removeCallerRecord(this.#options.dataFolder, record.queueId);
          this.#report(record, response, { requestId: record.requestId, scope: record.scope }, "gone");
        } catch {
          // Stopped (the controller is closing) or the queue is unreachable: the record stays for the next start.
        } finally {
          this.#collecting.delete(record.queueId);
        }
      })();
    }
    return gone.length;
  }

  /** Stops the background collection of gone callers' answers. */
  close(): void {
    this.#stop.abort();
  }

  #report(
    record: CallerRecord,
    response: QueueResponse,
    call: RunRequest["call"],
    caller: "waiting" | "gone",
  ): void {
    this.#options.onFinished?.({
      skill: record.skill,
      hash8: record.hash8,
      call,
      status: response.status,
      ...(response.code !== undefined ? { code: response.code } : {}),
      ...(response.worker !== undefined ? { worker: response.worker.name } : {}),
      durationMs: response.durationMs,
      caller,
    });
  }
}

let sequence = 0;

/**
 * A queue id: its time first and this process's sequence, so one controller's requests sort in
 * submission order (workers take the oldest first), then 6 random bytes.
 */
export function newQueueId(): string {
  sequence = (sequence + 1) % 36 ** 4;
  return `${Date.now().toString(36).padStart(9, "0")}-${sequence.toString(36).padStart(4, "0")}-${randomBytes(6).toString("hex")}`;
}

/** What the worker needs and nothing more: no folder, no workspace, no environment, no call scope. */
export function toQueueRequest(request: RunRequest, requestId: string): QueueRequest {
  const network = request.network ?? "none";
  return {
    requestId,
    skill: request.skill,
    hash: request.hash,
    script: request.script,
    arguments: request.arguments,
    ...(request.argv !== undefined && request.argv.length > 0 ? { argv: request.argv } : {}),
    timeoutMs: request.limits.timeoutMs,
    maxOutputBytes: request.limits.maxOutputBytes,
    network,
    allowedDomains: network === "bridge" ? (request.allowedDomains ?? []) : [],
    submittedAt: new Date().toISOString(),
  };
}

function queueRefusal(error: unknown): RunResult {
  if (
    isSkillgateError(error, "queue_full") ||
    isSkillgateError(error, "queue_unavailable") ||
    isSkillgateError(error, "limit_exceeded")
  )
    return refusal(error.code, error.message);
  const reason = error instanceof Error ? error.name : "error";
  return refusal(
    "queue_unavailable",
    `the worker pool's queue failed (${reason}), so the script did not run; tell the host's owner.`,
  );
}

function toRunResult(
  request: RunRequest,
  response: QueueResponse,
  context: { callerCancelled: boolean; waitedMs: number },
): RunResult {
  const output = {
    exitCode: response.exitCode,
    stdout: response.stdout,
    stderr: response.stderr,
    stdoutTruncated: response.stdoutTruncated,
    stderrTruncated: response.stderrTruncated,
    durationMs: response.durationMs,
  };
  switch (response.status) {
    case "ok":
    case "failed":
    case "timed_out":
      return { status: response.status, ...output };
    case "refused":
      return {
        status: "refused",
        ...output,
        code: response.code ?? "refused",
        message:
          response.message ?? `HOST: the worker refused ${request.script}. [${response.code ?? "refused"}]`,
      };
    case "interrupted":
      return {
        status: "interrupted",
        ...output,
        code: response.code ?? "worker_lost",
        message:
          response.message ??
          `HOST: the worker running ${request.script} went away, so it may or may not have started; it will not be run again. [worker_lost]`,
      };
    case "cancelled":
      if (context.callerCancelled)
        return {
          status: "interrupted",
          ...output,
          code: "cancelled",
          message: `HOST: the call was cancelled; ${request.script} was stopped or never started. [cancelled]`,
        };
      if (response.worker === undefined)
        return refusal(
          "queue_no_worker",
          `no worker of the pool took ${request.script} within ${Math.round(context.waitedMs / 1000)} s, so it did not run; tell the host's owner (skillgate queue status shows the workers).`,
        );
      return { status: "timed_out", ...output };
  }
}
