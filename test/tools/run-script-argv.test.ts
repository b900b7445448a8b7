import { cpSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createCatalog } from "../../src/catalog/catalog.js";
import { parseAuditLine, serialiseAuditEvent } from "../../src/observe/audit-line.js";
import { type AuditEvent, MAX_AUDIT_ARGV_ITEMS } from "../../src/observe/events.js";
import type { ApprovalAnswer, ApprovalRequest } from "../../src/policy/approvals.js";
import { FakeRunner } from "../../src/testing/fake-runner.js";
import { Broker } from "../../src/tools/broker.js";
import { createTurn } from "../../src/tools/turn.js";
import { isolatedFolders, makeTree, writeSkill } from "../helpers/skill-tree.js";

/** A turn over three skills: `convert` (change tier: asks), `peek` (read) and `strict` (a declared schema). */
function setup(answers: ApprovalAnswer[] = []) {
  const tree = makeTree();
  const project = join(tree, "project");
  const skills = join(project, ".agents", "skills");
  writeSkill(skills, "convert", {
    frontMatter: { description: "Convert a file.", metadata: { "skillgate.tier": "change" } },
    files: { "scripts/convert.py": "print('ok')\n" },
  });
  writeSkill(skills, "peek", {
    frontMatter: { description: "Peek at a file.", metadata: { "skillgate.tier": "read" } },
    files: { "scripts/peek.py": "print('ok')\n" },
  });
  writeSkill(skills, "strict", {
    frontMatter: {
      description: "A closed schema and one that takes argv.",
      metadata: {
        "skillgate.tier": "read",
        parameters_schema: JSON.stringify({
          "scripts/closed.py": {
            type: "object",
            properties: { q: { type: "string" } },
            additionalProperties: false,
          },
          "scripts/paths.py": {
            type: "object",
            properties: { argv: { type: "array", items: { type: "string" }, minItems: 1 } },
            required: ["argv"],
          },
        }),
      },
    },
    files: { "scripts/closed.py": "print(1)\n", "scripts/paths.py": "print(2)\n" },
  });
  const catalog = createCatalog({ ...isolatedFolders(tree), roots: [project], builtins: false });
  const asked: ApprovalRequest[] = [];
  const events: AuditEvent[] = [];
  const runner = new FakeRunner();
  const broker = new Broker({
    approve: async (request) => {
      asked.push(request);
      return answers.shift() ?? "decline";
    },
    audit: { record: (event) => events.push(event) },
  });
  const turn = createTurn({ discover: () => catalog.discover(), broker, runner }, { chatId: "chat-1" });
  return { turn, runner, asked, events };
}

