import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readlinkSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ManualClock } from "../../src/core/clock.js";
import {
  APPROVALS_FOLDER,
  ApprovalQueue,
  MAX_APPROVAL_FILE_BYTES,
  MAX_QUEUED_APPROVALS,
} from "../../src/policy/approval-queue.js";
import { codeOf, filesIn, makeRequest, requestFile, retry, START, setup } from "./approval-queue-helpers.js";

/** Hostile and broken files in the queue's folder: skipped, never followed, never fatal, nothing written outside. */

interface HostileCase {
  readonly name: string;
  /** Writes the hostile thing into the queue's folder (which exists) for request `id`; `outside` is beside the data folder. */
  readonly plant: (folder: string, id: string, outside: string, clock: ManualClock) => void;
}

const HOSTILE_REQUESTS: readonly HostileCase[] = [
  { name: "bad JSON", plant: (folder, id) => writeFileSync(join(folder, `${id}.json`), "{not json") },
  { name: "JSON null", plant: (folder, id) => writeFileSync(join(folder, `${id}.json`), "null") },
  {
    name: "a bare request without the file format",
    plant: (folder, id, _outside, clock) =>
      writeFileSync(join(folder, `${id}.json`), JSON.stringify(makeRequest(clock, { id }))),
  },
  {
    name: "options that are not a list",
    plant: (folder, id, _outside, clock) =>
      writeFileSync(
        join(folder, `${id}.json`),
        JSON.stringify({ format: 1, request: { ...makeRequest(clock, { id }), options: "once" } }),
      ),
  },
  {
    name: "an unknown answer among the options",
    plant: (folder, id, _outside, clock) =>
      writeFileSync(
        join(folder, `${id}.json`),
        JSON.stringify({ format: 1, request: { ...makeRequest(clock, { id }), options: ["yes"] } }),
      ),
  },
  {
    name: "an unknown tier",
    plant: (folder, id, _outside, clock) =>
      writeFileSync(
        join(folder, `${id}.json`),
        JSON.stringify({ format: 1, request: { ...makeRequest(clock, { id }), tier: "root" } }),
      ),
  },
  {
    name: "an extra key",
    plant: (folder, id, _outside, clock) =>
      writeFileSync(
        join(folder, `${id}.json`),
        JSON.stringify({ format: 1, request: { ...makeRequest(clock, { id }), approved: true } }),
      ),
  },
  {
    name: "an id that is not the file's",
    plant: (folder, id, _outside, clock) =>
      writeFileSync(join(folder, `${id}.json`), requestFile(makeRequest(clock))),
  },
  {
    name: "a file over the size limit",
    plant: (folder, id, _outside, clock) =>
      writeFileSync(
        join(folder, `${id}.json`),
        requestFile(makeRequest(clock, { id, summary: "x".repeat(MAX_APPROVAL_FILE_BYTES) })),
      ),
  },
  {
    name: "a symlink to a valid request outside the folder",
    plant: (folder, id, outside, clock) => {
      writeFileSync(join(outside, "request.json"), requestFile(makeRequest(clock, { id })));
      symlinkSync(join(outside, "request.json"), join(folder, `${id}.json`));
    },
  },
  { name: "a folder", plant: (folder, id) => mkdirSync(join(folder, `${id}.json`)) },
];

