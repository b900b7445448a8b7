import { createHash } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AGENT_ROUTES, type SkillsManifest } from "../../src/nodes/protocol.js";
import { eventually } from "../helpers/eventually.js";
import type { TestServerFolders } from "../helpers/http-server.js";
import { requireTools } from "../helpers/required-tools.js";
import {
  type AgentProcess,
  enrolledAgent,
  hashOf,
  nodeHolds,
  rawRun,
  runOn,
  startAgent,
  startController,
  streamed,
  writeNodeSkill,
} from "./nodes-harness.js";

requireTools("bwrap", "python3");

/**
 * A package damaged after the controller built it, against a real agent: the controller serves
 * the file it keeps (`<data>/nodes/packages/NAME@HASH.tar.gz`) and lists the SHA-256 of its
 * build in the signed manifest, so one byte flipped in that file reaches the agent's SHA-256
 * check for real. Everything asserted is state: the agent's files, its held set on disk, the
 * controller's view of its heartbeat, and the answers of runs.
 */

function writeBase(folders: TestServerFolders): void {
  writeNodeSkill(folders, "base", { "scripts/base.py": "print('base one')\n" });
}

/** The agent's held set and last accepted sequence (`<agent data>/skills/held.json`). */
interface Held {
  readonly sequence: number;
  readonly skills: Readonly<Record<string, string>>;
}

function skillsFolderOf(agent: AgentProcess): string {
  return join(agent.data, "node-agent", "skills");
}

function heldOf(agent: AgentProcess): Held {
  return JSON.parse(readFileSync(join(skillsFolderOf(agent), "held.json"), "utf8")) as Held;
}

function entriesOf(agent: AgentProcess): string[] {
  return readdirSync(skillsFolderOf(agent)).sort();
}

/** lab01's manifest, fetched with its credential as its agent would (the controller builds its packages now). */
async function fetchManifest(origin: string, agent: AgentProcess): Promise<SkillsManifest> {
  const credential = readFileSync(join(agent.data, "node-agent", "credential"), "utf8").trim();
  const answer = await fetch(`${origin}${AGENT_ROUTES.manifest}`, {
    headers: { Authorization: `Bearer ${credential}` },
  });
  expect(answer.status).toBe(200);
  const signed = (await answer.json()) as { payload: string };
  return JSON.parse(Buffer.from(signed.payload, "base64").toString("utf8")) as SkillsManifest;
}

