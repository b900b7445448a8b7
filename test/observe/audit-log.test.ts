import { spawnSync } from "node:child_process";
import {
  appendFileSync,
  existsSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ManualClock } from "../../src/core/clock.js";
import { AUDIT_FIELDS } from "../../src/observe/audit-line.js";
import { AUDIT_IDLE_CLOSE_MS, AuditLog } from "../../src/observe/audit-log.js";
import { rotatedName } from "../../src/observe/audit-read.js";
import type { AuditEvent } from "../../src/observe/events.js";
import { makeTree } from "../helpers/skill-tree.js";
import { runTogether } from "./children/run-child.js";

/** A finished call in chat `c1`, with `overrides`. */
function event(overrides: Partial<AuditEvent> = {}): AuditEvent {
  return {
    type: "tool-call-finished",
    time: "2026-01-02T03:04:05.000Z",
    requestId: "r1",
    scope: { kind: "chat", id: "c1" },
    tool: "run_skill_script",
    tier: "change",
    skill: "disk-usage",
    hash8: "0123abcd",
    rule: "ask-change",
    decision: "ask",
    status: "ok",
    latencyMs: 12,
    ...overrides,
  };
}

function lines(file: string): string[] {
  return readFileSync(file, "utf8").split("\n").slice(0, -1);
}

/** How many descriptors this process holds open on `file` (Linux: /proc/self/fd). */
function openDescriptors(file: string): number {
  return readdirSync("/proc/self/fd").filter((name) => {
    try {
      return readlinkSync(join("/proc/self/fd", name)) === file;
    } catch {
      return false;
    }
  }).length;
}

afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