describe("run_skill_script with argv", () => {
  it("takes argv out of the arguments: the runner gets it as argv, the script's JSON is the rest", async () => {
    const { turn, runner } = setup();
    const answer = await turn.call("run_skill_script", {
      skill: "peek",
      script: "scripts/peek.py",
      arguments: { argv: ["in.pdf", "--pages", "2"], mode: "fast" },
    });
    expect(answer.status).toBe("ok");
    expect(runner.requests).toHaveLength(1);
    expect(runner.requests[0]?.argv).toEqual(["in.pdf", "--pages", "2"]);
    expect(runner.requests[0]?.arguments).toEqual({ mode: "fast" });
  });

  it("arguments sent as text carry argv the same way; without argv the request has none", async () => {
    const { turn, runner } = setup();
    await turn.call("run_skill_script", {
      skill: "peek",
      script: "scripts/peek.py",
      arguments: '{"argv":["a b"]}',
    });
    await turn.call("run_skill_script", { skill: "peek", script: "scripts/peek.py", arguments: { n: 1 } });
    expect(runner.requests.map((request) => [request.argv, request.arguments])).toEqual([
      [["a b"], {}],
      [undefined, { n: 1 }],
    ]);
  });

  it("the person is asked with the argv in the summary, and the audit's classified event lists it", async () => {
    const { turn, runner, asked, events } = setup(["once"]);
    const answer = await turn.call("run_skill_script", {
      skill: "convert",
      script: "scripts/convert.py",
      arguments: { argv: ["my file.pdf", "--to", "png"], secret: "not shown" },
    });
    expect(answer.status).toBe("ok");
    expect(asked).toHaveLength(1);
    expect(asked[0]?.summary).toBe(
      'run scripts/convert.py of convert (sandbox) with argv ["my file.pdf","--to","png"]',
    );
    expect(asked[0]?.summary).not.toContain("not shown");
    const classified = events.filter((event) => event.type === "tool-call-classified");
    expect(classified.map((event) => event.argv)).toEqual([["my file.pdf", "--to", "png"]]);
    expect(
      events.filter((event) => event.type !== "tool-call-classified").every((e) => e.argv === undefined),
    ).toBe(true);
    expect(runner.requests[0]?.argv).toEqual(["my file.pdf", "--to", "png"]);
  });

  it("an answer given out of band binds the argv: its input digest differs for another argv", async () => {
    const { turn, asked } = setup(["decline", "decline", "decline"]);
    for (const argv of [["a.pdf"], ["a.pdf"], ["b.pdf"]])
      await turn.call("run_skill_script", {
        skill: "convert",
        script: "scripts/convert.py",
        arguments: { argv },
      });
    const digests = asked.map((request) => request.inputDigest);
    expect(digests[0]).toMatch(/^[0-9a-f]{64}$/);
    expect(digests[1]).toBe(digests[0]);
    expect(digests[2]).not.toBe(digests[0]);
  });

  it("a declined run with argv passes nothing to the runner", async () => {
    const { turn, runner } = setup(["decline"]);
    const answer = await turn.call("run_skill_script", {
      skill: "convert",
      script: "scripts/convert.py",
      arguments: { argv: ["x"] },
    });
    expect(answer.status).toBe("declined");
    expect(runner.requests).toHaveLength(0);
  });

  it("a hostile argv is refused with its code as the audit's errorKind, and nothing runs", async () => {
    const { turn, runner, events } = setup();
    const table: Array<[unknown, string]> = [
      ["one string", "argv_not_list"],
      [[1], "argv_not_text"],
      [["a\u0000b"], "argv_nul"],
      [Array.from({ length: 300 }, () => "x"), "argv_too_many"],
      [["x".repeat(33 * 1024)], "argv_too_long"],
    ];
    for (const [argv, code] of table) {
      const answer = await turn.call("run_skill_script", {
        skill: "peek",
        script: "scripts/peek.py",
        arguments: { argv },
      });
      expect(answer.status).toBe("refused");
      expect(answer.text).toMatch(new RegExp(`^HOST: arguments\\.argv.* \\[${code}\\]$`));
    }
    const bare = await turn.call("run_skill_script", {
      skill: "peek",
      script: "scripts/peek.py",
      arguments: ["in.pdf"],
    });
    expect(bare.status).toBe("refused");
    expect(bare.text).toContain('{"argv": ["input.pdf"]}');
    expect(runner.requests).toHaveLength(0);
    const kinds = events
      .filter((event) => event.type === "tool-call-finished")
      .map((event) => event.errorKind);
    expect(kinds).toEqual([...table.map(([, code]) => code), "invalid_input"]);
  });

  it("a declared schema is taken as written: a closed one refuses argv, one that requires it gets it", async () => {
    const { turn, runner } = setup();
    const closed = await turn.call("run_skill_script", {
      skill: "strict",
      script: "scripts/closed.py",
      arguments: { argv: ["x"] },
    });
    expect(closed.status).toBe("refused");
    expect(closed.text).toMatch(/^HOST: arguments/);
    const missing = await turn.call("run_skill_script", {
      skill: "strict",
      script: "scripts/paths.py",
      arguments: {},
    });
    expect(missing.status).toBe("refused");
    expect(missing.text).toContain("argv");
    const given = await turn.call("run_skill_script", {
      skill: "strict",
      script: "scripts/paths.py",
      arguments: { argv: ["a.txt"] },
    });
    expect(given.status).toBe("ok");
    expect(runner.requests.map((request) => request.argv)).toEqual([["a.txt"]]);
  });

  it("the advertised input schema shows argv inside arguments, and load_skill's default schemas list it", async () => {
    const { turn } = setup();
    const tool = turn.tools.find((item) => item.name === "run_skill_script");
    expect(tool?.inputSchema).toMatchObject({
      properties: {
        arguments: { type: "object", properties: { argv: { type: "array", items: { type: "string" } } } },
      },
    });
    expect(tool?.description).toContain('{"argv": ["input.pdf"]}');
    const loaded = await turn.call("load_skill", { skill: "peek" });
    expect(loaded.text).toContain('"argv":{"type":"array","items":{"type":"string"}');
  });
});

