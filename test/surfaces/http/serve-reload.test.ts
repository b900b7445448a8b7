import { rmSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import type { GenerationRecord } from "../../../src/capabilities/generations/generation.js";
import {
  generationsFolder,
  manageGenerations,
} from "../../../src/capabilities/generations/generation-board.js";
import { AuditLog } from "../../../src/observe/audit-log.js";
import type { ServerEvent } from "../../../src/surfaces/http/server-events.js";
import {
  ECHO_CAPABILITY,
  ECHO_SKILL,
  echoScript,
  writeEchoSkill,
} from "../../capabilities/generations/served-lua-skill.js";
import { eventually } from "../../helpers/eventually.js";
import { startTestServer, type TestServer } from "../../helpers/http-server.js";

/**
 * Hot reload in a running `skillgate serve` (port 0, a Lua skill in its temporary config):
 * the server starts one reloader per Lua manifest on the Skillgate's own registry, so a
 * turn's `invoke_capability` and a client of `/mcp` both reach the generation it switched to.
 */

const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => {});
});

/** Reloads and board writes are flushed to disk; a loaded machine may take seconds. */
const SLOW = { timeoutMs: 30_000 };

async function servedEcho() {
  let skill: ReturnType<typeof writeEchoSkill> | undefined;
  const served = await startTestServer({
    builtins: false,
    prepare: (folders) => {
      skill = writeEchoSkill(folders.config);
    },
  });
  if (skill === undefined) throw new Error("the skill was not written");
  return { served, skill };
}

async function doors(served: TestServer) {
  const skillgate = served.server.context.host.skillgate;
  const turn = skillgate.createTurn({ chatId: "reload-chat" });
  const transport = new StreamableHTTPClientTransport(new URL(`${served.origin}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${served.token}` } },
  });
  const client = new Client({ name: "reload-test", version: "1.0.0" });
  await client.connect(transport);
  clients.push(client);
  return {
    /** The turn's `invoke_capability` (in process, the same Skillgate the server serves). */
    viaTurn: async (n: number): Promise<unknown> => {
      const result = await turn.call("invoke_capability", { capability: ECHO_CAPABILITY, payload: { n } });
      if (result.status !== "ok") throw new Error(`the turn answered ${result.status}: ${result.text}`);
      return JSON.parse(result.text);
    },
    /** The capability's own tool over `/mcp`. */
    viaMcp: async (n: number): Promise<unknown> =>
      (await client.callTool({ name: ECHO_CAPABILITY, arguments: { n } })).structuredContent,
    /** The generation the registry routes to. */
    activeGeneration: () => skillgate.capabilityRegistry.entry(ECHO_SKILL)?.provider.generation,
  };
}

const recordsOf = (served: TestServer): GenerationRecord[] => served.server.context.reloads?.list() ?? [];
const stateOf = (served: TestServer, number: number) =>
  recordsOf(served).find((record) => record.number === number)?.state;

