import { hostname } from "node:os";
import type { Runner, RunRequest, RunResult } from "../../runners/contract.js";
import { scriptLanguage } from "../../skill/scripts.js";
import type { ClaimedRequest, QueueOutcomeStatus, QueueResponse, QueueWorkerSource } from "../contract.js";
import { answerWithoutRun } from "../request-shape.js";
import type { WorkerSkillFiles } from "./skill-files.js";

/** Options of {@link startWorker}. */
export interface WorkerOptions {
  /** Where requests come from: the local file queue or BullMQ. */
  readonly source: QueueWorkerSource;
  /** Where the skill's verified files are found. */
  readonly skillFiles: WorkerSkillFiles;
  /** What runs the script: the sandbox runner (throwaway, read-only, no workspace, network none or the proxy). */
  readonly runner: Runner;
  /** The worker's name in answers, the status and the controller's audit. */
  readonly name: string;
  /** Default this machine's host name. */
  readonly host?: string;
  /** Runs at once. */
  readonly concurrency: number;
  /** Told about each answer (a worker's own log). */
  readonly onAnswer?: (response: QueueResponse) => void;
}

/** A started worker. */
export interface RunningWorker {
  readonly name: string;
  /** Graceful stop: no new requests, running ones finish and are answered. */
  stop(): Promise<void>;
}

/**
 * The worker core both backends share (docs/queue.md, "Workers"): for each claimed request,
 * the skill's files of that hash (re-hashed; a mismatch is refused `skill_changed`), a run
 * through the given runner (the sandbox: read-only snapshot, no workspace, no network, or only
 * the skill's allowed domains through the filtering proxy) with the request's output caps,
 * timeout and the claim's cancellation, then exactly one answer naming this worker.
 */
export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const host = options.host ?? hostname();
  const identity = { name: options.name, host };
  const handle = async (claimed: ClaimedRequest): Promise<void> => {
    const response = await runClaimed(claimed, options, identity);
    await claimed.answer(response);
    options.onAnswer?.(response);
  };
  await options.source.start(handle, options.concurrency);
  let stopping: Promise<void> | undefined;
  return {
    name: options.name,
    stop: () => {
      stopping ??= options.source.stop();
      return stopping;
    },
  };
}

async function runClaimed(
  claimed: ClaimedRequest,
  options: WorkerOptions,
  identity: { readonly name: string; readonly host: string },
): Promise<QueueResponse> {
  const request = claimed.request;
  const refuse = (code: string, text: string): QueueResponse =>
    answerWithoutRun(request.requestId, "refused", code, text, identity);
  if (claimed.signal.aborted)
    return answerWithoutRun(
      request.requestId,
      "cancelled",
      "cancelled",
      "the call was cancelled before the script started; it did not run.",
      identity,
    );
  const language = scriptLanguage(request.script);
  if (language === undefined)
    return refuse(
      "invalid_script",
      `${request.script} of ${request.skill} is not a script the worker can run; nothing ran.`,
    );
  const files = await options.skillFiles.folderFor(request.skill, request.hash);
  if (!files.ok) return refuse(files.code, files.text);
  const run: RunRequest = {
    skill: request.skill,
    hash: request.hash,
    folder: files.folder,
    execution: "sandbox",
    script: request.script,
    language,
    arguments: request.arguments,
    ...(request.argv !== undefined ? { argv: request.argv } : {}),
    limits: { timeoutMs: request.timeoutMs, maxOutputBytes: request.maxOutputBytes },
    signal: claimed.signal,
    network: request.network,
    allowedDomains: request.network === "bridge" ? request.allowedDomains : [],
    snapshot: { folder: files.folder, hash: request.hash, reused: true },
  };
  const started = Date.now();
  let result: RunResult;
  try {
    result = await options.runner.run(run);
  } catch (error) {
    return answerWithoutRun(
      request.requestId,
      "interrupted",
      "worker_failed",
      `the worker failed while running the script (${error instanceof Error ? error.name : "error"}), so it may or may not have run; it will not be run again.`,
      identity,
    );
  }
  return {
    requestId: request.requestId,
    status: outcomeOf(result, claimed.signal.aborted),
    exitCode: result.exitCode,
    stdout: result.stdout,
    stderr: result.stderr,
    stdoutTruncated: result.stdoutTruncated,
    stderrTruncated: result.stderrTruncated,
    durationMs: result.durationMs || Date.now() - started,
    ...(result.code !== undefined ? { code: result.code } : {}),
    ...(result.message !== undefined ? { message: result.message } : {}),
    worker: identity,
    finishedAt: new Date().toISOString(),
  };
}

/** A run stopped because the controller cancelled it is `cancelled`, whatever the runner called it. */
function outcomeOf(result: RunResult, aborted: boolean): QueueOutcomeStatus {
  if (aborted && result.status !== "ok" && result.status !== "refused") return "cancelled";
  return result.status;
}