describe("AuditLog", () => {
  it("creates its folder on the first write and appends one JSON line per event", () => {
    const data = join(makeTree("skillgate-audit-"), "data");
    const log = new AuditLog({ dataFolder: data });
    expect(existsSync(log.folder)).toBe(false);
    const first = event({ requestId: "r1" });
    const { status: _, latencyMs: __, ...decided } = event({ requestId: "r2", type: "policy-decided" });
    log.record(first);
    log.record(decided);
    expect(log.file).toBe(join(data, "audit", "audit.jsonl"));
    expect(lines(log.file).map((line) => JSON.parse(line))).toEqual([first, decided]);
    expect(Object.keys(JSON.parse(lines(log.file)[0] ?? "{}"))[0]).toBe("type");
    expect(log.query()).toEqual([first, decided]);
  });

  it("a full call's events never carry the arguments or the output, whatever the caller's objects hold", () => {
    const data = makeTree("skillgate-audit-");
    const log = new AuditLog({ dataFolder: data });
    const secret = "hunter2-5f8e2c-correct-horse";
    // A careless producer spreads its whole call context into each event.
    const call = {
      requestId: "r-secret",
      scope: { kind: "chat" as const, id: "c9", arguments: { password: secret } },
      tool: "run_skill_script",
      tier: "destructive" as const,
      skill: "rotate-keys",
      hash8: "deadbeef",
      arguments: { password: secret, node: "homelab01" },
      output: `rotated; old key was ${secret}`,
      message: `failed with ${secret}`,
      // A value of the wrong type whose text would be the secret.
      errorKind: { toString: () => secret },
    };
    const time = "2026-01-02T03:04:05.000Z";
    const events = [
      { ...call, type: "tool-call-classified", time },
      { ...call, type: "policy-decided", time, rule: "ask-destructive", decision: "ask" },
      { ...call, type: "approval-requested", time, rule: "ask-destructive", decision: "ask" },
      { ...call, type: "approval-answered", time, answer: "once" },
      {
        ...call,
        type: "tool-call-finished",
        time,
        status: "failed",
        latencyMs: 40,
        errorKind: "ScriptFailed",
      },
    ] as unknown as AuditEvent[];
    for (const each of events) log.record(each);
    const text = readFileSync(log.file, "utf8");
    expect(text).not.toContain(secret);
    expect(text).not.toContain("hunter2");
    expect(text).not.toContain("homelab01");
    const written = lines(log.file).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(written.map((line) => line.type)).toEqual(events.map((each) => each.type));
    for (const line of written) {
      for (const key of Object.keys(line)) expect(AUDIT_FIELDS).toContain(key);
      expect(Object.keys(line.scope as object)).toEqual(["kind", "id"]);
    }
  });

  it("query filters by chat, job, skill, tool, type, request and time, and keeps the newest with a limit", () => {
    const log = new AuditLog({ dataFolder: makeTree("skillgate-audit-") });
    const all = [
      event({ requestId: "a", time: "2026-01-01T00:00:00.000Z" }),
      event({ requestId: "b", time: "2026-01-02T00:00:00.000Z", scope: { kind: "job", id: "c1" } }),
      event({ requestId: "c", time: "2026-01-03T00:00:00.000Z", skill: "other", tool: "load_skill" }),
      event({ requestId: "d", time: "2026-01-04T00:00:00.000Z", scope: { kind: "chat", id: "c2" } }),
      event({ requestId: "e", time: "2026-01-05T00:00:00.000Z", type: "policy-decided" }),
    ];
    for (const each of all) log.record(each);
    const ids = (events: AuditEvent[]) => events.map((each) => each.requestId).join("");
    expect(ids(log.query())).toBe("abcde");
    expect(ids(log.query({ chat: "c1" }))).toBe("ace");
    expect(ids(log.query({ job: "c1" }))).toBe("b");
    expect(ids(log.query({ skill: "other" }))).toBe("c");
    expect(ids(log.query({ tool: "run_skill_script" }))).toBe("abde");
    expect(ids(log.query({ type: "policy-decided" }))).toBe("e");
    expect(ids(log.query({ requestId: "d" }))).toBe("d");
    expect(ids(log.query({ since: "2026-01-03T00:00:00.000Z" }))).toBe("cde");
    expect(ids(log.query({ since: new Date("2026-01-04T00:00:00.000Z") }))).toBe("de");
    expect(ids(log.query({ since: Date.parse("2026-01-05T00:00:00.000Z") }))).toBe("e");
    expect(ids(log.query({ limit: 2 }))).toBe("de");
    expect(ids(log.query({ chat: "c1", limit: 2 }))).toBe("ce");
    expect(ids(log.query({ chat: "nobody" }))).toBe("");
  });

  it.each([
    [{ limit: 0 }, "limit"],
    [{ limit: 1.5 }, "limit"],
    [{ since: "yesterday" }, "since"],
  ])("query refuses %j with invalid_argument", (query, argument) => {
    const log = new AuditLog({ dataFolder: makeTree("skillgate-audit-") });
    expect(() => log.query(query)).toThrow(
      expect.objectContaining({ code: "invalid_argument", data: { argument } }),
    );
  });

  it("a query of a folder never written is empty and creates nothing", () => {
    const data = join(makeTree("skillgate-audit-"), "data");
    expect(new AuditLog({ dataFolder: data }).query()).toEqual([]);
    expect(existsSync(data)).toBe(false);
  });

  it("rotates past the size to audit-<time>.jsonl, and query reads every file in order", () => {
    const clock = new ManualClock(Date.parse("2026-03-04T05:06:07.089Z"));
    const line = `${JSON.stringify(event({ requestId: "r000" }))}\n`;
    const log = new AuditLog({ dataFolder: makeTree("skillgate-audit-"), maxBytes: line.length * 3, clock });
    for (let index = 0; index < 10; index += 1)
      log.record(event({ requestId: `r${String(index).padStart(3, "0")}` }));
    const names = readdirSync(log.folder).sort();
    // Three rotations within one millisecond: suffixes keep them apart, and in order.
    expect(names).toEqual([
      "audit-2026-03-04T05-06-07.089Z-1.jsonl",
      "audit-2026-03-04T05-06-07.089Z-2.jsonl",
      "audit-2026-03-04T05-06-07.089Z.jsonl",
      "audit.jsonl",
    ]);
    for (const name of names)
      expect(statSync(join(log.folder, name)).size).toBeLessThanOrEqual(line.length * 3);
    expect(lines(join(log.folder, "audit-2026-03-04T05-06-07.089Z.jsonl"))).toHaveLength(3);
    expect(lines(log.file)).toHaveLength(1);
    expect(log.query().map((each) => each.requestId)).toEqual(
      Array.from({ length: 10 }, (_, index) => `r${String(index).padStart(3, "0")}`),
    );
    expect(log.query({ limit: 4 }).map((each) => each.requestId)).toEqual(["r006", "r007", "r008", "r009"]);
  });

  it.each([
    ["left by an ended process: taken over at once", () => spawnSync("true").pid ?? 0, true],
    ["held by a live process (this one): rotation waits", () => process.pid, false],
  ])("a rotation lock %s", (_label, holder, rotates) => {
    const line = `${JSON.stringify(event({ requestId: "r000" }))}\n`;
    const log = new AuditLog({ dataFolder: makeTree("skillgate-audit-"), maxBytes: line.length * 2 });
    log.record(event({ requestId: "r000" }));
    const lock = join(log.folder, "audit.rotate.lock");
    writeFileSync(lock, `${holder()} ${hostname()} ${readlinkSync("/proc/self/ns/pid")} 0123456789abcdef\n`);
    log.record(event({ requestId: "r001" }));
    log.record(event({ requestId: "r002" }));
    log.close();
    const rotated = readdirSync(log.folder).filter((name) => name.startsWith("audit-"));
    expect(rotated.length > 0).toBe(rotates);
    expect(existsSync(lock)).toBe(!rotates);
    expect(log.query().map((each) => each.requestId)).toEqual(["r000", "r001", "r002"]);
  });

  it.each([
    ["inside a string", '{"type":"tool-call-finished","time":"2026-01-0'],
    ["after a key", '{"type":"tool-call-finished","requestId"'],
    ["after an escaped quote", '{"type":"tool-call-finished","skill":"a\\"{\\"type\\":\\"'],
    ["at the start", "{"],
  ])("skips a torn last line (cut %s) and recovers the event appended to it", (_, torn) => {
    const log = new AuditLog({ dataFolder: makeTree("skillgate-audit-") });
    log.record(event({ requestId: "r1" }));
    appendFileSync(log.file, torn);
    expect(log.query().map((each) => each.requestId)).toEqual(["r1"]);
    log.record(event({ requestId: "r2" }));
    log.record(event({ requestId: "r3" }));
    expect(lines(log.file)).toHaveLength(3);
    expect(lines(log.file)[1]?.startsWith(torn)).toBe(true);
    expect(log.query().map((each) => each.requestId)).toEqual(["r1", "r2", "r3"]);
  });

  it("writes to the current file after another process rotated it or someone removed it", () => {
    const data = makeTree("skillgate-audit-");
    const log = new AuditLog({ dataFolder: data });
    log.record(event({ requestId: "r1" }));
    // What another process's rotation does: the file held open is renamed away.
    const rotated = join(log.folder, rotatedName(Date.parse("2026-01-01T00:00:00Z"), 0));
    renameSync(log.file, rotated);
    log.record(event({ requestId: "r2" }));
    expect(lines(rotated).map((line) => JSON.parse(line).requestId)).toEqual(["r1"]);
    expect(lines(log.file).map((line) => JSON.parse(line).requestId)).toEqual(["r2"]);
    rmSync(log.file);
    log.record(event({ requestId: "r3" }));
    expect(lines(log.file).map((line) => JSON.parse(line).requestId)).toEqual(["r3"]);
    expect(log.query().map((each) => each.requestId)).toEqual(["r1", "r3"]);
    expect(log.droppedEvents).toBe(0);
    log.close();
  });

  it("keeps one descriptor open between events and lets it go on close() and after the idle time", () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
    const data = makeTree("skillgate-audit-");
    const log = new AuditLog({ dataFolder: data });
    log.record(event({ requestId: "r1" }));
    log.record(event({ requestId: "r2" }));
    expect(openDescriptors(log.file)).toBe(1);
    log.close();
    expect(openDescriptors(log.file)).toBe(0);
    log.record(event({ requestId: "r3" }));
    expect(openDescriptors(log.file)).toBe(1);
    // An event within the idle time keeps the file open for another idle time from then.
    vi.advanceTimersByTime(AUDIT_IDLE_CLOSE_MS - 1_000);
    log.record(event({ requestId: "r4" }));
    vi.advanceTimersByTime(AUDIT_IDLE_CLOSE_MS - 1_000);
    expect(openDescriptors(log.file)).toBe(1);
    vi.advanceTimersByTime(1_000);
    expect(openDescriptors(log.file)).toBe(0);
    log.record(event({ requestId: "r5" }));
    expect(log.query().map((each) => each.requestId)).toEqual(["r1", "r2", "r3", "r4", "r5"]);
    log.close();
  });

  it("skips lines that are not events: foreign JSON, a wrong scope, text", () => {
    const log = new AuditLog({ dataFolder: makeTree("skillgate-audit-") });
    log.record(event({ requestId: "r1" }));
    appendFileSync(
      log.file,
      [
        "not json",
        "[1,2]",
        JSON.stringify({ ...event(), scope: { kind: "team", id: "x" } }),
        JSON.stringify({ ...event(), requestId: 7 }),
        "",
      ].join("\n"),
    );
    log.record(event({ requestId: "r2" }));
    expect(log.query().map((each) => each.requestId)).toEqual(["r1", "r2"]);
  });

  it("never throws on a failed write: onError hears once until a write succeeds, then again", () => {
    const tree = makeTree("skillgate-audit-");
    const data = join(tree, "data");
    writeFileSync(data, "a file where the data folder should be");
    const errors: unknown[] = [];
    const log = new AuditLog({ dataFolder: data, onError: (error) => errors.push(error) });
    expect(() => log.record(event())).not.toThrow();
    log.record(event());
    expect(errors).toHaveLength(1);
    expect((errors[0] as NodeJS.ErrnoException).code).toMatch(/^(ENOTDIR|EEXIST)$/);
    expect(log.droppedEvents).toBe(2);
    const working = new AuditLog({ dataFolder: tree });
    working.record(event());
    expect(working.query()).toHaveLength(1);
  });

  it("reports again after a success, and an onError that throws does not escape", () => {
    const data = makeTree("skillgate-audit-");
    let reports = 0;
    const log = new AuditLog({
      dataFolder: data,
      onError: () => {
        reports += 1;
        throw new Error("reporter broke");
      },
    });
    const broken = {
      ...event(),
      get requestId(): string {
        throw new Error("a getter that throws");
      },
    } as AuditEvent;
    expect(() => log.record(broken)).not.toThrow();
    log.record(event());
    expect(() => log.record(broken)).not.toThrow();
    expect(reports).toBe(2);
    expect(log.droppedEvents).toBe(2);
    expect(log.query()).toHaveLength(1);
  });

  it("the default onError writes one line on stderr", () => {
    const tree = makeTree("skillgate-audit-");
    writeFileSync(join(tree, "data"), "");
    const written: string[] = [];
    vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    const log = new AuditLog({ dataFolder: join(tree, "data") });
    log.record(event());
    log.record(event());
    expect(written).toHaveLength(1);
    expect(written[0]).toMatch(/^skillgate: audit events are not being written to .+\n$/);
    expect(written[0]?.slice(0, -1)).not.toContain("\n");
  });

  it.each([
    ["without rotation", 2_000, 1024 * 1024 * 1024],
    ["while rotating", 1_500, 64 * 1024],
  ])(
    "two processes appending at once never interleave a line or lose one (%s)",
    async (_, count, maxBytes) => {
      const data = makeTree("skillgate-audit-");
      const results = await runTogether(
        ["alpha", "omega"].map((tag) => ({
          script: "audit-writer.ts",
          arguments: [data, tag, String(count), String(maxBytes)],
        })),
      );
      for (const result of results)
        expect(result).toMatchObject({ code: 0, stdout: "ready\ndone\n", stderr: "" });
      const log = new AuditLog({ dataFolder: data });
      const files = readdirSync(log.folder).filter((name) => name.endsWith(".jsonl"));
      if (maxBytes < 1024 * 1024) expect(files.length).toBeGreaterThan(2);
      else expect(files).toEqual(["audit.jsonl"]);
      let total = 0;
      for (const name of files) {
        for (const line of lines(join(log.folder, name))) {
          total += 1;
          const parsed = JSON.parse(line) as AuditEvent;
          const tag = parsed.requestId.split("-")[0] ?? "";
          expect(parsed.errorKind).toBe((tag[0] ?? "?").repeat(200));
        }
      }
      expect(total).toBe(2 * count);
      const events = log.query();
      for (const tag of ["alpha", "omega"]) {
        // Each writer's own events stay in the order it wrote them, across rotations.
        expect(events.filter((each) => each.scope.id === tag).map((each) => each.requestId)).toEqual(
          Array.from({ length: count }, (_, index) => `${tag}-${index}`),
        );
      }
    },
  );
});
