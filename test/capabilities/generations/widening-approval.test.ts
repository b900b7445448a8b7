import { spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import {
  generationsFolder,
  manageGenerations,
} from "../../../src/capabilities/generations/generation-board.js";
import { type GenerationEvent, LuaSkillReloader } from "../../../src/capabilities/generations/hot-reload.js";
import type { CapabilityProvider } from "../../../src/capabilities/types.js";
import { eventually } from "../../helpers/eventually.js";
import { startTestServer } from "../../helpers/http-server.js";
import { cliSandbox } from "../../surfaces/cli/harness.js";
import { fixtureLoader, reloadProject, versionedScript } from "./reload-project.js";

const reloaders: LuaSkillReloader[] = [];
afterEach(async () => {
  for (const reloader of reloaders.splice(0)) await reloader.stop();
});

async function reloaderOn(dataFolder: string) {
  const project = reloadProject();
  project.writeScript(versionedScript(1));
  const events: GenerationEvent[] = [];
  const index: { current: CapabilityProvider | undefined } = { current: undefined };
  const reloader = new LuaSkillReloader({
    manifestPath: project.manifestPath,
    loadManifest: fixtureLoader(project.root),
    switchIndex: (next) => {
      index.current = next.provider;
    },
    publish: (event) => events.push(event),
    boardFolder: generationsFolder(dataFolder),
    runtime: { invokeAgent: async () => ({ summary: "ok", findings: [] }) },
  });
  reloaders.push(reloader);
  await reloader.start({ watch: false });
  return { project, events, index, reloader, board: generationsFolder(dataFolder) };
}

/** Board writes are flushed to disk; a loaded machine may take seconds. */
const SLOW = { timeoutMs: 30_000 };

const widenWrite = (text: string) => text.replace("    write: []", "    write:\n      - workspace");

describe("a reload that widens what the skill may do waits for the owner", () => {
  it.each([
    ["a write root", widenWrite, "fs write roots: + workspace"],
    ["network", (text: string) => text.replace("network: false", "network: true"), "network: off -> on"],
    [
      "a callable capability",
      (text: string) => text.replace("      - config.inspect", "      - config.inspect\n      - shell.exec"),
      "adapter capabilities: + shell.exec",
    ],
    [
      "the runtime gate",
      (text: string) => text.replace("disallow_team_worker: true", "disallow_team_worker: false"),
      "team workers: disallowed -> allowed",
    ],
    [
      "another runtime mode",
      (text: string) => text.replace("    - normal\n  disallow", "    - normal\n    - job\n  disallow"),
      "runtime modes: + job",
    ],
  ])("widening %s waits; narrowing does not", async (_label, edit, line) => {
    const { project, index, reloader } = await reloaderOn(cliSandbox().data);
    project.editManifest(edit);
    const outcome = await reloader.reload();
    expect(outcome).toEqual({ status: "waiting_approval", generation: 2, widening: [line] });
    expect(index.current?.generation).toBe(1);
    expect(reloader.list()[0]).toMatchObject({ id: "config-lint-skill@2", state: "waiting_approval" });
  });

  it("narrowing switches on its own", async () => {
    const { project, index, reloader } = await reloaderOn(cliSandbox().data);
    project.editManifest((text) => text.replace("      - config.inspect\n", ""));
    expect(await reloader.reload()).toEqual({ status: "switched", generation: 2 });
    expect(index.current?.generation).toBe(2);
  });

  it("skillgate generations lists the waiting switch and approve switches it (CLI, in a child process)", async () => {
    const sandbox = cliSandbox();
    const { project, index, reloader, events } = await reloaderOn(sandbox.data);
    project.editManifest(widenWrite);
    await reloader.reload();
    await eventually("the board shows the waiting generation", async () =>
      expect((await manageGenerations(generationsFolder(sandbox.data), { action: "list" })).action).toBe(
        "list",
      ),
    );
    const listed = await eventually(
      "the CLI lists it",
      async () => {
        const result = await sandbox.run(["generations", "--json"]);
        const body = JSON.parse(result.out) as { generations: { id: string; state: string }[] };
        return body.generations.some((record) => record.state === "waiting_approval") ? body : false;
      },
      SLOW,
    );
    expect(listed.generations.map((record) => [record.id, record.state])).toEqual([
      ["config-lint-skill@2", "waiting_approval"],
      ["config-lint-skill@1", "active"],
    ]);
    const text = await sandbox.run(["generations"]);
    expect(text.out).toContain("fs write roots: + workspace");

    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "src/surfaces/cli/main.ts",
        ...sandbox.flags(),
        "generations",
        "approve",
        "config-lint-skill@2",
      ],
      { env: process.env },
    );
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect({ code, out }).toEqual({
      code: 0,
      out: "approved config-lint-skill@2: the process serving the skill switches to it and drains the old generation.\n",
    });
    await eventually("generation 2 serves", () => index.current?.generation === 2, SLOW);
    expect(events.some((event) => event.topic === "/capability/reloaded" && event.generation === 2)).toBe(
      true,
    );
    await eventually("generation 1 is closed", () => reloader.list()[1]?.state === "closed", SLOW);
  });

  it("approving what is not waiting is refused with generation_not_waiting; an unknown id is generation_not_found", async () => {
    const sandbox = cliSandbox();
    await reloaderOn(sandbox.data);
    await eventually(
      "generation 1 is on the board",
      async () => {
        const response = await manageGenerations(generationsFolder(sandbox.data), { action: "list" });
        return response.action === "list" && response.generations.length === 1;
      },
      SLOW,
    );
    expect(await sandbox.run(["generations", "approve", "config-lint-skill@1"])).toMatchObject({
      code: 1,
      err: expect.stringContaining("[generation_not_waiting]"),
    });
    expect(await sandbox.run(["generations", "reject", "nope@9"])).toMatchObject({
      code: 1,
      err: expect.stringContaining("[generation_not_found]"),
    });
  });

  it("POST /api/generations/ID/reject drops the waiting switch; the active generation keeps serving", async () => {
    const server = await startTestServer();
    const { project, index, reloader, events } = await reloaderOn(server.folders.data);
    project.editManifest(widenWrite);
    await reloader.reload();
    const listed = await eventually(
      "the API lists the waiting generation",
      async () => {
        const answer = await server.json<{ generations: { id: string; state: string }[] }>(
          "/api/generations",
        );
        return answer.body.generations.some((record) => record.state === "waiting_approval") ? answer : false;
      },
      SLOW,
    );
    expect(listed.status).toBe(200);
    const rejected = await server.json("/api/generations/config-lint-skill%402/reject", { method: "POST" });
    expect(rejected).toMatchObject({
      status: 200,
      body: { action: "reject", generation: { id: "config-lint-skill@2" } },
    });
    await eventually("generation 2 is rejected", () => reloader.list()[0]?.state === "rejected", SLOW);
    expect(index.current?.generation).toBe(1);
    expect(events.at(-1)).toMatchObject({ topic: "/skill/reload_failed", code: "rejected_by_owner" });
    await eventually("the board shows it rejected", async () => {
      const answer = await server.json<{ generations: { id: string; state: string }[] }>("/api/generations");
      return (
        answer.body.generations.find((record) => record.id === "config-lint-skill@2")?.state === "rejected"
      );
    });
    const again = await server.json<{ error: { code: string } }>(
      "/api/generations/config-lint-skill%402/approve",
      {
        method: "POST",
      },
    );
    expect(again.status).toBe(409);
    const missing = await server.json("/api/generations/nope%401/approve", { method: "POST" });
    expect(missing.status).toBe(404);
  });
});
