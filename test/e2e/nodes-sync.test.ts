import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { eventually } from "../helpers/eventually.js";
import type { TestServerFolders } from "../helpers/http-server.js";
import { requireTools } from "../helpers/required-tools.js";
import {
  enrolledAgent,
  hashOf,
  nodeHolds,
  nodeView,
  rawRun,
  runOn,
  startController,
  streamed,
  writeNodeSkill,
} from "./nodes-harness.js";

requireTools("bwrap", "python3");

const FRESH_SKILL_MD =
  "---\nname: fresh\ndescription: A skill the owner adds while the node runs.\nmetadata:\n  skillgate.execution: node\n  skillgate.tier: read\n---\nRun scripts/fresh.py.\n";

function writeBase(folders: TestServerFolders): void {
  writeNodeSkill(folders, "base", { "scripts/base.py": "print('base one')\n" });
}

/** The `name@hash` folders in an agent's cache. */
function cached(data: string): string[] {
  const folder = join(data, "node-agent", "skills");
  return existsSync(folder)
    ? readdirSync(folder)
        .filter((entry) => entry.includes("@"))
        .sort()
    : [];
}

describe("SkillSync between a controller and a real agent", () => {
  it("an enabled skill reaches the agent within one sync request; a disabled one is pruned", async () => {
    const server = await startController(writeBase);
    const lab01 = await enrolledAgent(server, "lab01");
    const created = await server.json<{ hash: string }>("/api/skills", {
      method: "POST",
      body: {
        name: "fresh",
        files: { "SKILL.md": FRESH_SKILL_MD, "scripts/fresh.py": "print('fresh')\n" },
        enabled: true,
      },
    });
    expect(created.status).toBe(201);
    const sync = await server.json(`/api/nodes/lab01/sync`, { method: "POST" });
    expect(sync.status).toBe(200);
    const synced = await lab01.waitFor(/skills synced why=sync-skills installed=fresh@/);
    const hash = /installed=fresh@([0-9a-f]{8})/.exec(synced)?.[1] ?? "";
    await eventually(
      "the heartbeat lists fresh",
      async () => (await nodeView(server, "lab01"))?.skills.fresh?.startsWith(hash) === true,
    );
    expect(cached(lab01.data).some((entry) => entry.startsWith(`fresh@${hash}`))).toBe(true);

    const disabled = await server.json("/api/skills/fresh/enabled", {
      method: "PUT",
      body: { enabled: false },
    });
    expect(disabled.status).toBe(200);
    await server.json(`/api/nodes/lab01/sync`, { method: "POST" });
    await lab01.waitFor(/skills synced why=sync-skills installed=none removed=fresh@/);
    await nodeHolds(server, "lab01", { fresh: undefined });
    expect(cached(lab01.data).some((entry) => entry.startsWith("fresh@"))).toBe(false);
  });

  it("an edit replaces the old copy; a run of the old hash is refused by the agent, the new one runs", async () => {
    const server = await startController(writeBase);
    const lab01 = await enrolledAgent(server, "lab01");
    const folder = join(server.folders.skills, "base");
    const oldHash = hashOf(folder);
    await nodeHolds(server, "lab01", { base: oldHash });
    writeFileSync(join(folder, "scripts", "base.py"), "print('base two')\n");
    const newHash = hashOf(folder);
    await server.json(`/api/nodes/lab01/sync`, { method: "POST" });
    await lab01.waitFor(
      new RegExp(`installed=base@${newHash.slice(0, 8)} removed=base@${oldHash.slice(0, 8)}`),
    );
    await nodeHolds(server, "lab01", { base: newHash });
    expect(cached(lab01.data)).toEqual([`base@${newHash}`]);

    const old = await rawRun(server, "lab01", {
      requestId: "old-hash-run",
      skill: "base",
      hash: oldHash,
      script: "scripts/base.py",
    });
    expect(old).toMatchObject({ status: "refused", code: "skill_not_held" });
    expect(old.message).toMatch(/^HOST: this node holds no copy of base@/);
    const current = await runOn(server, { skill: "base", script: "scripts/base.py", node: "lab01" });
    expect(current.result.status).toBe("ok");
    expect(streamed(current.lines)).toBe("base two\n");
  });

  it("a run of a skill the node does not hold yet makes it sync first, then runs", async () => {
    const server = await startController(writeBase);
    const lab01 = await enrolledAgent(server, "lab01");
    writeNodeSkill(server.folders, "late", { "scripts/late.py": "print('late')\n" });
    const late = await runOn(server, { skill: "late", script: "scripts/late.py", node: "lab01" });
    expect(late.result.status).toBe("ok");
    expect(streamed(late.lines)).toBe("late\n");
    expect(lab01.lines.some((line) => /skills synced why=sync-skills installed=late@/.test(line))).toBe(true);
    expect((await nodeView(server, "lab01"))?.features).toContain("sandbox");
  });
});
