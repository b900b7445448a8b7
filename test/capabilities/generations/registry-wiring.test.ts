import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { GenerationRecord } from "../../../src/capabilities/generations/generation.js";
import {
  type GenerationAnswer,
  generationsFolder,
  manageGenerations,
  publishGenerations,
  watchGenerationAnswers,
} from "../../../src/capabilities/generations/generation-board.js";
import { LuaSkillReloader } from "../../../src/capabilities/generations/hot-reload.js";
import { registrySwitch } from "../../../src/capabilities/generations/registry-switch.js";
import { LuaCapabilityProvider } from "../../../src/capabilities/lua/lua-provider.js";
import { LuaRuntime } from "../../../src/capabilities/lua/lua-runtime.js";
import { CapabilityRegistry, CapabilitySnapshot } from "../../../src/capabilities/registry.js";
import { eventually } from "../../helpers/eventually.js";
import { cliSandbox } from "../../surfaces/cli/harness.js";
import { testContext } from "../lua/lua-test-context.js";
import { fixtureLoader, reloadProject, versionedScript } from "./reload-project.js";

/**
 * The reloader on the real capability registry, as a running server wires it: the provider
 * the capability plane built before the reloader started is retired to the reloader's first
 * generation; a changed manifest id leaves no entry of the old id; and reloaders sharing one
 * generation board each take only their own skill's answers.
 */

const reloaders: LuaSkillReloader[] = [];
afterEach(async () => {
  for (const reloader of reloaders.splice(0)) await reloader.stop();
});

const REVIEW = async () => ({ summary: "ok", findings: [] });

function reloaderOf(
  project: ReturnType<typeof reloadProject>,
  registry: CapabilityRegistry,
  boardFolder?: string,
) {
  const reloader = new LuaSkillReloader({
    manifestPath: project.manifestPath,
    loadManifest: fixtureLoader(project.root),
    switchIndex: registrySwitch(registry),
    runtime: { invokeAgent: REVIEW },
    ...(boardFolder !== undefined ? { boardFolder } : {}),
  });
  reloaders.push(reloader);
  return reloader;
}

/** What the capability plane's first load would have registered for the project. */
async function planeProvider(project: ReturnType<typeof reloadProject>) {
  const manifest = await fixtureLoader(project.root)(project.manifestPath);
  const runtime = await LuaRuntime.create({
    skill: manifest.descriptor.id,
    source: await readFile(manifest.scriptPath, "utf8"),
    chunkName: "config_lint.lua",
    invokeAgent: REVIEW,
  });
  const provider = new LuaCapabilityProvider(
    manifest.descriptor,
    manifest.permissions,
    manifest.entry,
    runtime,
    1,
  );
  return { provider, capabilities: manifest.capabilities, runtimes: manifest.runtimes };
}

describe("hot reload on the capability registry", () => {
  it("retires the plane's provider to the reloader's first generation: a late call is answered by the successor", async () => {
    const project = reloadProject();
    project.writeScript(versionedScript(1));
    const registry = new CapabilityRegistry();
    const plane = await planeProvider(project);
    registry.switch(new CapabilitySnapshot([plane]));
    project.writeScript(versionedScript(2));
    const reloader = reloaderOf(project, registry);
    expect(await reloader.start({ watch: false })).toEqual({ status: "switched", generation: 1 });
    const serving = registry.entry("config-lint-skill")?.provider;
    expect(serving).toBe(reloader.active);
    expect(serving).not.toBe(plane.provider);
    expect(registry.providersOf("workflow.config_lint", "normal")).toEqual([reloader.active]);
    // A call that reached the plane's provider after the switch is handed over, wholly.
    const late = await plane.provider.invokeWithGeneration(
      { n: 2 },
      testContext({ permissions: plane.provider.permissions }),
    );
    expect(late.value).toMatchObject({ summary: "v2/2", product: 4 });
  });

  it("a reload that changes the manifest's id replaces the old id's entry", async () => {
    const project = reloadProject();
    project.writeScript(versionedScript(1));
    const registry = new CapabilityRegistry();
    const reloader = reloaderOf(project, registry);
    await reloader.start({ watch: false });
    project.editManifest((text) => text.replace("id: config-lint-skill", "id: config-lint-renamed"));
    expect(await reloader.reload()).toEqual({ status: "switched", generation: 2 });
    expect(registry.snapshot.entries.map((entry) => entry.provider.descriptor.id)).toEqual([
      "config-lint-renamed",
    ]);
  });

  it("reloaders sharing one board each take only their own skill's answer", async () => {
    const board = generationsFolder(cliSandbox().data);
    const registry = new CapabilityRegistry();
    const first = reloadProject();
    const second = reloadProject();
    second.editManifest((text) => text.replace("id: config-lint-skill", "id: second-lint"));
    for (const project of [first, second]) project.writeScript(versionedScript(1));
    const firstReloader = reloaderOf(first, registry, board);
    const secondReloader = reloaderOf(second, registry, board);
    await firstReloader.start({ watch: false });
    await secondReloader.start({ watch: false });
    const widen = (text: string) => text.replace("    write: []", "    write:\n      - workspace");
    first.editManifest(widen);
    second.editManifest(widen);
    expect((await firstReloader.reload()).status).toBe("waiting_approval");
    expect((await secondReloader.reload()).status).toBe("waiting_approval");
    await eventually(
      "both wait on the board",
      async () => {
        const listed = await manageGenerations(board, { action: "list" });
        return (
          listed.action === "list" &&
          listed.generations.filter((record) => record.state === "waiting_approval").length === 2
        );
      },
      { timeoutMs: 30_000 },
    );
    // The first reloader watches the answers folder too; it must leave the second's answer alone.
    await manageGenerations(board, { action: "approve", id: "second-lint@2" });
    await eventually(
      "the second skill switched",
      () => registry.entry("second-lint")?.provider.generation === 2,
      { timeoutMs: 30_000 },
    );
    expect(registry.entry("config-lint-skill")?.provider.generation).toBe(1);
    expect(firstReloader.list()[0]).toMatchObject({ id: "config-lint-skill@2", state: "waiting_approval" });
  });

  it("an answers watcher leaves another skill's answer file where it is", async () => {
    const board = generationsFolder(cliSandbox().data);
    const waiting = (skill: string): GenerationRecord => ({
      id: `${skill}@2`,
      skill,
      number: 2,
      state: "waiting_approval",
      manifestDigest: "d".repeat(64),
      createdAt: new Date().toISOString(),
      widening: ["network: off -> on"],
    });
    await publishGenerations(board, "b-skill", [waiting("b-skill")]);
    await publishGenerations(board, "z-skill", [waiting("z-skill")]);
    const taken: GenerationAnswer[] = [];
    const stop = await watchGenerationAnswers(
      board,
      (answer) => taken.push(answer),
      (answer) => answer.id.startsWith("z-skill@"),
    );
    try {
      // Written in this order, any scan that finds z's answer has passed b's (names are sorted).
      await manageGenerations(board, { action: "approve", id: "b-skill@2" });
      await manageGenerations(board, { action: "reject", id: "z-skill@2" });
      await eventually("z's answer is taken", () => taken.length > 0, { timeoutMs: 30_000 });
      expect(taken.map((answer) => [answer.id, answer.answer])).toEqual([["z-skill@2", "reject"]]);
      expect(existsSync(join(board, "answers", `${encodeURIComponent("b-skill@2")}.json`))).toBe(true);
    } finally {
      stop();
    }
  });
});
