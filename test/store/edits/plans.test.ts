import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/core/clock.js";
import { draftSkill, isDraftLocked } from "../../../src/store/drafts/index.js";
import {
  applyEditPlan,
  diffPlan,
  type EditPlanOptions,
  getPlan,
  listPlans,
  MAX_DIFF_FILE_BYTES,
  MAX_DIFF_TOTAL_BYTES,
  MAX_PLANS,
  PLAN_LIFETIME_MS,
  planEdit,
  rejectEditPlan,
} from "../../../src/store/edits/index.js";
import { Store } from "../../../src/store/store.js";
import { openTestStore, refusal, skillMd, snapshot } from "../store-helpers.js";

const START = Date.parse("2026-05-01T10:00:00.000Z");

const SKILL_FILE = `---
name: notes
description: Keeps notes.
# a comment the edit must keep
metadata:
  skillgate.tier: read
---

# Notes

Run scripts/list.py.
`;

async function setup(options: EditPlanOptions = {}) {
  const opened = await openTestStore({ checkScripts: false });
  const created = await opened.store.create("notes", {
    "SKILL.md": SKILL_FILE,
    "scripts/list.py": "print('one')\nprint('two')\n",
    "references/old.md": "# Old\n",
  });
  const clock = new ManualClock(START);
  return { ...opened, created, clock, options: { clock, checkScripts: false, ...options } };
}

/** The skill folder and index.json: what "nothing was written" is judged by (plans live beside them). */
function skillState(data: string): Record<string, string> {
  const all = snapshot(join(data, "skills"));
  return Object.fromEntries(Object.entries(all).filter(([path]) => !path.startsWith(".plans")));
}

