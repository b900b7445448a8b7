import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AuditLog } from "../../../src/observe/audit-log.js";
import type { AuditEvent } from "../../../src/observe/events.js";
import { cliSandbox, hasStackTrace } from "./harness.js";

const base = {
  requestId: "r1",
  scope: { kind: "chat", id: "c1" },
  tool: "run_skill_script",
  tier: "change",
  skill: "disk-usage",
  hash8: "0123abcd",
} as const;

/** One call in chat c1 (asked, approved once, finished), a load in job nightly, a denial in c2. */
const EVENTS: AuditEvent[] = [
  { ...base, type: "tool-call-classified", time: "2026-01-02T03:04:05.000Z" },
  { ...base, type: "policy-decided", time: "2026-01-02T03:04:05.001Z", rule: "ask-change", decision: "ask" },
  { ...base, type: "approval-answered", time: "2026-01-02T03:04:09.000Z", answer: "once" },
  {
    ...base,
    type: "tool-call-finished",
    time: "2026-01-02T03:04:10.000Z",
    rule: "ask-change",
    decision: "ask",
    status: "ok",
    latencyMs: 812,
  },
  {
    type: "tool-call-finished",
    time: "2026-01-03T00:00:00.000Z",
    requestId: "r2",
    scope: { kind: "job", id: "nightly" },
    tool: "load_skill",
    tier: "read",
    skill: "backup",
    rule: "allow-read",
    decision: "allow",
    status: "ok",
    latencyMs: 3,
  },
  {
    type: "tool-call-finished",
    time: "2026-01-04T00:00:00.000Z",
    requestId: "r3",
    scope: { kind: "chat", id: "c2" },
    tool: "edit_skill",
    tier: "skill-edit",
    skill: "backup",
    rule: "skill-edit-chats-only",
    decision: "deny",
    status: "denied",
    errorKind: "policy_denied",
  },
];

function sandboxWithEvents(events: readonly AuditEvent[] = EVENTS) {
  const sandbox = cliSandbox();
  const log = new AuditLog({ dataFolder: sandbox.data });
  for (const event of events) log.record(event);
  return { sandbox, log };
}

/** The request ids of `audit --json`'s one array. */
function requestIds(json: string): string[] {
  return (JSON.parse(json) as AuditEvent[]).map((event) => event.requestId);
}