describe("skillgate serve reloads Lua skills by generation swap", () => {
  it("an edited script answers on every door; a syntax error keeps the old generation; a widening edit waits for /api/generations approve", async () => {
    const { served, skill } = await servedEcho();
    const published: ServerEvent[] = [];
    served.server.context.events.subscribe((event) => published.push(event));
    const door = await doors(served);
    expect(served.server.context.reloads?.manifests()).toEqual([skill.manifestPath]);
    expect(await door.viaTurn(3)).toEqual({ version: 1, product: 3 });
    expect(await door.viaMcp(3)).toEqual({ version: 1, product: 3 });
    expect(recordsOf(served)).toEqual([expect.objectContaining({ id: `${ECHO_SKILL}@1`, state: "active" })]);

    // An edit: the next generation answers every door, and the old one drains and closes.
    skill.writeScript(echoScript(2));
    await eventually("generation 2 serves", () => door.activeGeneration() === 2, SLOW);
    expect(await door.viaTurn(3)).toEqual({ version: 2, product: 6 });
    expect(await door.viaMcp(4)).toEqual({ version: 2, product: 8 });
    await eventually("generation 1 is closed", () => stateOf(served, 1) === "closed", SLOW);

    // A syntax error: the reload fails at load_state and generation 2 keeps answering.
    skill.writeScript("VERSION = 3\nfunction invoke(ctx, payload) return {\n");
    await eventually("generation 3 is rejected", () => stateOf(served, 3) === "rejected", SLOW);
    expect(recordsOf(served).find((record) => record.number === 3)?.detail).toMatch(/^load_state: /);
    expect(door.activeGeneration()).toBe(2);
    expect(await door.viaTurn(5)).toEqual({ version: 2, product: 10 });
    expect(await door.viaMcp(5)).toEqual({ version: 2, product: 10 });

    // Fixed again: generation 4. Then a widening edit: generation 5 waits for the owner.
    skill.writeScript(echoScript(3));
    await eventually("generation 4 serves", () => door.activeGeneration() === 4, SLOW);
    skill.widenToWorkspaceReads();
    await eventually("generation 5 waits", () => stateOf(served, 5) === "waiting_approval", SLOW);
    const listed = await served.json<{ generations: GenerationRecord[] }>("/api/generations");
    expect(listed.body.generations.find((record) => record.number === 5)).toMatchObject({
      id: `${ECHO_SKILL}@5`,
      state: "waiting_approval",
      widening: ["fs read roots: + workspace"],
    });
    expect(door.activeGeneration()).toBe(4);
    expect(await door.viaMcp(1)).toEqual({ version: 3, product: 3 });

    const approved = await served.json(`/api/generations/${encodeURIComponent(`${ECHO_SKILL}@5`)}/approve`, {
      method: "POST",
    });
    expect(approved.status).toBe(200);
    await eventually("generation 5 serves", () => door.activeGeneration() === 5, SLOW);
    expect(await door.viaTurn(2)).toEqual({ version: 3, product: 6 });
    expect(await door.viaMcp(2)).toEqual({ version: 3, product: 6 });
    await eventually("generation 4 is closed", () => stateOf(served, 4) === "closed", SLOW);

    // Every step reached the live updates (the bus /api/events streams) and the audit log.
    const capabilityEvents = published.flatMap((event) =>
      event.type === "capability-event" ? [event.name] : [],
    );
    expect(capabilityEvents).toEqual(
      expect.arrayContaining([
        "/skill/reload/step",
        "/skill/reloaded",
        "/capability/reloaded",
        "/skill/reload_failed",
        "/skill/generation/waiting",
      ]),
    );
    expect(published).toContainEqual({ type: "generation-changed", name: ECHO_SKILL, id: `${ECHO_SKILL}@5` });
    const audit = new AuditLog({ dataFolder: served.folders.data }).query();
    const reloadLines = audit.filter((event) => event.skillId === ECHO_SKILL && event.tool === "hot-reload");
    expect(
      reloadLines
        .filter((event) => event.type === "capability-reload-step" && event.generation === 2)
        .map((event) => event.reloadStep),
    ).toEqual([
      "debounce",
      "parse_manifest",
      "validate",
      "load_state",
      "bind_api",
      "health_check",
      "install_shadow",
      "switch_index",
      "drain_old",
      "publish",
    ]);
    expect(reloadLines.find((event) => event.type === "/skill/reload_failed")).toMatchObject({
      generation: 3,
      reloadStep: "load_state",
      status: "failed",
    });
    expect(reloadLines.find((event) => event.type === "capability-generation-waiting")).toMatchObject({
      generation: 5,
      widening: ["fs read roots: + workspace"],
    });
    // The invocations after the approval were answered by generation 5.
    expect(
      audit.filter((event) => event.type === "/skill/completed" && event.provider === ECHO_SKILL).at(-1)
        ?.generation,
    ).toBe(5);
  });

  it("stops its reloaders on close: every generation's state is closed and the board says so", async () => {
    const { served } = await servedEcho();
    const reloads = served.server.context.reloads;
    expect(reloads?.list().map((record) => record.state)).toEqual(["active"]);
    await served.server.close();
    expect(reloads?.list().map((record) => record.state)).toEqual(["closed"]);
    // The board on disk is what a later `skillgate generations` reads.
    const board = await manageGenerations(generationsFolder(served.folders.data), { action: "list" });
    expect(board.action === "list" && board.generations.map((record) => [record.id, record.state])).toEqual([
      [`${ECHO_SKILL}@1`, "closed"],
    ]);
  });

  it("a skill whose first generation failed at start is served once its script is fixed", async () => {
    let skill: ReturnType<typeof writeEchoSkill> | undefined;
    const served = await startTestServer({
      builtins: false,
      prepare: (folders) => {
        skill = writeEchoSkill(folders.config);
        skill.writeScript("function invoke(ctx, payload) return {\n");
      },
    });
    const door = await doors(served);
    expect(door.activeGeneration()).toBeUndefined();
    expect(recordsOf(served)).toEqual([expect.objectContaining({ number: 1, state: "rejected" })]);
    skill?.writeScript(echoScript(7));
    await eventually("generation 2 serves", () => door.activeGeneration() === 2, SLOW);
    expect(await door.viaMcp(1)).toEqual({ version: 7, product: 7 });
  });

  it("a manifest added while serving is served; a removed one leaves the index and its reloader stops", async () => {
    const { served, skill } = await servedEcho();
    const skillgate = served.server.context.host.skillgate;
    const turn = skillgate.createTurn({ chatId: "reload-added" });
    const second = skill.addSecondManifest();
    await eventually(
      "the added manifest serves",
      () => skillgate.capabilityRegistry.entry("echo-two")?.provider.generation === 1,
      SLOW,
    );
    expect(served.server.context.reloads?.manifests().sort()).toEqual([skill.manifestPath, second].sort());
    const added = await turn.call("invoke_capability", {
      capability: "workflow.echo_two",
      payload: { n: 4 },
    });
    expect({ status: added.status, output: JSON.parse(added.text) }).toEqual({
      status: "ok",
      output: { version: 1, product: 4 },
    });

    rmSync(skill.manifestPath);
    await eventually(
      "the removed manifest left the index",
      () => skillgate.capabilityRegistry.entry(ECHO_SKILL) === undefined,
      SLOW,
    );
    await eventually(
      "its reloader stopped",
      () => served.server.context.reloads?.manifests().length === 1,
      SLOW,
    );
    // Its last generation was drained and closed; the board on disk says so.
    await eventually(
      "its generation is closed on the board",
      async () => {
        const board = await manageGenerations(generationsFolder(served.folders.data), { action: "list" });
        return (
          board.action === "list" &&
          board.generations.find((record) => record.id === `${ECHO_SKILL}@1`)?.state === "closed"
        );
      },
      SLOW,
    );
    const gone = await turn.call("invoke_capability", { capability: ECHO_CAPABILITY, payload: { n: 1 } });
    expect(gone.text).toMatch(/^HOST: /);
    expect(gone.status).not.toBe("ok");
    // The other manifest is untouched.
    expect(skillgate.capabilityRegistry.entry("echo-two")?.provider.generation).toBe(1);
  });
});
