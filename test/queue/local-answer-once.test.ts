import { mkdirSync, readdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeFileAtomicallySync } from "../../src/core/durable-fs.js";
import type { ClaimedRequest, QueueResponse } from "../../src/queue/contract.js";
import { queueLayout, requestFileName, responseFile } from "../../src/queue/local/layout.js";
import { pruneFinished } from "../../src/queue/local/local-queue-status.js";
import { LocalWorkerSource } from "../../src/queue/local/local-worker-source.js";
import { sweepDeadWorkers, workerFolder } from "../../src/queue/local/worker-folders.js";
import { eventually } from "../helpers/eventually.js";
import { localClient, queueRequest, queueTree } from "./helpers.js";

/**
 * One outcome per request on the local backend, also after the controller took the first one:
 * the answer keeps its name in `responses/`, so neither a swept worker's late answer nor a
 * sweep after a taken answer can land a second outcome for the same id.
 */

const HASH = "a".repeat(64);

function okAnswer(requestId: string): QueueResponse {
  return {
    requestId,
    status: "ok",
    exitCode: 0,
    stdout: "late\n",
    stderr: "",
    stdoutTruncated: false,
    stderrTruncated: false,
    durationMs: 5,
    finishedAt: new Date().toISOString(),
  };
}

describe("the local queue answers each request once", () => {
  it("a swept request whose original worker then writes its answer keeps its one interrupted outcome", async () => {
    const { data } = queueTree();
    const layout = queueLayout(data);
    const client = localClient(data);
    const claims: ClaimedRequest[] = [];
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const source = new LocalWorkerSource({
      dataFolder: data,
      name: "stalled",
      heartbeatMs: 60_000,
      pollMs: 50,
    });
    await source.start(async (claimed) => {
      claims.push(claimed);
      await held;
    }, 1);
    const request = queueRequest("echo", HASH, "scripts/echo.mjs");
    await client.submit(request);
    await eventually("the worker to claim the request", () => claims.length === 1);
    const folder = source.folder ?? "";
    const claimFile = join(folder, "claimed", requestFileName("echo", request.requestId));
    // The worker looks dead (its lock an hour old): a sweep answers its claim interrupted.
    const old = new Date(Date.now() - 3600_000);
    utimesSync(join(folder, "lock"), old, old);
    expect(sweepDeadWorkers(layout, 1000)).toEqual([request.requestId]);
    const first = await client.waitFor(request.requestId);
    expect(first.status).toBe("interrupted");
    // The worker was past its own check when the sweep ran: its claim is still where it looked.
    mkdirSync(join(folder, "claimed"), { recursive: true });
    writeFileSync(claimFile, "{}");
    await claims[0]?.answer(okAnswer(request.requestId));
    release();
    await source.stop();
    const status = await client.status();
    expect(status.counts).toMatchObject({ done: 0, interrupted: 1, failed: 0 });
    // Asked again, the queue still gives the first outcome.
    expect((await client.waitFor(request.requestId)).status).toBe("interrupted");
    expect(readdirSync(layout.finished)).toEqual([`interrupted~${request.requestId}.json`]);
  });

  it("a worker killed after it answered and before it dropped its claim: the sweep adds no second outcome", async () => {
    const { data } = queueTree();
    const layout = queueLayout(data);
    const client = localClient(data);
    await client.status();
    const request = queueRequest("echo", HASH, "scripts/echo.mjs");
    // A dead worker's folder: no lock, an old folder, its claim still there.
    const dead = workerFolder(layout, "dead.1.00000000");
    mkdirSync(dead.claimed, { recursive: true });
    writeFileSync(join(dead.claimed, requestFileName("echo", request.requestId)), "{}");
    const old = new Date(Date.now() - 3600_000);
    utimesSync(dead.folder, old, old);
    mkdirSync(layout.responses, { recursive: true });
    writeFileAtomicallySync(
      responseFile(layout, request.requestId),
      JSON.stringify(okAnswer(request.requestId)),
      {
        exclusive: true,
      },
    );
    expect((await client.waitFor(request.requestId)).status).toBe("ok");
    expect(sweepDeadWorkers(layout, 1000)).toEqual([]);
    expect((await client.status()).counts).toMatchObject({ done: 1, interrupted: 0, failed: 0, active: 0 });
    expect((await client.waitFor(request.requestId)).status).toBe("ok");
  });

  it("prunes taken answers past the newest ones only once they are old enough, mark and answer together", async () => {
    const { data } = queueTree();
    const layout = queueLayout(data);
    const client = localClient(data);
    await client.status();
    mkdirSync(layout.responses, { recursive: true });
    const ids = ["0000000a", "0000000b", "0000000c"].map((prefix) => `${prefix}-0000-000000000000`);
    for (const id of ids) {
      writeFileAtomicallySync(responseFile(layout, id), JSON.stringify(okAnswer(id)));
      expect((await client.waitFor(id)).status).toBe("ok");
    }
    // Beyond the newest one, but answered just now: all kept.
    pruneFinished(layout, 1, 3600_000);
    expect(readdirSync(layout.finished)).toHaveLength(3);
    // The oldest answer an hour and more old: it goes, mark and answer; the younger one stays.
    const old = new Date(Date.now() - 2 * 3600_000);
    utimesSync(responseFile(layout, ids[0] ?? ""), old, old);
    pruneFinished(layout, 1, 3600_000);
    expect(readdirSync(layout.finished).sort()).toEqual([`ok~${ids[1]}.json`, `ok~${ids[2]}.json`]);
    expect(readdirSync(layout.responses).sort()).toEqual([`${ids[1]}.json`, `${ids[2]}.json`]);
  });
});
