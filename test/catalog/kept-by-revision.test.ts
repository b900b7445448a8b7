import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createSkillgate, type Skillgate } from "../../src/app/skillgate.js";
import type { CatalogWatch } from "../../src/catalog/watch.js";
import { silentLogger } from "../../src/observe/logger.js";
import type { Approver } from "../../src/tools/broker.js";
import { eventually } from "../helpers/eventually.js";
import { makeTree, writeSkill } from "../helpers/skill-tree.js";

/**
 * A Skillgate whose catalog is kept by revision, as a long-running process keeps it: tool
 * calls compare a number, store writes of this process move it at once, notifications move
 * it for changes on disk, and what runs is still only what was approved.
 */

const opened: Array<{ skillgate: Skillgate; watch: CatalogWatch }> = [];
afterEach(() => {
  for (const { skillgate, watch } of opened.splice(0)) {
    watch.stop();
    skillgate.close();
  }
});

function place() {
  const tree = makeTree("skillgate-kept-");
  const config = join(tree, "config");
  const data = join(tree, "data");
  const project = join(tree, "project");
  const skills = join(project, ".agents", "skills");
  mkdirSync(config, { recursive: true });
  writeFileSync(join(config, "config.yaml"), "runners:\n  local:\n    trusted: [demo]\n");
  writeSkill(skills, "demo", {
    frontMatter: {
      name: "demo",
      description: "A demo skill.",
      metadata: { "skillgate.execution": "local", "skillgate.tier": "change" },
    },
    files: { "scripts/run.sh": "echo approved\n" },
  });
  return { tree, config, data, project, skills };
}

/** A watched Skillgate over `where`; `notifications: false` leaves only this process's store writes and the re-check. */
function watchedSkillgate(
  where: ReturnType<typeof place>,
  options: { notifications?: boolean; approve?: Approver } = {},
) {
  const skillgate = createSkillgate({
    config: where.config,
    data: where.data,
    roots: [where.project],
    builtins: false,
    audit: false,
    logger: silentLogger,
    approve: options.approve ?? (async () => "once"),
  });
  const watch = skillgate.catalog.watch({
    intervalMs: 3_600_000,
    settleMs: 5,
    ...(options.notifications !== undefined ? { notifications: options.notifications } : {}),
  });
  opened.push({ skillgate, watch });
  return skillgate;
}

const STORED = "---\nname: stored\ndescription: A stored skill.\n---\nStored instructions.\n";

describe("a catalog kept by revision", () => {
  it("a store write moves the revision before it resolves, and the next call sees it", async () => {
    const where = place();
    // No notifications: only the store's own announcement can move the revision.
    const skillgate = watchedSkillgate(where, { notifications: false });
    const turn = skillgate.createTurn({ chatId: "chat-1" });
    expect((await turn.call("load_skill", { skill: "stored" })).status).toBe("refused");
    const store = await skillgate.openStore();
    const before = skillgate.catalog.revision.value;
    const created = await store.create("stored", { "SKILL.md": STORED });
    await store.enable("stored", { hash: created.hash });
    expect(skillgate.catalog.revision.value).toBeGreaterThan(before);
    const loaded = await turn.call("load_skill", { skill: "stored" });
    expect(loaded.status).toBe("ok");
    expect(loaded.text).toContain("Stored instructions.");
  });

  it("calls with nothing changed walk the tree no more", async () => {
    const where = place();
    const skillgate = watchedSkillgate(where);
    const turn = skillgate.createTurn({ chatId: "chat-1" });
    await turn.call("load_skill", { skill: "demo" });
    const runs = skillgate.catalog.discoveryRuns;
    for (let call = 0; call < 10; call += 1)
      expect((await turn.call("load_skill", { skill: "demo" })).status).toBe("ok");
    expect(skillgate.catalog.discoveryRuns).toBe(runs);
  });

  it("a skill disabled in the store mid-turn answers HOST: that skill is no longer enabled.", async () => {
    const where = place();
    const skillgate = watchedSkillgate(where, { notifications: false });
    const store = await skillgate.openStore();
    const created = await store.create("stored", { "SKILL.md": STORED });
    await store.enable("stored", { hash: created.hash });
    const turn = skillgate.createTurn({ chatId: "chat-1" });
    expect((await turn.call("load_skill", { skill: "stored" })).status).toBe("ok");
    await store.disable("stored");
    expect(await turn.call("load_skill", { skill: "stored" })).toMatchObject({
      status: "denied",
      text: "HOST: that skill is no longer enabled.",
    });
  });

  it("a skill disabled in the configuration on disk mid-turn is refused after the notification", async () => {
    const where = place();
    const skillgate = watchedSkillgate(where);
    const turn = skillgate.createTurn({ chatId: "chat-1" });
    expect((await turn.call("load_skill", { skill: "demo" })).status).toBe("ok");
    writeFileSync(
      join(where.config, "config.yaml"),
      "runners:\n  local:\n    trusted: [demo]\nskills:\n  disabled: [demo]\n",
    );
    await eventually(
      "the configuration change",
      async () =>
        (await turn.call("load_skill", { skill: "demo" })).text === "HOST: that skill is no longer enabled.",
    );
  });

  it("a file swapped after approval still does not run", async () => {
    const where = place();
    const marker = join(where.tree, "swapped-ran");
    const skillgate = watchedSkillgate(where, {
      approve: async () => {
        writeFileSync(join(where.skills, "demo", "scripts", "run.sh"), `touch ${marker}\n`);
        return "once";
      },
    });
    const turn = skillgate.createTurn({ chatId: "chat-1" });
    const answer = await turn.call("run_skill_script", { skill: "demo", script: "scripts/run.sh" });
    expect(answer.status).toBe("refused");
    expect(answer.text).toMatch(/^HOST: demo changed after this call was approved/);
    expect(existsSync(marker)).toBe(false);
  });
});