describe("argv in the audit line", () => {
  const base: AuditEvent = {
    type: "tool-call-classified",
    time: "2026-01-01T00:00:00.000Z",
    requestId: "r1",
    scope: { kind: "chat", id: "c" },
    tool: "run_skill_script",
    tier: "read",
  };

  it("is written and read back as a list of strings", () => {
    const line = serialiseAuditEvent({ ...base, argv: ["a b", "", "--x"] });
    expect(JSON.parse(line).argv).toEqual(["a b", "", "--x"]);
    expect(parseAuditLine(line.trimEnd())?.argv).toEqual(["a b", "", "--x"]);
  });

  it("keeps at most the first items, each cut like any text field, and drops what is not text", () => {
    const many = Array.from({ length: MAX_AUDIT_ARGV_ITEMS + 10 }, (_, index) => `item${index}`);
    const written = JSON.parse(
      serialiseAuditEvent({ ...base, argv: [...many.slice(0, -1), "y".repeat(1000)] }),
    );
    expect(written.argv).toHaveLength(MAX_AUDIT_ARGV_ITEMS);
    const long = JSON.parse(serialiseAuditEvent({ ...base, argv: ["y".repeat(1000), "\ud800"] }));
    expect(long.argv[0]).toHaveLength(256);
    expect(long.argv[1]).toBe("\ufffd");
    const hostile = { ...base, argv: "not a list" } as unknown as AuditEvent;
    expect(JSON.parse(serialiseAuditEvent(hostile)).argv).toBeUndefined();
    expect(parseAuditLine(JSON.stringify({ ...base, argv: [1, 2] }))?.argv).toBeUndefined();
  });
});

describe("load_skill shows how each script is called", () => {
  it("an argv attribute and the usage line for a script that reads argv; nothing for one that does not", async () => {
    const tree = makeTree();
    const project = join(tree, "project");
    const skills = join(project, ".agents", "skills");
    for (const name of ["argv-node-process-argv", "argv-node-none", "argv-python-argparse"])
      cpSync(join(import.meta.dirname, "..", "fixtures", "skills", name), join(skills, name), {
        recursive: true,
      });
    const catalog = createCatalog({ ...isolatedFolders(tree), roots: [project], builtins: false });
    const turn = createTurn(
      { discover: () => catalog.discover(), broker: new Broker({}), runner: new FakeRunner() },
      { chatId: "chat-1" },
    );
    const reads = await turn.call("load_skill", { skill: "argv-node-process-argv" });
    expect(reads.text).toContain(
      '<script path="scripts/count.mjs" language="node" execution="sandbox" tier="change" argv="process.argv">\n<usage>count.mjs FILE</usage>\n{"type":"object"',
    );
    const built = await turn.call("load_skill", { skill: "argv-python-argparse" });
    expect(built.text).toContain(
      'argv="argparse">\n<usage>fill.py [options] input values [values ...]</usage>\n',
    );
    const silent = await turn.call("load_skill", { skill: "argv-node-none" });
    expect(silent.text).toContain(
      '<script path="scripts/env.mjs" language="node" execution="sandbox" tier="change">\n{"type":"object"',
    );
    expect(silent.text).not.toContain("<usage>");
  });
});