describe("skillgate audit", () => {
  it("shows the capability plane's lines: the skill id, a decision's registration, a reload's step", async () => {
    const plane = {
      scope: { kind: "job", id: "capability-plane" },
      tool: "capability-plane",
      tier: "read",
    } as const;
    const reload = { scope: { kind: "job", id: "hot-reload" }, tool: "hot-reload", tier: "read" } as const;
    const { sandbox } = sandboxWithEvents([
      {
        ...plane,
        type: "/skill/registration/decided",
        time: "2026-01-02T03:04:05.000Z",
        requestId: "decided:hello-skill",
        skillId: "hello-skill",
        registration: "registered",
        reasons: "registered",
      },
      {
        ...reload,
        type: "capability-reload-step",
        time: "2026-01-02T03:04:06.000Z",
        requestId: "reload:hello-skill:2",
        skillId: "hello-skill",
        generation: 2,
        reloadStep: "health_check",
      },
    ]);
    const result = await sandbox.run(["audit"]);
    expect(result).toMatchObject({ code: 0, err: "" });
    const rows = result.out
      .trimEnd()
      .split("\n")
      .slice(1)
      .map((line) => line.split(/\s{2,}/));
    expect(rows).toEqual([
      [
        "2026-01-02T03:04:05.000Z",
        "cap-decided",
        "job:capability-plane",
        "capability-plane",
        "hello-skill",
        "-",
        "read",
        "-",
        "-",
        "registered",
        "-",
      ],
      [
        "2026-01-02T03:04:06.000Z",
        "reload-step",
        "job:hot-reload",
        "hot-reload",
        "hello-skill",
        "-",
        "read",
        "health_check",
        "-",
        "-",
        "-",
      ],
    ]);
  });

  it("prints a table, oldest first, with the call's columns", async () => {
    const { sandbox } = sandboxWithEvents();
    const result = await sandbox.run(["audit", "--chat", "c1"]);
    expect(result).toMatchObject({ code: 0, err: "" });
    const lines = result.out.trimEnd().split("\n");
    expect(lines[0]?.split(/\s+/)).toEqual([
      "TIME",
      "EVENT",
      "SCOPE",
      "TOOL",
      "SKILL",
      "HASH8",
      "TIER",
      "RULE",
      "DECISION",
      "STATUS",
      "LATENCY",
    ]);
    expect(lines.slice(1).map((line) => line.split(/\s{2,}/))).toEqual([
      [
        "2026-01-02T03:04:05.000Z",
        "classified",
        "chat:c1",
        "run_skill_script",
        "disk-usage",
        "0123abcd",
        "change",
        "-",
        "-",
        "-",
        "-",
      ],
      [
        "2026-01-02T03:04:05.001Z",
        "decided",
        "chat:c1",
        "run_skill_script",
        "disk-usage",
        "0123abcd",
        "change",
        "ask-change",
        "ask",
        "-",
        "-",
      ],
      [
        "2026-01-02T03:04:09.000Z",
        "answered",
        "chat:c1",
        "run_skill_script",
        "disk-usage",
        "0123abcd",
        "change",
        "-",
        "-",
        "answer:once",
        "-",
      ],
      [
        "2026-01-02T03:04:10.000Z",
        "finished",
        "chat:c1",
        "run_skill_script",
        "disk-usage",
        "0123abcd",
        "change",
        "ask-change",
        "ask",
        "ok",
        "812 ms",
      ],
    ]);
  });

  it("--json prints one JSON array, as every other --json does", async () => {
    const { sandbox } = sandboxWithEvents();
    const result = await sandbox.run(["audit", "--json"]);
    expect(result).toMatchObject({ code: 0, err: "" });
    expect(JSON.parse(result.out)).toEqual(EVENTS);
    expect(result.out.startsWith("[")).toBe(true);
  });

  it("--jsonl prints JSON lines, the same as the file holds; not with --json", async () => {
    const { sandbox, log } = sandboxWithEvents();
    const result = await sandbox.run(["audit", "--jsonl"]);
    expect(result).toMatchObject({ code: 0, err: "" });
    expect(
      result.out
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line)),
    ).toEqual(EVENTS);
    expect(result.out).toBe(readFileSync(log.file, "utf8"));
    expect((await sandbox.run(["audit", "--json", "--jsonl"])).code).toBe(2);
  });

  it.each([
    [
      ["--chat", "c1"],
      ["r1", "r1", "r1", "r1"],
    ],
    [["--job", "nightly"], ["r2"]],
    [
      ["--skill", "backup"],
      ["r2", "r3"],
    ],
    [["--tool", "edit_skill"], ["r3"]],
    [["--skill", "backup", "--tool", "load_skill"], ["r2"]],
    [
      ["--since", "2026-01-03"],
      ["r2", "r3"],
    ],
    [
      ["--since", "2026-01-02T03:04:09Z"],
      ["r1", "r1", "r2", "r3"],
    ],
    [
      ["--limit", "2"],
      ["r2", "r3"],
    ],
    [["--chat", "nobody"], []],
  ])("filters %j", async (flags, expected) => {
    const { sandbox } = sandboxWithEvents();
    const result = await sandbox.run(["audit", "--json", ...flags]);
    expect(result).toMatchObject({ code: 0, err: "" });
    expect(requestIds(result.out)).toEqual(expected);
  });

  it("the table shows the newest 50 unless --limit says otherwise; --json shows all", async () => {
    const events = Array.from({ length: 60 }, (_, index) => ({
      ...(EVENTS[0] as AuditEvent),
      requestId: `r${index}`,
    }));
    const { sandbox } = sandboxWithEvents(events);
    const table = await sandbox.run(["audit"]);
    expect(table.out.trimEnd().split("\n")).toHaveLength(51);
    expect((await sandbox.run(["audit", "--limit", "55"])).out.trimEnd().split("\n")).toHaveLength(56);
    expect(requestIds((await sandbox.run(["audit", "--json"])).out)).toHaveLength(60);
  });

  it("says so when nothing matches, and when nothing was ever recorded", async () => {
    const sandbox = cliSandbox();
    expect(await sandbox.run(["audit"])).toEqual({ code: 0, out: "No audit events match.\n", err: "" });
    expect(await sandbox.run(["audit", "--json"])).toEqual({ code: 0, out: "[]\n", err: "" });
    expect(await sandbox.run(["audit", "--jsonl"])).toEqual({ code: 0, out: "", err: "" });
  });

  it("skips a torn line and shows control characters in ids escaped", async () => {
    const { sandbox, log } = sandboxWithEvents([
      { ...(EVENTS[4] as AuditEvent), scope: { kind: "chat", id: "evil\u001b[2J\nid" } },
    ]);
    appendFileSync(log.file, '{"type":"tool-call-fini');
    const result = await sandbox.run(["audit"]);
    expect(result.code).toBe(0);
    expect(result.out).toContain("chat:evil\\x1b[2J\\x0aid");
    expect(result.out).not.toContain("\u001b");
    expect(result.out.trimEnd().split("\n")).toHaveLength(2);
  });

  it.each([
    [["--limit", "0"], '--limit takes a whole number above 0 (got "0").'],
    [
      ["--since", "yesterday"],
      '--since takes an ISO date and time such as 2026-01-02T03:04:05Z (got "yesterday").',
    ],
    [
      ["--since", "2026-13-45"],
      '--since takes an ISO date and time such as 2026-01-02T03:04:05Z (got "2026-13-45").',
    ],
    [["--chat", "c1", "--job", "j1"], "option '--job <id>' cannot be used with option '--chat <id>'"],
    [["--bogus"], "unknown option '--bogus'"],
  ])("%j is a usage error: exit 2, one line", async (flags, message) => {
    const result = await cliSandbox().run(["audit", ...flags]);
    expect(result.code).toBe(2);
    expect(result.out).toBe("");
    expect(result.err).toContain(message);
    expect(result.err.startsWith("skillgate: ")).toBe(true);
    expect(result.err.slice(0, -1)).not.toContain("\n");
    expect(hasStackTrace(result.err)).toBe(false);
  });

  it("an unreadable audit folder is one line and exit 1", async () => {
    const sandbox = cliSandbox();
    mkdirSync(sandbox.data, { recursive: true });
    writeFileSync(join(sandbox.data, "audit"), "a file, not a folder");
    const result = await sandbox.run(["audit"]);
    expect(result.code).toBe(1);
    expect(result.out).toBe("");
    expect(result.err).toMatch(/^skillgate: cannot read the audit log at .+ \[io_error\]\n$/);
    expect(result.err.slice(0, -1)).not.toContain("\n");
  });
});
