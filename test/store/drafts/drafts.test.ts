import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadSkillText } from "../../../src/skill/load-skill.js";
import {
  type DraftInput,
  draftLockReason,
  draftSkill,
  isDraftLocked,
  listDrafts,
  MAX_RATIONALE_LENGTH,
  MAX_SOURCE_CHATS,
  readDraftMetadata,
  updateAsOwner,
} from "../../../src/store/drafts/index.js";
import { MAX_DRAFT_FILES } from "../../../src/store/limits.js";
import { BUILTIN, openTestStore, readIndexJson, refusal, skillMd, snapshot } from "../store-helpers.js";

/** A small valid draft; `overrides` replace any field. */
function draft(overrides: Partial<DraftInput> = {}): DraftInput {
  return {
    name: "disk-report",
    description: "Reports disk use on the machine.",
    body: "# Disk report\n\nRun scripts/report.py.\n",
    files: { "scripts/report.py": "import shutil\nprint(shutil.disk_usage('/'))\n" },
    tier: "read",
    execution: "local",
    sourceChats: ["chat-1", "chat-2"],
    rationale: "Two chats asked for disk use and the calls were declined.",
    ...overrides,
  };
}

function metadataOf(skillFile: string): Readonly<Record<string, unknown>> {
  return loadSkillText(skillFile, "/x", { source: "test" }).skill?.fields?.metadata ?? {};
}

describe("draftSkill", () => {
  it("saves a disabled draft with source assistant, author, chats, rationale and governance", async () => {
    const { store, data } = await openTestStore();
    const result = await draftSkill(
      store,
      draft({ parametersSchema: '{ "type": "object", "properties": { "path": { "type": "string" } } }' }),
    );
    expect(result).toMatchObject({ name: "disk-report", enabled: false, source: "assistant", created: true });
    expect(result.warnings).toEqual([]);
    expect(readIndexJson(data).skills["disk-report"]).toMatchObject({ enabled: false, source: "assistant" });
    const skill = await store.get("disk-report");
    expect(skill.files.map((file) => file.path)).toEqual(["SKILL.md", "scripts/report.py"]);
    expect(metadataOf(skill.skillFile)).toEqual({
      "skillgate.author": "assistant",
      "skillgate.source-chats": "chat-1,chat-2",
      "skillgate.rationale": "Two chats asked for disk use and the calls were declined.",
      "skillgate.tier": "read",
      "skillgate.execution": "local",
      parameters_schema: '{"type":"object","properties":{"path":{"type":"string"}}}',
    });
    expect(skill.skillFile.endsWith("\n# Disk report\n\nRun scripts/report.py.\n")).toBe(true);
  });

  it("writes the review lint warnings into skillgate.review-warnings and returns them", async () => {
    const { store } = await openTestStore();
    const result = await draftSkill(
      store,
      draft({ files: { "scripts/clean.sh": "#!/bin/bash\nrm -rf /tmp/cache\n" } }),
    );
    expect(result.warnings).toEqual([
      expect.objectContaining({ rule: "read-tier-changes", file: "scripts/clean.sh", line: 2 }),
    ]);
    const metadata = readDraftMetadata((await store.get("disk-report")).skillFile);
    expect(metadata.reviewWarnings).toBe(
      "scripts/clean.sh:2 read-tier-changes (tier read, but it looks like it changes something)",
    );
  });

  it("keeps a hostile rationale exactly: front matter delimiters, quotes, colons, new lines", async () => {
    const { store } = await openTestStore();
    const rationale = "First line: 'quoted' \"double\"\n---\n# not a comment\nname: evil\n… ünïcode";
    await draftSkill(store, draft({ rationale, description: "desc: with a colon # and hash" }));
    const skill = await store.get("disk-report");
    expect(readDraftMetadata(skill.skillFile).rationale).toBe(rationale);
    expect(skill.description).toBe("desc: with a colon # and hash");
    expect(loadSkillText(skill.skillFile, "/x/disk-report", { source: "t" }).skill?.name).toBe("disk-report");
  });

  it("takes the schema as an object or as JSON text and stores the same compact form", async () => {
    const { store } = await openTestStore();
    const schema = { type: "object", properties: { days: { type: "integer", minimum: 1 } } };
    await draftSkill(store, draft({ name: "as-object", parametersSchema: schema }));
    await draftSkill(store, draft({ name: "as-text", parametersSchema: JSON.stringify(schema, null, 4) }));
    const stored = async (name: string) => metadataOf((await store.get(name)).skillFile).parameters_schema;
    expect(await stored("as-object")).toBe(JSON.stringify(schema));
    expect(await stored("as-text")).toBe(JSON.stringify(schema));
  });

  it("refuses a broken script with its file and line and writes nothing", async () => {
    const { store, data } = await openTestStore();
    const before = snapshot(data);
    const error = await refusal(
      () => draftSkill(store, draft({ files: { "scripts/report.py": "def broken(:\n    pass\n" } })),
      "script_check_failed",
    );
    expect((error as unknown as { data: { problems: unknown[] } }).data.problems).toEqual([
      expect.objectContaining({ file: "scripts/report.py", line: 1 }),
    ]);
    expect(snapshot(data)).toEqual(before);
  });
});

