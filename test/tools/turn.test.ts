import { mkdirSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createCatalog } from "../../src/catalog/catalog.js";
import type { AuditEvent } from "../../src/observe/events.js";
import type { ApprovalAnswer, ApprovalRequest } from "../../src/policy/approvals.js";
import { ApprovalBook } from "../../src/policy/approvals.js";
import { FakeRunner } from "../../src/testing/fake-runner.js";
import { Broker } from "../../src/tools/broker.js";
import { createTurn } from "../../src/tools/turn.js";
import { isolatedFolders, makeTree, writeSkill } from "../helpers/skill-tree.js";

function setup(answers: Array<ApprovalAnswer | "expired" | "deferred"> = []) {
  const tree = makeTree();
  const folders = isolatedFolders(tree);
  const project = join(tree, "project");
  const skills = join(project, ".agents", "skills");
  writeSkill(skills, "backup", {
    frontMatter: { description: "Back up a folder.", metadata: { "skillgate.tier": "change" } },
    body: "# Backup\n\nRun scripts/backup.py with a path.",
    files: { "scripts/backup.py": "print('ok')\n", "references/guide.md": "The guide." },
  });
  writeSkill(skills, "lookup", {
    frontMatter: {
      description: "Look things up.",
      metadata: {
        "skillgate.tier": "read",
        parameters_schema: '{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}',
      },
    },
    files: { "scripts/find.sh": "echo found\n" },
  });
  const catalog = createCatalog({ ...folders, roots: [project], builtins: false });
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
  const turn = (options: Parameters<typeof createTurn>[1] = { chatId: "chat-1" }) =>
    createTurn({ discover: () => catalog.discover(), broker, runner }, options);
  return { tree, skills, catalog, broker, runner, asked, events, turn };
}

/** A turn of chat `chat-1` through `broker` over one change-tier skill, `backup`, with one script. */
function backupTurn(broker: Broker) {
  const tree = makeTree();
  const project = join(tree, "project");
  writeSkill(join(project, ".agents", "skills"), "backup", {
    frontMatter: { description: "Back up a folder.", metadata: { "skillgate.tier": "change" } },
    files: { "scripts/backup.py": "print('ok')\n" },
  });
  const catalog = createCatalog({ ...isolatedFolders(tree), roots: [project], builtins: false });
  return createTurn(
    { discover: () => catalog.discover(), broker, runner: new FakeRunner() },
    { chatId: "chat-1" },
  );
}

