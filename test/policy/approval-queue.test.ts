import { spawn, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/core/clock.js";
import { isSkillgateError } from "../../src/core/errors.js";
import {
  APPROVALS_FOLDER,
  ApprovalQueue,
  MAX_APPROVAL_FILE_BYTES,
  MAX_QUEUED_APPROVALS,
} from "../../src/policy/approval-queue.js";
import type { ApprovalRequest } from "../../src/policy/approvals.js";
import { makeTree } from "../helpers/skill-tree.js";

const START = Date.UTC(2026, 0, 2, 3, 4, 5);
const TEN_MINUTES = 10 * 60 * 1000;

/** A queue on a fresh data folder, with a clock that moves only when told. */
function setup() {
  const tree = makeTree("skillgate-approvals-");
  const data = join(tree, "data");
  const clock = new ManualClock(START);
  const queue = ApprovalQueue.open({ dataFolder: data, clock });
  return { tree, data, folder: join(data, APPROVALS_FOLDER), clock, queue };
}

/** A change-tier run_skill_script request in chat-1, as the broker makes them. */
function makeRequest(clock: ManualClock, overrides: Partial<ApprovalRequest> = {}): ApprovalRequest {
  const now = clock.now();
  return {
    id: randomUUID(),
    tool: "run_skill_script",
    tier: "change",
    scope: { kind: "chat", id: "chat-1" },
    summary: "run scripts/backup.py of backup",
    skill: "backup",
    hash: "ab".repeat(32),
    grant: "skill:backup@abababab",
    inputDigest: "cd".repeat(32),
    options: ["once", "always-chat", "decline"],
    createdAt: now,
    expiresAt: now + TEN_MINUTES,
    ...overrides,
  };
}

/** The same call made again: the broker gives every ask a new id. */
function retry(request: ApprovalRequest): ApprovalRequest {
  return { ...request, id: randomUUID() };
}

/** The stable code of what `action` threw, or undefined when it did not throw. */
function codeOf(action: () => unknown): string | undefined {
  try {
    action();
  } catch (error) {
    return isSkillgateError(error) ? error.code : `not a SkillgateError: ${String(error)}`;
  }
  return undefined;
}

function filesIn(folder: string): string[] {
  return existsSync(folder) ? readdirSync(folder).sort() : [];
}

describe("the approval queue", () => {
  it("creates nothing until a request is recorded, then a private folder with private files", () => {
    const { queue, data, folder, clock } = setup();
    expect(queue.pending()).toEqual([]);
    expect(existsSync(data)).toBe(false);
    const request = makeRequest(clock);
    queue.record(request);
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    expect(filesIn(folder)).toEqual([`${request.id}.json`]);
    expect(statSync(join(folder, `${request.id}.json`)).mode & 0o777).toBe(0o600);
    expect(queue.pending()).toEqual([request]);
  });

  it("lists waiting requests oldest first; recording an id twice keeps one", () => {
    const { queue, clock } = setup();
    const first = makeRequest(clock);
    clock.advance(1000);
    const second = makeRequest(clock);
    queue.record(second);
    queue.record(first);
    queue.record(first);
    expect(queue.pending().map((request) => request.id)).toEqual([first.id, second.id]);
  });

  it("answers once: the next identical call takes it, exactly once, and the files are gone", () => {
    const { queue, clock, folder } = setup();
    const request = makeRequest(clock);
    queue.record(request);
    const result = queue.answer(request.id, "once");
    expect(result).toEqual({ request, answer: "once", answeredAt: START });
    expect(queue.pending()).toEqual([]);
    expect(queue.take(retry(request))).toBe("once");
    expect(queue.take(retry(request))).toBeUndefined();
    expect(filesIn(folder)).toEqual([]);
  });

  it("an answer applies only to the same call: scope, tool, tier, skill, hash and input digest", () => {
    const { queue, clock } = setup();
    const request = makeRequest(clock);
    queue.record(request);
    queue.answer(request.id, "once");
    const others: Partial<ApprovalRequest>[] = [
      { inputDigest: "ef".repeat(32) },
      { scope: { kind: "chat", id: "chat-2" } },
      { scope: { kind: "job", id: "chat-1" } },
      { tool: "edit_skill" },
      { tier: "destructive" },
      { skill: "restore" },
      { hash: "ff".repeat(32) },
    ];
    for (const other of others) expect(queue.take({ ...retry(request), ...other })).toBeUndefined();
    const { inputDigest: _digest, ...withoutDigest } = retry(request);
    expect(queue.take(withoutDigest)).toBeUndefined();
    expect(queue.take(retry(request))).toBe("once");
  });

  it('"always" becomes always-chat in a chat and always-job in a job', () => {
    const { queue, clock } = setup();
    const chat = makeRequest(clock);
    const job = makeRequest(clock, {
      scope: { kind: "job", id: "nightly" },
      options: ["once", "always-job", "decline"],
    });
    queue.record(chat);
    queue.record(job);
    expect(queue.answer(chat.id, "always").answer).toBe("always-chat");
    expect(queue.answer(job.id, "always").answer).toBe("always-job");
    expect(queue.take(retry(job))).toBe("always-job");
    expect(queue.take(retry(chat))).toBe("always-chat");
  });

  it("a decline is taken like any answer: the next identical call is refused once", () => {
    const { queue, clock } = setup();
    const request = makeRequest(clock);
    queue.record(request);
    expect(queue.answer(request.id, "decline").answer).toBe("decline");
    expect(queue.take(retry(request))).toBe("decline");
    expect(queue.take(retry(request))).toBeUndefined();
  });

  it("refuses answers that were not offered, and unknown, answered and malformed ids, changing nothing", () => {
    const { queue, clock, folder } = setup();
    const edit = makeRequest(clock, { tool: "edit_skill", tier: "skill-edit", options: ["once", "decline"] });
    queue.record(edit);
    expect(codeOf(() => queue.answer(edit.id, "always"))).toBe("approval_answer_not_offered");
    expect(queue.pending()).toEqual([edit]);
    expect(codeOf(() => queue.answer(randomUUID(), "once"))).toBe("approval_not_found");
    queue.answer(edit.id, "once");
    expect(codeOf(() => queue.answer(edit.id, "decline"))).toBe("approval_already_answered");
    expect(queue.take(retry(edit))).toBe("once");
    // Used up: the request is gone.
    expect(codeOf(() => queue.answer(edit.id, "once"))).toBe("approval_not_found");
    const before = filesIn(folder);
    for (const id of [
      "",
      "../../etc/passwd",
      `${randomUUID()}/../x`,
      randomUUID().toUpperCase(),
      `${randomUUID()}.answer`,
      ` ${randomUUID()}`,
    ])
      expect(codeOf(() => queue.answer(id, "once"))).toBe("invalid_argument");
    expect(filesIn(folder)).toEqual(before);
  });

  it("refuses to record something that is not a request", () => {
    const { queue, clock, data } = setup();
    const bad = { ...makeRequest(clock), id: "../outside" };
    expect(codeOf(() => queue.record(bad))).toBe("invalid_argument");
    expect(codeOf(() => queue.record({ ...makeRequest(clock), options: [] }))).toBe("invalid_argument");
    expect(existsSync(data)).toBe(false);
  });

  it("stores only the documented fields of a request handed over in-process", () => {
    const { queue, clock } = setup();
    const request = makeRequest(clock);
    queue.record({ ...request, addedLater: "x" } as ApprovalRequest);
    expect(queue.pending()).toEqual([request]);
  });

  it("expires each request at its own expiresAt: dropped from the listing and from disk", () => {
    const { queue, clock, folder } = setup();
    const short = makeRequest(clock, { expiresAt: START + 1000 });
    clock.advance(10);
    const long = makeRequest(clock);
    queue.record(short);
    queue.record(long);
    clock.advance(989);
    expect(queue.pending().map((request) => request.id)).toEqual([short.id, long.id]);
    clock.advance(1);
    expect(queue.pending()).toEqual([long]);
    expect(filesIn(folder)).toEqual([`${long.id}.json`]);
  });

  it("an expired request cannot be answered, and an answer is not used after expiry", () => {
    const { queue, clock, folder } = setup();
    const late = makeRequest(clock);
    const unused = makeRequest(clock, { inputDigest: "12".repeat(32) });
    queue.record(late);
    queue.record(unused);
    queue.answer(unused.id, "once");
    clock.advance(TEN_MINUTES);
    expect(codeOf(() => queue.answer(late.id, "once"))).toBe("approval_expired");
    expect(queue.take(retry(unused))).toBeUndefined();
    expect(filesIn(folder)).toEqual([]);
  });

  it("another queue instance on the same folder sees the request, and the answer is taken once", () => {
    const { queue, clock, data } = setup();
    const other = ApprovalQueue.open({ dataFolder: data, clock });
    const request = makeRequest(clock);
    queue.record(request);
    expect(other.pending()).toEqual([request]);
    other.answer(request.id, "always");
    expect(queue.pending()).toEqual([]);
    expect(queue.take(retry(request))).toBe("always-chat");
    expect(other.take(retry(request))).toBeUndefined();
    expect(queue.take(retry(request))).toBeUndefined();
  });

  it("four processes racing to take forty answers: each answer is taken by exactly one", async () => {
    const { tree, data } = setup();
    const clock = new ManualClock(Date.now());
    const queue = ApprovalQueue.open({ dataFolder: data, clock });
    const requests = Array.from({ length: 40 }, (_, index) =>
      makeRequest(clock, { inputDigest: String(index).repeat(64) }),
    );
    for (const request of requests) {
      queue.record(request);
      queue.answer(request.id, "once");
    }
    const requestsFile = join(tree, "requests.json");
    writeFileSync(requestsFile, JSON.stringify(requests.map(retry)));
    const results = await raceChildren(4, [data, requestsFile]);
    for (const result of results) expect(result.stderr).toBe("");
    const answers = results.map((result) => JSON.parse(result.stdout.replace(/^ready\n/, "")) as unknown[]);
    for (let index = 0; index < requests.length; index += 1)
      expect(answers.map((each) => each[index]).filter((answer) => answer === "once")).toHaveLength(1);
    expect(filesIn(join(data, APPROVALS_FOLDER))).toEqual([]);
  });
});

describe("the deferred approver", () => {
  it("defers a new call, reuses the waiting request on a retry, then gives the owner's answer once", async () => {
    const { queue, clock } = setup();
    const approve = queue.deferredApprover();
    const first = makeRequest(clock);
    expect(await approve(first)).toBe("deferred");
    expect(await approve(retry(first))).toEqual({ deferred: first.id });
    expect(queue.pending()).toEqual([first]);
    queue.answer(first.id, "once");
    expect(await approve(retry(first))).toBe("once");
    const again = retry(first);
    expect(await approve(again)).toBe("deferred");
    expect(queue.pending()).toEqual([again]);
  });

  it("a call with other input waits as its own request", async () => {
    const { queue, clock } = setup();
    const approve = queue.deferredApprover();
    const first = makeRequest(clock);
    const other = makeRequest(clock, { inputDigest: "99".repeat(32) });
    expect(await approve(first)).toBe("deferred");
    expect(await approve(other)).toBe("deferred");
    expect(queue.pending()).toHaveLength(2);
  });
});

/** A valid request file's text for `request`. */
function requestFile(request: ApprovalRequest): string {
  return JSON.stringify({ format: 1, request });
}

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

  it("a FIFO named like a request does not block the queue", () => {
    const { queue, clock, folder } = setup();
    queue.record(makeRequest(clock));
    const id = randomUUID();
    const made = makeFifo(join(folder, `${id}.json`));
    if (!made) return;
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

/** Makes a FIFO with the system's `mkfifo`; false where there is none (the test then has nothing to check). */
function makeFifo(path: string): boolean {
  return spawnSync("mkfifo", [path]).status === 0;
}

const taker = fileURLToPath(new URL("./approval-queue-taker.ts", import.meta.url));
const repositoryRoot = fileURLToPath(new URL("../..", import.meta.url));

/** Starts `count` taker processes, releases them together once all are ready, and collects their output. */
async function raceChildren(
  count: number,
  argumentsList: readonly string[],
): Promise<{ code: number | null; stdout: string; stderr: string }[]> {
  const children = Array.from({ length: count }, () => {
    const child = spawn(process.execPath, ["--import", "tsx", taker, ...argumentsList], {
      cwd: repositoryRoot,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let markReady: () => void = () => {};
    const ready = new Promise<void>((resolve) => {
      markReady = resolve;
    });
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      if (stdout.startsWith("ready\n")) markReady();
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const result = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      child.on("error", reject);
      child.on("close", (code) => {
        markReady();
        resolve({ code, stdout, stderr });
      });
    });
    return { child, ready, result };
  });
  await Promise.all(children.map((each) => each.ready));
  for (const each of children) each.child.stdin.end("go\n");
  return Promise.all(children.map((each) => each.result));
}