describe("draft limits: each refusal has its code and writes nothing", () => {
  const files = (count: number) =>
    Object.fromEntries(
      Array.from({ length: count }, (_, index) => [`references/note-${index}.md`, `# ${index}\n`]),
    );
  const chats = (count: number) => Array.from({ length: count }, (_, index) => `chat-${index}`);

  it(`accepts ${MAX_DRAFT_FILES} files, ${MAX_SOURCE_CHATS} chats and ${MAX_RATIONALE_LENGTH} characters of rationale`, async () => {
    const { store } = await openTestStore({ checkScripts: false });
    const result = await draftSkill(
      store,
      draft({
        files: files(MAX_DRAFT_FILES - 1),
        sourceChats: chats(MAX_SOURCE_CHATS),
        rationale: "é".repeat(MAX_RATIONALE_LENGTH),
      }),
    );
    expect((await store.get(result.name)).files).toHaveLength(MAX_DRAFT_FILES);
  });

  const cases: { title: string; input: Partial<DraftInput>; code: string }[] = [
    { title: "41 files (SKILL.md counts)", input: { files: files(MAX_DRAFT_FILES) }, code: "too_many_files" },
    {
      title: "11 source chats",
      input: { sourceChats: chats(MAX_SOURCE_CHATS + 1) },
      code: "too_many_source_chats",
    },
    {
      title: "1,001 characters of rationale",
      input: { rationale: "x".repeat(MAX_RATIONALE_LENGTH + 1) },
      code: "rationale_too_long",
    },
    { title: "an empty rationale", input: { rationale: "  " }, code: "invalid_argument" },
    {
      title: "a schema without type object",
      input: { parametersSchema: { type: "string" } },
      code: "skill_invalid",
    },
    {
      title: "a schema that is not JSON",
      input: { parametersSchema: "{type: object}" },
      code: "skill_invalid",
    },
    { title: "SKILL.md among the files", input: { files: { "SKILL.md": "x" } }, code: "invalid_argument" },
    {
      title: "a file outside the layout",
      input: { files: { "run.py": "print(1)\n" } },
      code: "invalid_argument",
    },
    {
      title: "a path leaving the skill",
      input: { files: { "scripts/../../x": "x" } },
      code: "path_not_allowed",
    },
    { title: "a chat id with a comma", input: { sourceChats: ["a,b"] }, code: "invalid_argument" },
    { title: "an unknown tier", input: { tier: "admin" as never }, code: "invalid_argument" },
    {
      title: "51 allowed domains",
      input: { allowedDomains: chats(51).map((c) => `${c}.example.com`) },
      code: "too_many_domains",
    },
    {
      title: "a host that is not one",
      input: { allowedDomains: ["http://x.example.com/"] },
      code: "invalid_argument",
    },
    { title: "an invalid name", input: { name: "Disk Report" }, code: "invalid_skill_name" },
    { title: "a built-in's name", input: { name: BUILTIN }, code: "builtin_read_only" },
  ];

  it.each(cases)("$title → $code", async ({ input, code }) => {
    const { store, data } = await openTestStore({ checkScripts: false });
    const before = snapshot(data);
    const error = await refusal(() => draftSkill(store, draft(input)), code);
    if (code === "too_many_files")
      expect(error).toMatchObject({ data: { limit: MAX_DRAFT_FILES, count: 41 } });
    expect(snapshot(data)).toEqual(before);
  });
});