describe("planEdit", () => {
  it("plans against the current skill, writes nothing to it, and keeps the plan for 2 hours", async () => {
    const { store, data, created, clock, options } = await setup();
    const before = skillState(data);
    const plan = await planEdit(
      store,
      {
        skillName: "notes",
        files: { "scripts/list.py": "print('one')\nprint('2')\n" },
        reason: "Use digits.",
      },
      options,
    );
    expect(plan).toMatchObject({
      skill: "notes",
      baseHash: created.hash,
      changes: { write: { "scripts/list.py": "print('one')\nprint('2')\n" }, remove: [] },
      createdAt: new Date(START).toISOString(),
      expiresAt: new Date(START + PLAN_LIFETIME_MS).toISOString(),
      diffTruncated: false,
    });
    expect(plan.id).toMatch(/^[0-9a-f]{32}$/);
    expect(plan.diff).toBe(
      "--- a/scripts/list.py\n+++ b/scripts/list.py\n@@ -1,2 +1,2 @@\n print('one')\n-print('two')\n+print('2')\n",
    );
    expect(skillState(data)).toEqual(before);
    expect(existsSync(join(data, "skills", ".plans", `${plan.id}.json`))).toBe(true);
    expect(await getPlan(store, plan.id, { clock })).toEqual(plan);
    expect(store.report.findings).toEqual([]);
    expect(await store.reconcile()).toEqual([]);
  });

  it("applies new settings to SKILL.md, keeping its other keys, comments and body", async () => {
    const { store, options } = await setup();
    const plan = await planEdit(
      store,
      {
        skillName: "notes",
        description: "Keeps and lists notes.",
        tier: "change",
        allowedDomains: ["notes.example.com"],
        parametersSchema: { type: "object", properties: { tag: { type: "string" } } },
        removeFiles: ["references/old.md"],
        reason: "It writes notes too.",
      },
      options,
    );
    const skillFile = plan.changes.write["SKILL.md"] ?? "";
    expect(skillFile).toBe(`---
name: notes
description: Keeps and lists notes.
# a comment the edit must keep
metadata:
  skillgate.tier: change
  skillgate.allowed-domains: notes.example.com
  parameters_schema: '{"type":"object","properties":{"tag":{"type":"string"}}}'
---

# Notes

Run scripts/list.py.
`);
    expect(plan.changes.remove).toEqual(["references/old.md"]);
    expect(plan.diff).toContain("-  skillgate.tier: read\n+  skillgate.tier: change\n");
    expect(plan.diff).toContain("--- a/references/old.md\n+++ /dev/null\n");
    expect(plan.diff.indexOf("SKILL.md")).toBeLessThan(plan.diff.indexOf("references/old.md"));
  });

  const refusals: { title: string; raw: unknown; code: string }[] = [
    {
      title: "a built-in",
      raw: { skillName: "helper-builtin", files: { "a.md": "x" }, reason: "r" },
      code: "builtin_read_only",
    },
    {
      title: "a missing skill",
      raw: { skillName: "nope", files: { "a.md": "x" }, reason: "r" },
      code: "not_found",
    },
    {
      title: "removing a missing file",
      raw: { skillName: "notes", removeFiles: ["x.md"], reason: "r" },
      code: "invalid_edit_arguments",
    },
    {
      title: "the content it already has",
      raw: { skillName: "notes", files: { "references/old.md": "# Old\n" }, reason: "r" },
      code: "invalid_edit_arguments",
    },
    {
      title: "a SKILL.md naming another skill",
      raw: { skillName: "notes", files: { "SKILL.md": skillMd("other") }, reason: "r" },
      code: "skill_invalid",
    },
    {
      title: "a file over 256 KiB",
      raw: { skillName: "notes", files: { "a.md": "x".repeat(256 * 1024 + 1) }, reason: "r" },
      code: "file_too_large",
    },
    {
      title: "a repeated key",
      raw: '{"skillName":"notes","reason":"r","files":{"a.md":"1"},"reason":"s"}',
      code: "invalid_edit_arguments",
    },
  ];

  it.each(refusals)("refuses $title with $code and keeps no plan", async ({ raw, code }) => {
    const { store, data, options } = await setup();
    const before = snapshot(data);
    await refusal(() => planEdit(store, raw, options), code);
    expect(snapshot(data)).toEqual(before);
  });

  it("refuses a plan whose script does not parse, so the owner never approves one that cannot be saved", async () => {
    const { store, data, clock } = await setup();
    const before = snapshot(data);
    const error = await refusal(
      () =>
        planEdit(
          store,
          { skillName: "notes", files: { "scripts/list.py": "print(\n" }, reason: "r" },
          { clock },
        ),
      "script_check_failed",
    );
    expect(error).toMatchObject({
      data: { problems: [expect.objectContaining({ file: "scripts/list.py" })] },
    });
    expect(snapshot(data)).toEqual(before);
  });
});

