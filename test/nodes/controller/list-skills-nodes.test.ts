import { describe, expect, it } from "vitest";
import { createSkillgate } from "../../../src/app/skillgate.js";
import { isolatedFolders, makeTree } from "../../helpers/skill-tree.js";
import { enrol, ScriptedAgent, startController } from "./controller-harness.js";

const SKILL = (name: string) =>
  `---\nname: ${name}\ndescription: Check a server's disks.\nmetadata:\n  skillgate.execution: node\n---\n\nRun scripts/check.sh.\n`;

describe("list_skills and load_skill for node skills", () => {
  it("list_skills names the nodes in the skill's scope and which are online; load_skill shows the schema that needs node", async () => {
    const { server } = await startController({
      configYaml: "nodes:\n  skills:\n    disks:\n      - lab01\n      - lab02\n",
    });
    const store = server.server.context.store;
    await store.create(
      "disks",
      { "SKILL.md": SKILL("disks"), "scripts/check.sh": "df -h\n" },
      { enabled: true },
    );
    await store.create(
      "anywhere",
      { "SKILL.md": SKILL("anywhere"), "scripts/check.sh": "df -h\n" },
      { enabled: true },
    );
    const lab01 = await enrol(server, "lab01");
    await enrol(server, "lab02");
    await enrol(server, "lab03");
    await enrol(server, "w1", "worker");
    const agent = await ScriptedAgent.connect(server, lab01);
    await agent.heartbeat({});
    const turn = server.server.context.host.skillgate.createTurn({ chatId: "c1" });
    const listed = await turn.call("list_skills", {});
    expect(listed.text).toContain("[nodes: lab01, lab02; online: lab01]");
    expect(listed.text).toContain("[nodes: lab01, lab02, lab03; online: lab01]");
    const loaded = await turn.call("load_skill", { skill: "disks" });
    expect(loaded.text).toContain('"node"');
    expect(loaded.text).toMatch(/required[^\n]*node/);
  });

  it("outside skillgate serve, list_skills says node runs go through it", async () => {
    const folders = isolatedFolders(makeTree());
    const skillgate = createSkillgate({ ...folders, builtins: false, audit: false });
    const store = await skillgate.openStore();
    await store.create(
      "disks",
      { "SKILL.md": SKILL("disks"), "scripts/check.sh": "df -h\n" },
      { enabled: true },
    );
    const listed = await skillgate.createTurn({ chatId: "c1" }).call("list_skills", {});
    expect(listed.text).toContain("[nodes: none here; node runs go through skillgate serve]");
    skillgate.close();
  });
});