describe("hostile files in the queue's folder", () => {
  it.each(HOSTILE_REQUESTS)("$name: skipped, left alone, never read as a request", ({ plant }) => {
    const { queue, clock, folder, tree } = setup();
    const outside = join(tree, "outside");
    mkdirSync(outside);
    const valid = makeRequest(clock);
    queue.record(valid);
    const id = randomUUID();
    plant(folder, id, outside, clock);
    expect(queue.pending()).toEqual([valid]);
    expect(codeOf(() => queue.answer(id, "once"))).toBe("approval_not_found");
    expect(queue.take(makeRequest(clock))).toBeUndefined();
    expect(existsSync(join(folder, `${id}.answer.json`))).toBe(false);
    expect(filesIn(folder)).toContain(`${id}.json`);
  });

  it.skipIf(process.platform === "win32")("a FIFO named like a request does not block the queue", () => {
    const { queue, clock, folder } = setup();
    queue.record(makeRequest(clock));
    const id = randomUUID();
    expect(makeFifo(join(folder, `${id}.json`))).toBe(true);
    expect(queue.pending()).toHaveLength(1);
    expect(codeOf(() => queue.answer(id, "once"))).toBe("approval_not_found");
  });

  it("an answer file that is a symlink, malformed or not offered is never used", () => {
    const { queue, clock, folder, tree } = setup();
    const outside = join(tree, "outside");
    mkdirSync(outside);
    writeFileSync(
      join(outside, "answer.json"),
      JSON.stringify({ format: 1, answer: "once", answeredAt: START }),
    );
    const linked = makeRequest(clock, { inputDigest: "01".repeat(32) });
    const malformed = makeRequest(clock, { inputDigest: "02".repeat(32) });
    const notOffered = makeRequest(clock, {
      inputDigest: "03".repeat(32),
      tool: "edit_skill",
      tier: "skill-edit",
      options: ["once", "decline"],
    });
    for (const request of [linked, malformed, notOffered]) queue.record(request);
    symlinkSync(join(outside, "answer.json"), join(folder, `${linked.id}.answer.json`));
    writeFileSync(join(folder, `${malformed.id}.answer.json`), '{"format":1,"answer":"once"}');
    writeFileSync(
      join(folder, `${notOffered.id}.answer.json`),
      JSON.stringify({ format: 1, answer: "always-chat", answeredAt: START }),
    );
    for (const request of [malformed, notOffered]) expect(queue.take(retry(request))).toBeUndefined();
    // The symlink is not listed as an answer file, but it still marks the request as answered.
    expect(queue.take(retry(linked))).toBeUndefined();
    expect(queue.pending()).toEqual([]);
    for (const request of [linked, malformed, notOffered])
      expect(codeOf(() => queue.answer(request.id, "once"))).toBe("approval_already_answered");
  });

  it("other names are left alone; a crash's leftovers are removed once they are old", () => {
    const { queue, clock, folder } = setup();
    const consumed = makeRequest(clock);
    const fresh = makeRequest(clock, { inputDigest: "77".repeat(32) });
    queue.record(consumed);
    queue.record(fresh);
    queue.answer(consumed.id, "once");
    queue.answer(fresh.id, "once");
    // A process that died after claiming `consumed`, and one that is claiming `fresh` right now.
    writeFileSync(join(folder, `${consumed.id}.taken`), "");
    writeFileSync(join(folder, `${fresh.id}.taken`), "");
    const orphan = randomUUID();
    writeFileSync(join(folder, `${orphan}.answer.json`), "{}");
    writeFileSync(join(folder, ".tmp-old"), "x");
    writeFileSync(join(folder, ".tmp-new"), "x");
    writeFileSync(join(folder, "README"), "mine");
    writeFileSync(join(folder, "notes.json"), "{}");
    const old = new Date(Date.now() - 5 * 60 * 1000);
    for (const name of [`${consumed.id}.taken`, ".tmp-old"]) utimesSync(join(folder, name), old, old);
    expect(queue.pending()).toEqual([]);
    expect(queue.take(retry(fresh))).toBeUndefined();
    expect(filesIn(folder)).toEqual(
      [
        ".tmp-new",
        "README",
        "notes.json",
        `${fresh.id}.answer.json`,
        `${fresh.id}.json`,
        `${fresh.id}.taken`,
      ].sort(),
    );
  });

  it("a claim is never taken over; one whose process has ended is swept at once, one of a live process stays", () => {
    const { queue, clock, folder } = setup();
    const crashed = makeRequest(clock);
    const live = makeRequest(clock, { inputDigest: "66".repeat(32) });
    for (const request of [crashed, live]) {
      queue.record(request);
      queue.answer(request.id, "once");
    }
    const claim = (pid: number): string =>
      `${pid} ${hostname()} ${readlinkSync("/proc/self/ns/pid")} 0123456789abcdef\n`;
    writeFileSync(join(folder, `${crashed.id}.taken`), claim(spawnSync("true").pid ?? 0));
    writeFileSync(join(folder, `${live.id}.taken`), claim(process.pid));
    // Neither answer is handed out again: the crashed taker may not pass its claim on.
    expect(queue.take(retry(crashed))).toBeUndefined();
    expect(queue.take(retry(live))).toBeUndefined();
    // The crashed one's files are gone without waiting the leftover age; the live one's stay.
    expect(filesIn(folder)).toEqual([`${live.id}.answer.json`, `${live.id}.json`, `${live.id}.taken`].sort());
  });

  it("a queue folder that is a symlink is neither read nor written", () => {
    const { clock, data, tree } = setup();
    const elsewhere = join(tree, "elsewhere");
    mkdirSync(elsewhere);
    const planted = makeRequest(clock);
    writeFileSync(join(elsewhere, `${planted.id}.json`), requestFile(planted));
    mkdirSync(data);
    symlinkSync(elsewhere, join(data, APPROVALS_FOLDER));
    const queue = ApprovalQueue.open({ dataFolder: data, clock });
    expect(queue.pending()).toEqual([]);
    expect(codeOf(() => queue.answer(planted.id, "once"))).toBe("approval_not_found");
    expect(codeOf(() => queue.record(makeRequest(clock)))).toBe("path_not_allowed");
    expect(readdirSync(elsewhere)).toEqual([`${planted.id}.json`]);
  });

  it("a full queue refuses new requests with approval_queue_full", () => {
    const { queue, clock, folder } = setup();
    queue.record(makeRequest(clock));
    for (let index = 1; index < MAX_QUEUED_APPROVALS; index += 1) {
      const request = makeRequest(clock);
      writeFileSync(join(folder, `${request.id}.json`), requestFile(request));
    }
    expect(codeOf(() => queue.record(makeRequest(clock)))).toBe("approval_queue_full");
    expect(filesIn(folder)).toHaveLength(MAX_QUEUED_APPROVALS);
  });

  it("prototype-polluting keys are dropped on reading and reach no prototype", () => {
    const { queue, clock, folder } = setup();
    const request = makeRequest(clock);
    mkdirSync(folder, { recursive: true });
    writeFileSync(
      join(folder, `${request.id}.json`),
      requestFile(request)
        .replace('{"format":1', '{"__proto__":{"polluted":true},"format":1')
        .replace('"scope":{', '"scope":{"constructor":{"prototype":{"polluted":true}},'),
    );
    expect(queue.pending()).toEqual([request]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("writes nothing outside its folder", async () => {
    const { queue, clock, data } = setup();
    const approve = queue.deferredApprover();
    const request = makeRequest(clock);
    expect(await approve(request)).toBe("deferred");
    queue.record(makeRequest(clock, { inputDigest: "55".repeat(32) }));
    queue.answer(request.id, "always");
    queue.take(retry(request));
    const everything = readdirSync(data, { recursive: true }).map(String);
    expect(
      everything.every((path) => path === APPROVALS_FOLDER || path.startsWith(`${APPROVALS_FOLDER}/`)),
    ).toBe(true);
    expect(everything).toHaveLength(2);
  });
});

/** Makes a FIFO with the system's `mkfifo`; false when that failed. */
function makeFifo(path: string): boolean {
  return spawnSync("mkfifo", [path]).status === 0;
}