describe("applyEditPlan", () => {
  it("writes exactly the plan, with the hash it predicted, and the plan is used once", async () => {
    const { store, data, options } = await setup();
    const plan = await planEdit(
      store,
      {
        skillName: "notes",
        files: { "scripts/add.py": "print('add')\n" },
        removeFiles: ["references/old.md"],
        tier: "change",
        reason: "Add notes.",
      },
      options,
    );
    const applied = await applyEditPlan(store, plan.id, options);
    expect(applied.result.hash).toBe(plan.resultHash);
    const skill = await store.get("notes");
    expect(skill.hash).toBe(plan.resultHash);
    expect(skill.files.map((file) => file.path)).toEqual(["SKILL.md", "scripts/add.py", "scripts/list.py"]);
    const folder = join(data, "skills", "notes");
    for (const [path, content] of Object.entries(plan.changes.write))
      expect(readFileSync(join(folder, path), "utf8")).toBe(content);
    expect(existsSync(join(data, "skills", ".plans", `${plan.id}.json`))).toBe(false);
    await refusal(() => applyEditPlan(store, plan.id, options), "plan_not_found");
  });

  it("a change between plan and apply is skill_changed (409) and nothing is written", async () => {
    const { store, data, options } = await setup();
    const plan = await planEdit(
      store,
      { skillName: "notes", files: { "scripts/list.py": "print('planned')\n" }, reason: "r" },
      options,
    );
    await store.updateFile("notes", "references/old.md", "# Changed meanwhile\n");
    const before = skillState(data);
    const error = await refusal(() => applyEditPlan(store, plan.id, options), "skill_changed");
    expect(error).toMatchObject({ httpStatus: 409 });
    expect(skillState(data)).toEqual(before);
    await refusal(() => getPlan(store, plan.id, options), "plan_not_found");
  });

  it("approving an edit of an assistant's draft locks the draft", async () => {
    const { store, options } = await setup();
    await draftSkill(store, {
      name: "drafted",
      description: "A draft.",
      body: "Body.\n",
      sourceChats: ["c1"],
      rationale: "Because.",
    });
    const plan = await planEdit(
      store,
      { skillName: "drafted", files: { "references/a.md": "a\n" }, reason: "r" },
      options,
    );
    expect(await isDraftLocked(store, "drafted")).toBe(false);
    await applyEditPlan(store, plan.id, options);
    expect(await isDraftLocked(store, "drafted")).toBe(true);
  });

  it("a rejected plan can never be applied", async () => {
    const { store, data, options } = await setup();
    const plan = await planEdit(
      store,
      { skillName: "notes", files: { "a.md": "a\n" }, reason: "r" },
      options,
    );
    const before = skillState(data);
    expect((await rejectEditPlan(store, plan.id, options)).id).toBe(plan.id);
    await refusal(() => applyEditPlan(store, plan.id, options), "plan_not_found");
    await refusal(() => rejectEditPlan(store, plan.id, options), "plan_not_found");
    expect(skillState(data)).toEqual(before);
  });

  it("a CLI and a server on one data folder see and apply the same plans", async () => {
    const { store, data, builtins, options } = await setup();
    const plan = await planEdit(
      store,
      { skillName: "notes", files: { "a.md": "a\n" }, reason: "Shared." },
      options,
    );
    const other = await Store.open({ dataFolder: data, builtinFolder: builtins, checkScripts: false });
    expect((await listPlans(other, options)).map((item) => [item.id, item.reason, item.writes])).toEqual([
      [plan.id, "Shared.", ["a.md"]],
    ]);
    expect(await diffPlan(other, plan.id, options)).toBe(plan.diff);
    await applyEditPlan(other, plan.id, options);
    expect(await listPlans(store, options)).toEqual([]);
  });

  it.each(["", "../index", "ABCDEF0123456789ABCDEF0123456789", `${"0".repeat(31)}/`])(
    "an id that is not a plan id (%j) is plan_not_found and touches no file",
    async (id) => {
      const { store, data, options } = await setup();
      const before = snapshot(data);
      await refusal(() => applyEditPlan(store, id, options), "plan_not_found");
      await refusal(() => getPlan(store, id, options), "plan_not_found");
      expect(snapshot(data)).toEqual(before);
    },
  );
});

describe("plan lifetime and count", () => {
  it("a plan expires 2 hours after it was made: plan_expired, and nothing is written", async () => {
    const { store, data, clock, options } = await setup();
    const plan = await planEdit(
      store,
      { skillName: "notes", files: { "a.md": "a\n" }, reason: "r" },
      options,
    );
    clock.advance(PLAN_LIFETIME_MS - 1);
    expect((await getPlan(store, plan.id, options)).id).toBe(plan.id);
    clock.advance(1);
    await refusal(() => getPlan(store, plan.id, options), "plan_expired");
    expect(await listPlans(store, options)).toEqual([]);
    const before = skillState(data);
    const error = await refusal(() => applyEditPlan(store, plan.id, options), "plan_expired");
    expect(error).toMatchObject({ httpStatus: 410 });
    expect(skillState(data)).toEqual(before);
    expect(existsSync(join(data, "skills", ".plans", `${plan.id}.json`))).toBe(false);
  });

  it(`holds at most ${MAX_PLANS} plans: the next is too_many_plans until some expire`, async () => {
    const { store, clock, options } = await setup();
    const first = await planEdit(
      store,
      { skillName: "notes", files: { "p.md": "first\n" }, reason: "r" },
      options,
    );
    clock.advance(60_000);
    for (let index = 1; index < MAX_PLANS; index += 1)
      await planEdit(store, { skillName: "notes", files: { "p.md": `${index}\n` }, reason: "r" }, options);
    expect(await listPlans(store, options)).toHaveLength(MAX_PLANS);
    const error = await refusal(
      () => planEdit(store, { skillName: "notes", files: { "p.md": "one more\n" }, reason: "r" }, options),
      "too_many_plans",
    );
    expect(error.message.startsWith("HOST: ")).toBe(true);
    expect(error).toMatchObject({ httpStatus: 429, data: { count: MAX_PLANS, limit: MAX_PLANS } });
    // The first plan expires a minute before the others: its slot is free again.
    clock.advance(PLAN_LIFETIME_MS - 60_000);
    await planEdit(store, { skillName: "notes", files: { "p.md": "after expiry\n" }, reason: "r" }, options);
    await refusal(() => getPlan(store, first.id, options), "plan_not_found");
    expect(await listPlans(store, options)).toHaveLength(MAX_PLANS);
  }, 60_000);
});