describe("rewriting a draft", () => {
  it("the assistant may rewrite its own untouched draft, which becomes exactly the new files", async () => {
    const { store } = await openTestStore();
    await draftSkill(
      store,
      draft({ files: { "scripts/report.py": "print(1)\n", "references/old.md": "old\n" } }),
    );
    const result = await draftSkill(
      store,
      draft({ update: true, rationale: "Second try.", files: { "scripts/report.py": "print(2)\n" } }),
    );
    expect(result).toMatchObject({ created: false, enabled: false, source: "assistant" });
    const skill = await store.get("disk-report");
    expect(skill.files.map((file) => file.path)).toEqual(["SKILL.md", "scripts/report.py"]);
    expect(readDraftMetadata(skill.skillFile).rationale).toBe("Second try.");
    expect(await isDraftLocked(store, "disk-report")).toBe(false);
  });

  it("without update a taken name is skill_exists; update of a missing draft is not_found", async () => {
    const { store } = await openTestStore();
    await refusal(() => draftSkill(store, draft({ update: true })), "not_found");
    await draftSkill(store, draft());
    await refusal(() => draftSkill(store, draft()), "skill_exists");
  });

  it("enabling locks it for good, even after it is disabled again", async () => {
    const { store, data } = await openTestStore();
    const created = await draftSkill(store, draft());
    await store.enable("disk-report", { hash: created.hash });
    await store.disable("disk-report");
    expect(readIndexJson(data).skills["disk-report"]).toMatchObject({ locked: true, enabled: false });
    expect(await draftLockReason(store, "disk-report")).toBe("locked");
    const before = snapshot(data);
    await refusal(() => draftSkill(store, draft({ update: true })), "draft_locked");
    expect(snapshot(data)).toEqual(before);
  });

  it("an owner edit sets skillgate.last-edit and locks it for good", async () => {
    const { store, data } = await openTestStore();
    await draftSkill(store, draft());
    const now = () => new Date("2026-03-04T05:06:07.000Z");
    await updateAsOwner(store, "disk-report", { write: { "references/notes.md": "# Mine now\n" } }, { now });
    const skill = await store.get("disk-report");
    expect(readDraftMetadata(skill.skillFile)).toMatchObject({
      author: "assistant",
      lastEdit: "2026-03-04T05:06:07.000Z",
      rationale: "Two chats asked for disk use and the calls were declined.",
    });
    expect(skill.skillFile).toContain("# Disk report\n\nRun scripts/report.py.\n");
    expect(readIndexJson(data).skills["disk-report"]).toMatchObject({ locked: true });
    await refusal(() => draftSkill(store, draft({ update: true })), "draft_locked");
  });

  it("any owner write through the store locks it, even one that does not stamp last-edit", async () => {
    const { store } = await openTestStore();
    await draftSkill(store, draft());
    await store.updateFile("disk-report", "references/notes.md", "# Owner\n");
    expect(await draftLockReason(store, "disk-report")).toBe("locked");
  });

  it("a draft edited by hand on disk is locked", async () => {
    const { store, data } = await openTestStore();
    await draftSkill(store, draft());
    writeFileSync(join(data, "skills", "disk-report", "scripts", "report.py"), "print('by hand')\n");
    expect(await draftLockReason(store, "disk-report")).toBe("edited_by_hand");
    await refusal(() => draftSkill(store, draft({ update: true })), "draft_locked");
  });

  it("the owner's own skills and built-ins are locked for the assistant", async () => {
    const { store } = await openTestStore();
    await store.create("disk-report", { "SKILL.md": skillMd("disk-report") });
    expect(await draftLockReason(store, "disk-report")).toBe("not_a_draft");
    await refusal(() => draftSkill(store, draft({ update: true })), "draft_locked");
    expect(await isDraftLocked(store, BUILTIN)).toBe(true);
    expect(await isDraftLocked(store, "no-such-skill")).toBe(false);
  });

  it("the store refuses an assistant's write to a draft enabled meanwhile, under its lock", async () => {
    const { store } = await openTestStore();
    const created = await draftSkill(store, draft());
    await store.enable("disk-report", { hash: created.hash });
    // The policy's answer may be stale; the store's own check decides.
    const error = await refusal(
      () => store.updateFile("disk-report", "scripts/report.py", "print(3)\n", { author: "assistant" }),
      "draft_locked",
    );
    expect(error).toMatchObject({ data: { reason: "locked" } });
  });

  it("enabling needs the reviewed hash: a draft rewritten after review is skill_changed", async () => {
    const { store, data } = await openTestStore();
    const reviewed = await draftSkill(store, draft());
    await draftSkill(store, draft({ update: true, files: { "scripts/report.py": "print('changed')\n" } }));
    const before = snapshot(data);
    await refusal(() => store.enable("disk-report", { hash: reviewed.hash }), "skill_changed");
    expect(snapshot(data)).toEqual(before);
    const current = await store.get("disk-report");
    expect((await store.enable("disk-report", { hash: current.hash })).enabled).toBe(true);
  });
});

describe("listDrafts and owner edits of other skills", () => {
  it("lists drafts with author, chats, rationale, warnings and lock state", async () => {
    const { store } = await openTestStore();
    await draftSkill(store, draft({ files: { "scripts/clean.sh": "rm -rf /tmp/x\n" } }));
    const second = await draftSkill(store, draft({ name: "second", sourceChats: [] }));
    await store.enable("second", { hash: second.hash });
    await store.create("owned", { "SKILL.md": skillMd("owned") });
    const drafts = await listDrafts(store);
    expect(drafts.map((item) => [item.name, item.locked, item.enabled])).toEqual([
      ["disk-report", false, false],
      ["second", true, true],
    ]);
    expect(drafts[0]).toMatchObject({
      author: "assistant",
      description: "Reports disk use on the machine.",
      sourceChats: ["chat-1", "chat-2"],
      rationale: "Two chats asked for disk use and the calls were declined.",
      reviewWarnings: expect.stringContaining("scripts/clean.sh:1 read-tier-changes"),
    });
    expect(drafts[1]?.sourceChats).toEqual([]);
  });

  it("updateAsOwner does not stamp last-edit on a skill the assistant did not write", async () => {
    const { store, data } = await openTestStore();
    await store.create("owned", { "SKILL.md": skillMd("owned") });
    await updateAsOwner(store, "owned", { write: { "references/a.md": "a\n" } });
    expect(readFileSync(join(data, "skills", "owned", "SKILL.md"), "utf8")).toBe(skillMd("owned"));
  });
});
