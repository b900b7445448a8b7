import { appendFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { ClaimedRequest, QueueResponse } from "../../../src/queue/contract.js";
import { RequestSeal } from "../../../src/queue/local/request-seal.js";
import {
  RedisQueueWorkerSource,
  type RedisWorkerSourceOptions,
} from "../../../src/queue/redis/redis-worker-source.js";

/**
 * The tiny in-test handler of the Redis tests: records each start in a file (one line per
 * start, so a test can count executions), sleeps `arguments.sleepMs` (stopped by the request's
 * signal) and answers `ok`, or `cancelled` when stopped. Worker processes that run real
 * scripts are test/helpers/queue-chaos-worker.ts with `--redis`.
 */

let keyFile: string | undefined;

/** The seal key file a test file's controller and workers share; made once per process. */
export function testKeyFile(): string {
  keyFile ??= join(mkdtempSync(join(tmpdir(), "skillgate-redis-seal-")), "seal.key");
  return keyFile;
}

/** Timings short enough for tests: a dead worker is noticed within about two seconds. */
export const FAST_SETTINGS = { lockDurationMs: 1_500, stalledIntervalMs: 500, heartbeatMs: 300 } as const;

/** A handler that records starts in `startsFile` and sleeps as the request asks. */
export function recordingHandler(
  startsFile: string,
  onStart?: (claimed: ClaimedRequest) => void,
): (claimed: ClaimedRequest) => Promise<void> {
  return async (claimed) => {
    appendFileSync(startsFile, `${claimed.request.requestId}\n`);
    onStart?.(claimed);
    const started = Date.now();
    const sleepMs = Number(claimed.request.arguments.sleepMs ?? 0);
    let status: QueueResponse["status"] = "ok";
    try {
      if (sleepMs > 0) await sleep(sleepMs, undefined, { signal: claimed.signal });
    } catch {
      status = "cancelled";
    }
    await claimed.answer({
      requestId: claimed.request.requestId,
      status,
      exitCode: status === "ok" ? 0 : null,
      stdout: `ran ${claimed.request.script}`,
      stderr: "",
      stdoutTruncated: false,
      stderrTruncated: false,
      durationMs: Date.now() - started,
      finishedAt: new Date().toISOString(),
    });
  };
}

/** A worker source for `url` with the test seal key and fast timings. */
export function testWorkerSource(
  url: string,
  extra: Partial<RedisWorkerSourceOptions> = {},
): RedisQueueWorkerSource {
  return new RedisQueueWorkerSource({
    url,
    seal: RequestSeal.open(testKeyFile()),
    ...FAST_SETTINGS,
    ...extra,
  });
}