describe("the diff an owner reviews", () => {
  const lines = (count: number, label: string) =>
    Array.from({ length: count }, (_, index) => `${label} line ${index} ${"x".repeat(60)}`).join("\n");

  it("a 100 KiB change shows the truncation note; the plan still writes the whole file", async () => {
    const { store, data, options } = await setup();
    const big = `${lines(1_400, "new")}\n`;
    expect(Buffer.byteLength(big)).toBeGreaterThan(100 * 1024);
    const plan = await planEdit(
      store,
      { skillName: "notes", files: { "references/big.md": big }, reason: "r" },
      options,
    );
    expect(plan.diffTruncated).toBe(true);
    expect(Buffer.byteLength(plan.diff)).toBeLessThanOrEqual(MAX_DIFF_FILE_BYTES);
    expect(plan.diff).toMatch(
      /\.\.\. diff of references\/big\.md truncated: \d+ of \d+ bytes shown \(each file's diff is capped at 32 KiB\); the plan writes the whole file\n$/,
    );
    await applyEditPlan(store, plan.id, options);
    expect(readFileSync(join(data, "skills", "notes", "references", "big.md"), "utf8")).toBe(big);
  });

  it("the whole diff is capped at 192 KiB and names the files it leaves out", async () => {
    const { store, data, options } = await setup();
    const files = Object.fromEntries(
      Array.from({ length: 9 }, (_, index) => [
        `references/part-${index}.md`,
        `${lines(600, `part ${index}`)}\n`,
      ]),
    );
    const plan = await planEdit(store, { skillName: "notes", files, reason: "r" }, options);
    expect(plan.diffTruncated).toBe(true);
    expect(Buffer.byteLength(plan.diff)).toBeLessThanOrEqual(MAX_DIFF_TOTAL_BYTES);
    expect(plan.diff).toMatch(
      /\.\.\. the diff is capped at 192 KiB: 4 more files not shown, but the plan changes them: references\/part-5\.md, references\/part-6\.md, references\/part-7\.md, references\/part-8\.md\n$/,
    );
    await applyEditPlan(store, plan.id, options);
    for (const [path, content] of Object.entries(files))
      expect(readFileSync(join(data, "skills", "notes", path), "utf8")).toBe(content);
  });

  it("says a binary file is removed instead of diffing its bytes", async () => {
    const { store, options } = await setup();
    const staged = await store.createStagingFolder();
    writeFileSync(join(staged, "SKILL.md"), skillMd("binary"));
    mkdirSync(join(staged, "assets"));
    writeFileSync(join(staged, "assets", "logo.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]));
    await store.installFolder(staged, { source: "zip" });
    const plan = await planEdit(
      store,
      { skillName: "binary", removeFiles: ["assets/logo.png"], reason: "r" },
      options,
    );
    expect(plan.diff).toBe("--- a/assets/logo.png\n+++ /dev/null\n(binary file of 8 bytes removed)\n");
  });
});
