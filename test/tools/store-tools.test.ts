import { describe, expect, it } from "vitest";
import { createCatalog } from "../../src/catalog/catalog.js";
import { Store } from "../../src/store/store.js";
import { FakeRunner } from "../../src/testing/fake-runner.js";
import { scriptedApprover } from "../../src/testing/scripted-model.js";
import { Broker } from "../../src/tools/broker.js";
import { storeTools } from "../../src/tools/store-tools.js";
import { createTurn } from "../../src/tools/turn.js";
import { isolatedFolders, makeTree } from "../helpers/skill-tree.js";

async function setup(answers: Parameters<typeof scriptedApprover>[0] = []) {
  const tree = makeTree();
  const folders = isolatedFolders(tree);
  const store = await Store.open({ dataFolder: folders.data, lockStaleMs: 2_000 });
  const catalog = createCatalog({ ...folders, builtins: false });
  const approve = scriptedApprover(answers);
  const broker = new Broker({ approve });
  const turn = (options: Parameters<typeof createTurn>[1] = { chatId: "c1" }) =>
    createTurn(
      {
        discover: () => catalog.discover(),
        broker,
        runner: new FakeRunner(),
        extraTools: () => storeTools({ store: async () => store }),
      },
      options,
    );
  return { store, approve, turn };
}

const draft = {
  name: "disk-report",
  description: "Report disk usage per folder.",
  body: "Run the script with a path.",
  files: { "scripts/report.py": "print('usage')\n" },
  tier: "read",
  sourceChats: ["c1"],
  rationale: "Asked for twice.",
};

describe("the store tools", () => {
  it("draft_skill saves a disabled draft without asking; the assistant may rewrite only its own untouched draft", async () => {
    const { store, approve, turn } = await setup();
    const current = turn();
    const saved = await current.call("draft_skill", draft);
    expect(saved.status).toBe("ok");
    expect(saved.text).toMatch(/^Saved a new draft disk-report: disabled until the owner reviews/);
    expect(approve.requests).toEqual([]);
    expect((await store.get("disk-report")).enabled).toBe(false);
    expect((await current.call("draft_skill", { ...draft, update: true, body: "Better." })).text).toMatch(
      /^Saved your draft/,
    );
    const { hash } = await store.get("disk-report");
    await store.enable("disk-report", { hash });
    const refused = await current.call("draft_skill", { ...draft, update: true });
    expect(refused).toMatchObject({
      status: "denied",
      decision: { rule: "drafts-never-touch-reviewed-skills" },
    });
    expect((await current.call("draft_skill", { ...draft, name: "json-tools" })).decision?.rule).toBe(
      "drafts-never-touch-reviewed-skills",
    );
  });

  it("draft_skill arguments are read strictly: a wrong-case or unknown field is refused with HOST:", async () => {
    const { turn } = await setup();
    const wrongCase = await turn().call("draft_skill", { ...draft, Rationale: "x" });
    expect(wrongCase.status).toBe("refused");
    expect(wrongCase.text.startsWith("HOST: ")).toBe(true);
  });

  it("edit_skill asks with the plan's diff, never offers always, and writes exactly the plan once approved", async () => {
    const { store, approve, turn } = await setup(["once"]);
    await store.create(
      "notes",
      { "SKILL.md": "---\nname: notes\ndescription: Keep notes.\n---\n\nWrite notes.\n" },
      { enabled: true },
    );
    const result = await turn().call("edit_skill", {
      skillName: "notes",
      files: { "references/style.md": "Short lines.\n" },
      reason: "Add a style guide.",
    });
    expect(result.status).toBe("ok");
    expect(result.text).toMatch(/^Applied the approved edit to notes/);
    expect(approve.requests).toHaveLength(1);
    expect(approve.requests[0]).toMatchObject({
      tool: "edit_skill",
      tier: "skill-edit",
      options: ["once", "decline"],
    });
    expect(approve.requests[0]?.detail).toContain("+Short lines.");
    expect(approve.requests[0]?.reference).toMatch(/^[0-9a-f]{32}$/);
    expect((await store.get("notes")).files.map((file) => file.path)).toContain("references/style.md");
  });

  it("edit_skill is denied in a job and in plan mode, and a declined edit writes nothing", async () => {
    const { store, turn } = await setup(["decline"]);
    await store.create(
      "notes",
      { "SKILL.md": "---\nname: notes\ndescription: Keep notes.\n---\n\nWrite notes.\n" },
      { enabled: true },
    );
    const args = { skillName: "notes", files: { "a.md": "A\n" }, reason: "A." };
    expect((await turn({ jobId: "j1", skills: "*" }).call("edit_skill", args)).decision?.rule).toBe(
      "skill-edit-chats-only",
    );
    expect((await turn({ chatId: "c", mode: "plan" }).call("edit_skill", args)).decision?.rule).toBe(
      "skill-edit-plan-mode",
    );
    const before = (await store.get("notes")).hash;
    expect((await turn().call("edit_skill", args)).status).toBe("declined");
    expect((await store.get("notes")).hash).toBe(before);
  });

  it("edit_skill refuses repeated keys in JSON text before anything is planned", async () => {
    const { turn, approve } = await setup(["once"]);
    const text = '{"skillName":"notes","reason":"a","reason":"b"}';
    const result = await turn().call("edit_skill", text);
    expect(result.status).toBe("refused");
    expect(result.text).toMatch(/^HOST: .*reason/);
    expect(approve.requests).toEqual([]);
  });

  it("list_skills and get_skill read the store without running anything", async () => {
    const { store, turn } = await setup();
    await turn().call("draft_skill", draft);
    const listed = await turn().call("list_skills", {});
    expect(listed.text).toContain("- json-tools (enabled; author built-in; runner sandbox; tier read)");
    expect(listed.text).not.toContain("disk-report");
    const all = await turn().call("list_skills", { includeDisabled: true });
    expect(all.text).toContain("disk-report (disabled; author assistant");
    expect(all.text).toContain("[chats: c1] [why: Asked for twice.]");
    const got = await turn().call("get_skill", { skill: "disk-report" });
    expect(got.text).toContain("scripts/report.py (15 bytes)");
    expect((await turn().call("get_skill", { skill: "disk-report", path: "scripts/report.py" })).text).toBe(
      "print('usage')\n",
    );
    expect(
      (await turn().call("get_skill", { skill: "disk-report", path: "../../etc/passwd" })).text.startsWith(
        "HOST: ",
      ),
    ).toBe(true);
    expect((await turn().call("get_skill", { skill: "nope" })).text).toMatch(/^HOST: .*\[not_found\]$/);
    expect((await store.get("disk-report")).enabled).toBe(false);
  });
});