describe("a turn", () => {
  it("offers the skill tools and an index naming load_skill, never a body", () => {
    const { turn } = setup();
    const current = turn();
    expect(current.tools.map((tool) => tool.name)).toEqual([
      "load_skill",
      "read_skill_resource",
      "read_skill",
      "search_skills",
      "refresh_skills",
      "run_skill_script",
    ]);
    const index = current.skillIndex();
    expect(index).toContain("`backup` -- Back up a folder.");
    expect(index).toContain("load_skill(skill)");
    expect(index).not.toContain("Run scripts/backup.py");
  });

  it("load_skill shows the body, the scripts with their schemas and the other files", async () => {
    const { turn } = setup();
    const result = await turn().call("load_skill", { skill: "lookup" });
    expect(result.status).toBe("ok");
    expect(result.text).toContain('<skill name="lookup">');
    expect(result.text).toContain(
      '<script path="scripts/find.sh" language="bash" execution="sandbox" tier="read">',
    );
    expect(result.text).toContain('{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}');
    const backup = await turn().call("load_skill", { skill: "backup" });
    expect(backup.text).toContain("<available_resources>\nreferences/guide.md\n</available_resources>");
  });

  it("load_skill lists no script of a linked scripts folder (a run's snapshot would refuse the link)", async () => {
    const { turn, skills, tree } = setup();
    const outside = join(tree, "outside-scripts");
    renameSync(join(skills, "lookup", "scripts"), outside);
    symlinkSync(outside, join(skills, "lookup", "scripts"));
    const result = await turn().call("load_skill", { skill: "lookup" });
    expect(result.status).toBe("ok");
    expect(result.text).not.toContain("<available_scripts>");
    expect(result.text).not.toContain("find.sh");
  });

  it("reads the chat's grants only for calls a grant can allow", async () => {
    const asked: string[] = [];
    const broker = new Broker({
      grants: {
        grants: (scope) => {
          asked.push(scope.id);
          return new Set();
        },
        addGrant: () => {},
      },
    });
    const current = backupTurn(broker);
    expect((await current.call("load_skill", { skill: "backup" })).status).toBe("ok");
    expect(asked).toEqual([]);
    const input = { skill: "backup", script: "scripts/backup.py", arguments: {} };
    expect((await current.call("run_skill_script", input)).status).toBe("declined");
    expect(asked).toEqual(["chat-1"]);
  });

  it("the approver hears the call's signal and what the surface passed as its caller", async () => {
    const heard: Array<{ caller: unknown; signal: AbortSignal | undefined }> = [];
    const broker = new Broker({
      approve: async (_request, call) => {
        heard.push({ caller: call.caller, signal: call.signal });
        return "decline";
      },
    });
    const current = backupTurn(broker);
    const controller = new AbortController();
    const caller = { requestId: 7 };
    const input = { skill: "backup", script: "scripts/backup.py", arguments: {} };
    expect(
      (await current.call("run_skill_script", input, { signal: controller.signal, caller })).status,
    ).toBe("declined");
    await current.call("run_skill_script", input);
    expect(heard).toEqual([
      { caller, signal: controller.signal },
      { caller: undefined, signal: undefined },
    ]);
  });

  it("read_skill_resource reads listed files only", async () => {
    const { turn } = setup();
    const current = turn();
    expect(
      (await current.call("read_skill_resource", { skill: "backup", path: "references/guide.md" })).text,
    ).toBe("The guide.");
    for (const path of [
      "../lookup/SKILL.md",
      "/etc/passwd",
      "references\\guide.md",
      "missing.md",
      "references/../SKILL.md",
    ]) {
      const refused = await current.call("read_skill_resource", { skill: "backup", path });
      expect(refused.text.startsWith("HOST: "), path).toBe(true);
    }
  });

  it("a read-tier script runs without asking; arguments sent as JSON text are repaired and checked against the schema", async () => {
    const { turn, runner, asked } = setup();
    const current = turn();
    const ran = await current.call("run_skill_script", {
      skill: "lookup",
      script: "scripts/find.sh",
      arguments: '{"q":"disk"}',
    });
    expect(ran.status).toBe("ok");
    expect(asked).toEqual([]);
    expect(runner.requests[0]?.arguments).toEqual({ q: "disk" });
    const wrong = await current.call("run_skill_script", {
      skill: "lookup",
      script: "scripts/find.sh",
      arguments: { q: 3 },
    });
    expect(wrong).toMatchObject({ status: "refused", text: "HOST: arguments.q must be a string." });
    const missing = await current.call("run_skill_script", {
      skill: "lookup",
      script: "scripts/find.sh",
      arguments: {},
    });
    expect(missing.text).toBe('HOST: arguments is missing "q".');
    expect(runner.requests).toHaveLength(1);
  });

  it("asks for a change, approved once then always; an edit of one byte invalidates the grant", async () => {
    const { turn, runner, asked, skills } = setup(["once", "always-chat", "always-chat"]);
    const current = turn();
    const call = () =>
      current.call("run_skill_script", {
        skill: "backup",
        script: "scripts/backup.py",
        arguments: { path: "/srv" },
      });
    expect((await call()).status).toBe("ok");
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      tool: "run_skill_script",
      skill: "backup",
      options: ["once", "always-chat", "decline"],
    });
    expect(asked[0]?.grant).toMatch(/^skill:backup@[0-9a-f]{8}$/);
    expect((await call()).status).toBe("ok");
    expect(asked).toHaveLength(2);
    expect((await call()).status).toBe("ok");
    expect(asked).toHaveLength(2);
    writeFileSync(join(skills, "backup", "scripts", "backup.py"), "print('ok!')\n");
    expect((await call()).status).toBe("ok");
    expect(asked).toHaveLength(3);
    expect(asked[2]?.grant).not.toBe(asked[1]?.grant);
    expect(runner.requests).toHaveLength(4);
  });

  it("a declined or expired ask does not run, and says so", async () => {
    const { turn, runner } = setup(["decline", "expired"]);
    const current = turn();
    const call = () => current.call("run_skill_script", { skill: "backup", script: "scripts/backup.py" });
    expect(await call()).toMatchObject({
      status: "declined",
      text: expect.stringMatching(/^HOST: the person declined/),
    });
    expect(await call()).toMatchObject({
      status: "expired",
      text: expect.stringMatching(/^HOST: the approval request expired/),
    });
    expect(runner.requests).toEqual([]);
  });

  it("a deferred ask does not run and tells the model the request id and how the owner approves it", async () => {
    const { turn, runner, asked, events } = setup(["deferred"]);
    const result = await turn().call("run_skill_script", {
      skill: "backup",
      script: "scripts/backup.py",
      arguments: { b: 1, a: 2 },
    });
    const id = asked[0]?.id ?? "";
    expect(result.status).toBe("awaiting_approval");
    expect(result.approvalId).toBe(id);
    expect(result.text).toMatch(/^HOST: this call needs the owner's approval/);
    expect(result.text).toContain(`skillgate approve ${id}`);
    expect(runner.requests).toEqual([]);
    expect(asked[0]?.inputDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(events.find((event) => event.type === "approval-answered")?.answer).toBe("deferred");
  });

  it("a call's own signal and the turn's both reach the runner", async () => {
    const { turn, runner } = setup();
    const turnSignal = new AbortController();
    const callSignal = new AbortController();
    const current = turn({ chatId: "chat-1", signal: turnSignal.signal });
    await current.call(
      "run_skill_script",
      { skill: "lookup", script: "scripts/find.sh", arguments: { q: "a" } },
      {
        signal: callSignal.signal,
      },
    );
    const seen = runner.requests[0]?.signal;
    expect(seen?.aborted).toBe(false);
    callSignal.abort();
    expect(seen?.aborted).toBe(true);
    await turn({ chatId: "chat-1", signal: turnSignal.signal }).call("run_skill_script", {
      skill: "lookup",
      script: "scripts/find.sh",
      arguments: { q: "b" },
    });
    expect(runner.requests[1]?.signal).toBe(turnSignal.signal);
  });

  it("the input digest of an approval request ignores key order and changes with any value", async () => {
    const { turn, asked } = setup(["decline", "decline", "decline"]);
    const call = (args: Record<string, number>) =>
      turn().call("run_skill_script", { skill: "backup", script: "scripts/backup.py", arguments: args });
    await call({ a: 1, b: 2 });
    await call({ b: 2, a: 1 });
    await call({ a: 1, b: 3 });
    expect(asked[0]?.inputDigest).toBe(asked[1]?.inputDigest);
    expect(asked[2]?.inputDigest).not.toBe(asked[0]?.inputDigest);
  });

  it("a skill disabled mid-turn answers HOST: that skill is no longer enabled.", async () => {
    const { turn, tree } = setup();
    const current = turn();
    expect((await current.call("load_skill", { skill: "lookup" })).status).toBe("ok");
    mkdirSync(join(tree, "config"), { recursive: true });
    writeFileSync(join(tree, "config", "config.yaml"), "skills:\n  disabled: [lookup]\n");
    const refused = await current.call("load_skill", { skill: "lookup" });
    expect(refused).toMatchObject({ status: "denied", text: "HOST: that skill is no longer enabled." });
    const run = await current.call("run_skill_script", {
      skill: "lookup",
      script: "scripts/find.sh",
      arguments: { q: "x" },
    });
    expect(run.text).toBe("HOST: that skill is no longer enabled.");
  });

  it("an unknown skill or tool is refused with what exists", async () => {
    const { turn } = setup();
    const current = turn();
    expect(await current.call("load_skill", { skill: "nope" })).toMatchObject({
      status: "refused",
      text: 'HOST: there is no skill named "nope". Skills you can use: backup, lookup.',
    });
    expect((await current.call("read_skill_resource", { skill: "nope", path: "SKILL.md" })).status).toBe(
      "refused",
    );
    expect((await current.call("fly", {})).text).toMatch(/^HOST: there is no tool named "fly"/);
    expect((await current.call("load_skill", { skill: "backup", extra: 1 })).text).toMatch(
      /^HOST: the input has a field "extra"/,
    );
  });

  it("jobs see only the skills their field names; plan mode runs nothing", async () => {
    const { turn } = setup();
    expect(turn({ jobId: "j1", skills: null }).view.offered()).toEqual([]);
    expect(turn({ jobId: "j1", skills: [] }).view.offered()).toEqual([]);
    expect(
      turn({ jobId: "j1", skills: ["lookup"] })
        .view.offered()
        .map((skill) => skill.name),
    ).toEqual(["lookup"]);
    expect(
      turn({ jobId: "j1", skills: "*" })
        .view.offered()
        .map((skill) => skill.name),
    ).toEqual(["backup", "lookup"]);
    const plan = turn({ chatId: "c", mode: "plan" });
    const run = await plan.call("run_skill_script", { skill: "backup", script: "scripts/backup.py" });
    expect(run).toMatchObject({ status: "denied", decision: { rule: "plan-mode-changes-nothing" } });
    const read = await plan.call("run_skill_script", {
      skill: "lookup",
      script: "scripts/find.sh",
      arguments: { q: "x" },
    });
    expect(read.status).toBe("ok");
    expect((await plan.call("load_skill", { skill: "lookup" })).status).toBe("ok");
  });

  it("records classification, decision, approval and the finished call, without argument contents", async () => {
    const { turn, events } = setup(["once"]);
    await turn().call("run_skill_script", {
      skill: "backup",
      script: "scripts/backup.py",
      arguments: { secret: "hunter2-value" },
    });
    expect(events.map((event) => event.type)).toEqual([
      "tool-call-classified",
      "policy-decided",
      "approval-requested",
      "approval-answered",
      "tool-call-finished",
    ]);
    expect(new Set(events.map((event) => event.requestId)).size).toBe(1);
    expect(events[4]).toMatchObject({
      tool: "run_skill_script",
      skill: "backup",
      tier: "change",
      rule: "changes-ask",
      decision: "ask",
      status: "ok",
    });
    expect(events[4]?.hash8).toMatch(/^[0-9a-f]{8}$/);
    expect(JSON.stringify(events)).not.toContain("hunter2-value");
  });
});