describe("a tampered package against a real agent", () => {
  it("one flipped byte is refused by the SHA-256 check: nothing installs, the good set is kept, a run of that hash is refused", async () => {
    const server = await startController(writeBase, undefined, { nodeSyncWaitMs: 3_000 });
    const lab01 = await enrolledAgent(server, "lab01");
    const folder = join(server.folders.skills, "base");
    const goodHash = hashOf(folder);
    await nodeHolds(server, "lab01", { base: goodHash });
    const entriesBefore = entriesOf(lab01);
    expect(entriesBefore).toEqual([`base@${goodHash}`, "held.json"]);
    expect(heldOf(lab01).skills).toEqual({ base: goodHash });

    // The agent is stopped while the package is damaged, so it cannot fetch the good bytes first.
    await lab01.kill("SIGTERM");
    writeFileSync(join(folder, "scripts", "base.py"), "print('base two')\n");
    const newHash = hashOf(folder);
    const manifest = await fetchManifest(server.origin, lab01);
    const listed = manifest.skills.find((skill) => skill.name === "base");
    expect(listed?.hash).toBe(newHash);
    const packageFile = join(server.folders.data, "nodes", "packages", `base@${newHash}.tar.gz`);
    const original = readFileSync(packageFile);
    expect(createHash("sha256").update(original).digest("hex")).toBe(listed?.sha256);
    const damaged = Buffer.from(original);
    const middle = Math.floor(damaged.length / 2);
    damaged[middle] = (damaged[middle] as number) ^ 0x01;
    writeFileSync(packageFile, damaged);

    // The restarted agent syncs at once: it accepts the newer manifest (its sequence is
    // recorded) and refuses the package, so its held set stays the good one.
    const again = startAgent(server.origin, "lab01", { data: lab01.data });
    await eventually(
      "the agent's sync of the newer manifest",
      () => heldOf(again).sequence > manifest.sequence,
      {
        timeoutMs: 30_000,
        intervalMs: 100,
      },
    );
    expect(heldOf(again).skills).toEqual({ base: goodHash });
    expect(entriesOf(again)).toEqual(entriesBefore);
    expect(hashOf(join(skillsFolderOf(again), `base@${goodHash}`))).toBe(goodHash);
    await nodeHolds(server, "lab01", { base: goodHash });

    // A run of the damaged hash is refused by the agent (its own sync attempt fails again),
    // and through the controller (the node never lists it); the good copy still runs.
    const refused = await rawRun(server, "lab01", {
      requestId: "tampered-hash-run",
      skill: "base",
      hash: newHash,
      script: "scripts/base.py",
    });
    expect(refused).toMatchObject({ status: "refused", code: "skill_not_held" });
    const viaController = await runOn(server, { skill: "base", script: "scripts/base.py", node: "lab01" });
    expect(viaController.result.run).toMatchObject({ status: "refused", code: "skill_not_on_node" });
    expect(streamed(viaController.lines)).toBe("");
    const kept = await rawRun(server, "lab01", {
      requestId: "good-hash-run",
      skill: "base",
      hash: goodHash,
      script: "scripts/base.py",
    });
    expect(kept).toMatchObject({ status: "ok", exitCode: 0, stdout: "base one\n" });
    expect(heldOf(again).skills).toEqual({ base: goodHash });
    expect(entriesOf(again)).toEqual(entriesBefore);

    // The same byte put back: the same agent installs that hash on its next sync and runs it.
    writeFileSync(packageFile, original);
    const sync = await server.json("/api/nodes/lab01/sync", { method: "POST" });
    expect(sync.status).toBe(200);
    await nodeHolds(server, "lab01", { base: newHash });
    expect(entriesOf(again)).toEqual([`base@${newHash}`, "held.json"]);
    const healed = await runOn(server, { skill: "base", script: "scripts/base.py", node: "lab01" });
    expect(healed.result.status).toBe("ok");
    expect(streamed(healed.lines)).toBe("base two\n");
  });

  it("one flipped byte in the agent's installed copy: the run is refused as that node's report, the copy is dropped and fetched again", async () => {
    const server = await startController(writeBase);
    const lab01 = await enrolledAgent(server, "lab01");
    const hash = hashOf(join(server.folders.skills, "base"));
    await nodeHolds(server, "lab01", { base: hash });
    const script = join(skillsFolderOf(lab01), `base@${hash}`, "scripts", "base.py");
    const good = readFileSync(script);
    const damaged = Buffer.from(good);
    damaged[0] = (damaged[0] as number) ^ 0x01;
    writeFileSync(script, damaged);

    const refused = await runOn(server, { skill: "base", script: "scripts/base.py", node: "lab01" });
    expect(refused.result.run).toMatchObject({ status: "refused", code: "skill_changed" });
    expect(refused.result.text).toMatch(/^HOST: node lab01 reports: .*\[skill_changed\]$/);
    expect(streamed(refused.lines)).toBe("");

    // The agent dropped the changed copy and synced it again: the same bytes as the controller's.
    await eventually("the copy fetched again", () => readFileSync(script, "utf8") === good.toString("utf8"), {
      timeoutMs: 30_000,
      intervalMs: 100,
    });
    await nodeHolds(server, "lab01", { base: hash });
    expect(heldOf(lab01).skills).toEqual({ base: hash });
    const again = await runOn(server, { skill: "base", script: "scripts/base.py", node: "lab01" });
    expect(again.result.status).toBe("ok");
    expect(streamed(again.lines)).toBe("base one\n");
  });
});
