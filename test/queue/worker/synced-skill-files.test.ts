import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ControllerClient } from "../../../src/nodes/agent/controller-client.js";
import { SkillCache } from "../../../src/nodes/agent/skill-cache.js";
import { SkillSync } from "../../../src/nodes/agent/skill-sync.js";
import { SyncedSkillFiles } from "../../../src/queue/worker/synced-skill-files.js";
import { makeTree } from "../../helpers/skill-tree.js";
import { skillFiles, writeSkill } from "../../nodes/package-fixtures.js";
import { startTestController } from "../../nodes/package-server.js";

/**
 * A remote worker's skill files over the node issue's SkillSync, against a bare controller on
 * port 0: a hash not held yet is synced on demand, a copy changed on the worker is refused
 * `skill_changed`, a hash the controller does not offer is `skill_unavailable`.
 */

async function world() {
  const tree = makeTree("skillgate-synced-files-");
  const controller = await startTestController(tree);
  const cache = new SkillCache({ dataFolder: join(tree, "worker") });
  const sync = new SkillSync({
    node: controller.node,
    controllerPublicKey: controller.issuer.publicKeyPem,
    transport: new ControllerClient({ controllerUrl: controller.url, credential: controller.credential }),
    cache,
  });
  const offer = (name: string, extra: Record<string, string> = {}): string => {
    const folder = join(tree, "skills", name);
    const hash = writeSkill(folder, skillFiles(name, extra));
    controller.offered.set(name, { name, hash, folder });
    return hash;
  };
  return { files: new SyncedSkillFiles({ sync, cache }), cache, offer };
}

describe("SyncedSkillFiles", () => {
  it("syncs a hash it does not hold yet, then serves the verified copy", async () => {
    const { files, offer, cache } = await world();
    const hash = offer("alpha");
    const outcome = await files.folderFor("alpha", hash);
    expect(outcome).toEqual({ ok: true, folder: cache.folderOf("alpha", hash) });
  });

  it("follows an edit approved after the last sync: the new hash is synced on demand", async () => {
    const { files, offer } = await world();
    const first = offer("alpha");
    expect((await files.folderFor("alpha", first)).ok).toBe(true);
    const second = offer("alpha", { "scripts/extra.py": "print('new')\n" });
    expect(second).not.toBe(first);
    expect((await files.folderFor("alpha", second)).ok).toBe(true);
  });

  it("refuses a copy changed on the worker after it was installed (skill_changed)", async () => {
    const { files, offer } = await world();
    const hash = offer("alpha");
    const outcome = await files.folderFor("alpha", hash);
    if (!outcome.ok) throw new Error(outcome.text);
    const script = join(outcome.folder, "scripts", "run.py");
    chmodSync(script, 0o600);
    writeFileSync(script, "print('changed on the worker')\n");
    expect(await files.folderFor("alpha", hash)).toMatchObject({ ok: false, code: "skill_changed" });
  });

  it("refuses a hash the controller does not offer (skill_unavailable)", async () => {
    const { files, offer } = await world();
    offer("alpha");
    expect(await files.folderFor("alpha", "f".repeat(64))).toMatchObject({
      ok: false,
      code: "skill_unavailable",
    });
    expect(await files.folderFor("beta", "f".repeat(64))).toMatchObject({
      ok: false,
      code: "skill_unavailable",
    });
  });
});