describe("approval requests expire", () => {
  it("a person who never answers leaves the call expired, not waiting forever", async () => {
    const tree = makeTree();
    const folders = isolatedFolders(tree);
    const project = join(tree, "project");
    writeSkill(join(project, ".agents", "skills"), "slow", { files: { "scripts/run.sh": "echo\n" } });
    const catalog = createCatalog({ ...folders, roots: [project], builtins: false });
    const runner = new FakeRunner();
    const broker = new Broker({
      approvals: new ApprovalBook({ ttlMs: 50 }),
      approve: () => new Promise(() => {}),
    });
    const turn = createTurn({ discover: () => catalog.discover(), broker, runner }, { chatId: "c" });
    const result = await turn.call("run_skill_script", { skill: "slow", script: "scripts/run.sh" });
    expect(result.status).toBe("expired");
    expect(runner.requests).toEqual([]);
  });
});

describe("read_skill finds as findSkill does (docs/skills.md)", () => {
  it("exact, unique prefix, unique substring; an ambiguous prefix finds nothing and lists the skills", async () => {
    const tree = makeTree();
    const folders = isolatedFolders(tree);
    const project = join(tree, "project");
    const skills = join(project, ".agents", "skills");
    for (const name of ["edit", "editor", "notebook-tests"])
      writeSkill(skills, name, { body: `Body of ${name}.` });
    const catalog = createCatalog({ ...folders, roots: [project], builtins: false });
    const turn = createTurn(
      { discover: () => catalog.discover(), broker: new Broker(), runner: new FakeRunner() },
      { chatId: "c" },
    );
    expect((await turn.call("read_skill", { name: "edit" })).text).toContain('<skill name="edit">');
    expect((await turn.call("read_skill", { name: "notebook" })).text).toContain(
      '<skill name="notebook-tests">',
    );
    expect((await turn.call("read_skill", { name: "tests" })).text).toContain(
      '<skill name="notebook-tests">',
    );
    expect((await turn.call("read_skill", { name: "edi" })).text).toBe(
      'HOST: no single skill matches "edi". Skills: edit, editor, notebook-tests.',
    );
  });
});
