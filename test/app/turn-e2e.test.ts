import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { metrics } from "@opentelemetry/api";
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from "@opentelemetry/sdk-metrics";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSkillgate } from "../../src/app/skillgate.js";
import type { LogFields, Logger } from "../../src/observe/logger.js";
import { ARGUMENTS_COERCED_COUNTER, METER_NAME } from "../../src/observe/metrics.js";
import { FakeRunner, ScriptedModel, scriptedApprover } from "../../src/testing/index.js";
import { isolatedFolders, makeTree, writeSkill } from "../helpers/skill-tree.js";

let reader: PeriodicExportingMetricReader;
let exporter: InMemoryMetricExporter;
let provider: MeterProvider;
beforeEach(() => {
  exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
  provider = new MeterProvider({ readers: [reader] });
  metrics.setGlobalMeterProvider(provider);
});
afterEach(async () => {
  metrics.disable();
  await provider.shutdown();
});

async function coercedByKind(): Promise<Record<string, number>> {
  await reader.forceFlush();
  const scope = exporter
    .getMetrics()
    .at(-1)
    ?.scopeMetrics.find((each) => each.scope.name === METER_NAME);
  const metric = scope?.metrics.find((each) => each.descriptor.name === ARGUMENTS_COERCED_COUNTER);
  return Object.fromEntries(
    (metric?.dataPoints ?? []).map((point) => [String(point.attributes.kind), point.value as number]),
  );
}

function setup(answers: Parameters<typeof scriptedApprover>[0]) {
  const tree = makeTree();
  const folders = isolatedFolders(tree);
  const project = join(tree, "project");
  const skills = join(project, ".agents", "skills");
  writeSkill(skills, "backup-check", {
    frontMatter: {
      description: "Check that last night's backup finished.",
      metadata: {
        "skillgate.tier": "change",
        parameters_schema:
          '{"type":"object","properties":{"target":{"type":"string"}},"required":["target"]}',
      },
    },
    body: "# Backup check\n\nRun scripts/check.py with the target to check.",
    files: { "scripts/check.py": "print('checked')\n" },
  });
  const lines: Array<[string, LogFields | undefined]> = [];
  const logger: Logger = {
    info: (message, fields) => lines.push([message, fields]),
    warn: (message, fields) => lines.push([message, fields]),
  };
  const approve = scriptedApprover(answers);
  const runner = new FakeRunner();
  const skillgate = createSkillgate({
    ...folders,
    roots: [project],
    builtins: false,
    runner,
    approve,
    logger,
  });
  return { skillgate, approve, runner, lines, skills, data: folders.data };
}

describe("a whole turn driven by a scripted model", () => {
  it("lists, loads, runs with repaired arguments, is asked, approved once, then always; an edit invalidates the grant", async () => {
    const { skillgate, approve, runner, lines, skills } = setup(["once", "always-chat", "always-chat"]);
    const run = {
      call: "run_skill_script",
      input: { skill: "backup-check", script: "scripts/check.py", arguments: '{"target": "nas"}' },
    };
    const model = new ScriptedModel([
      { call: "list_skills", input: {} },
      { call: "load_skill", input: { skill: "backup-check" } },
      run,
      run,
      run,
      {
        ...run,
        before: () =>
          writeFileSync(join(skills, "backup-check", "scripts", "check.py"), "print('checked!')\n"),
      },
      { say: "The backup finished." },
    ]);
    const turn = skillgate.createTurn({ chatId: "chat-42" });
    const transcript = await model.run(turn);
    expect(transcript.systemPrompt).toContain("`backup-check` -- Check that last night's backup finished.");
    const [listed, loaded, first, second, third, afterEdit] = transcript.calls.map((call) => call.result);
    expect(listed?.status).toBe("ok");
    expect(loaded?.text).toContain(
      '<script path="scripts/check.py" language="python" execution="sandbox" tier="change">',
    );
    expect([first, second, third, afterEdit].map((result) => result?.status)).toEqual([
      "ok",
      "ok",
      "ok",
      "ok",
    ]);
    expect([first, second, third, afterEdit].map((result) => result?.decision?.rule)).toEqual([
      "changes-ask",
      "changes-ask",
      "granted-calls-allowed",
      "changes-ask",
    ]);
    expect(approve.requests).toHaveLength(3);
    expect(approve.requests[2]?.grant).not.toBe(approve.requests[1]?.grant);
    expect(runner.requests.map((request) => request.arguments)).toEqual(Array(4).fill({ target: "nas" }));
    expect(transcript.said).toEqual(["The backup finished."]);

    // Each repaired call logs one line (never the content) and counts kind=string.
    const repairLines = lines.filter(([message]) => message.includes("were coerced from a JSON string"));
    expect(repairLines).toHaveLength(4);
    expect(repairLines[0]?.[0]).toBe(
      "Skill arguments for backup-check/scripts/check.py were coerced from a JSON string.",
    );
    expect(JSON.stringify(lines)).not.toContain("nas");
    expect(await coercedByKind()).toEqual({ string: 4 });

    // The new grant (for the edited skill) outlives the turn: it is in the chat database.
    const again = skillgate.createTurn({ chatId: "chat-42" });
    expect(approve.requests).toHaveLength(3);
    expect((await again.call("run_skill_script", run.input)).decision?.rule).toBe("granted-calls-allowed");
    skillgate.close();
  });

  it("counts a chat's declined and failed calls, and the audit log holds every step without the arguments", async () => {
    const { skillgate, runner, data } = setup(["decline"]);
    runner.requests.length = 0;
    const turn = skillgate.createTurn({ chatId: "chat-7" });
    await turn.call("run_skill_script", {
      skill: "backup-check",
      script: "scripts/check.py",
      arguments: { target: "secret-host-name" },
    });
    const chats = await skillgate.chatLog().listChats({ includeReviewed: true });
    expect(chats.find((chat) => chat.id === "chat-7")?.counts).toMatchObject({
      declined: 1,
      expired: 0,
      failed: 0,
    });
    const { queryAuditFolder } = await import("../../src/observe/audit-read.js");
    const events = await queryAuditFolder(join(data, "audit"), { chat: "chat-7" });
    expect(events.map((event) => event.type)).toEqual([
      "tool-call-classified",
      "policy-decided",
      "approval-requested",
      "approval-answered",
      "tool-call-finished",
    ]);
    expect(events.at(-1)).toMatchObject({ status: "declined", skill: "backup-check", rule: "changes-ask" });
    const { readFileSync } = await import("node:fs");
    expect(readFileSync(join(data, "audit", "audit.jsonl"), "utf8")).not.toContain("secret-host-name");
    skillgate.close();
  });

  it("the /create-skill context lists chats with issues that were not reviewed", async () => {
    const { skillgate } = setup(["decline"]);
    await skillgate.createTurn({ chatId: "chat-9" }).call("run_skill_script", {
      skill: "backup-check",
      script: "scripts/check.py",
      arguments: { target: "x" },
    });
    expect(await skillgate.createSkillReviewContext()).toContain("- chat-9 (chat; last active");
    const turn = skillgate.createTurn({ chatId: "review" });
    expect((await turn.call("mark_chats_reviewed", { chats: ["chat-9"] })).status).toBe("ok");
    expect(await skillgate.createSkillReviewContext()).toContain("No unreviewed chats have declined");
    skillgate.close();
  });
});
