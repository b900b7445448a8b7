import { setImmediate as tick } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import {
  type GenerationEvent,
  LuaSkillReloader,
  RELOAD_STEPS,
} from "../../../src/capabilities/generations/hot-reload.js";
import type { LuaCapabilityProvider } from "../../../src/capabilities/lua/lua-provider.js";
import type { CapabilityProvider } from "../../../src/capabilities/types.js";
import { eventually } from "../../helpers/eventually.js";
import { testContext } from "../lua/lua-test-context.js";
import { fixtureLoader, reloadProject, versionedScript } from "./reload-project.js";

const reloaders: LuaSkillReloader[] = [];
afterEach(async () => {
  for (const reloader of reloaders.splice(0)) await reloader.stop();
});

function setUp(options: { debounceMs?: number; review?: () => Promise<void> } = {}) {
  const project = reloadProject();
  project.writeScript(versionedScript(1));
  const events: GenerationEvent[] = [];
  const index: { current: CapabilityProvider | undefined; switches: number } = {
    current: undefined,
    switches: 0,
  };
  const reloader = new LuaSkillReloader({
    manifestPath: project.manifestPath,
    loadManifest: fixtureLoader(project.root),
    switchIndex: (next) => {
      index.current = next.provider;
      index.switches += 1;
    },
    publish: (event) => events.push(event),
    debounceMs: options.debounceMs ?? 30,
    runtime: {
      invokeAgent: async () => {
        await (options.review?.() ?? tick());
        return { summary: "reviewed", findings: [] };
      },
    },
  });
  reloaders.push(reloader);
  const call = async (n: number) => {
    const provider = index.current as LuaCapabilityProvider;
    return provider.invokeWithGeneration({ n }, testContext({ permissions: provider.permissions }));
  };
  return { project, events, index, reloader, call };
}

const stepsOf = (events: GenerationEvent[], generation: number) =>
  events.flatMap((event) =>
    event.topic === "/skill/reload/step" && event.generation === generation ? [event.step] : [],
  );

describe("hot reload by generation swap", () => {
  it("publishes every step of the seed's sequence, in order, for a reload from a file change", async () => {
    const { project, events, reloader, index } = setUp();
    expect(await reloader.start()).toEqual({ status: "switched", generation: 1 });
    project.writeScript(versionedScript(2));
    await eventually("generation 2 is active", () => index.current?.generation === 2);
    expect(stepsOf(events, 2)).toEqual([...RELOAD_STEPS]);
    const debounce = events.find((event) => event.topic === "/skill/reload/step" && event.generation === 2);
    expect(debounce).toMatchObject({ step: "debounce", waitedMs: expect.any(Number) });
    expect(events.filter((event) => event.topic === "/capability/reloaded")).toEqual([
      {
        topic: "/capability/reloaded",
        skill: "config-lint-skill",
        generation: 1,
        capabilities: ["workflow.config_lint"],
      },
      {
        topic: "/capability/reloaded",
        skill: "config-lint-skill",
        generation: 2,
        previous: 1,
        capabilities: ["workflow.config_lint"],
      },
    ]);
    await eventually("generation 1 is closed", () =>
      expect(reloader.list().map((record) => [record.number, record.state])).toEqual([
        [2, "active"],
        [1, "closed"],
      ]),
    );
  });

  it("Hot reload: Lua Skill syntax error → Old generation remains active", async () => {
    const { project, events, reloader, index, call } = setUp();
    await reloader.start({ watch: false });
    project.writeScript("function invoke(ctx, payload) return { summary = 'x' ");
    const outcome = await reloader.reload();
    expect(outcome).toEqual({ status: "failed", generation: 2, step: "load_state", code: "lua_load_failed" });
    expect(index.current?.generation).toBe(1);
    expect(await call(3)).toMatchObject({ generation: 1, value: { version: 1, product: 3 } });
    expect(events.at(-1)).toMatchObject({
      topic: "/skill/reload_failed",
      generation: 2,
      code: "lua_load_failed",
    });
    expect(reloader.list().map((record) => [record.number, record.state])).toEqual([
      [2, "rejected"],
      [1, "active"],
    ]);
  });

  it("Hot reload: Lua Skill health check fails → New generation rejected", async () => {
    const { project, events, reloader, index, call } = setUp();
    await reloader.start({ watch: false });
    project.writeScript(versionedScript(2, "{ ok = false, reason = 'database unreachable' }"));
    const outcome = await reloader.reload();
    expect(outcome).toEqual({
      status: "failed",
      generation: 2,
      step: "health_check",
      code: "health_check_failed",
    });
    expect(index.current?.generation).toBe(1);
    expect(index.switches).toBe(1);
    expect(await call(2)).toMatchObject({ generation: 1, value: { version: 1 } });
    expect(events.at(-1)).toMatchObject({ topic: "/skill/reload_failed", step: "health_check" });
    expect(reloader.list()[0]).toMatchObject({ number: 2, state: "rejected" });
  });

  it("a health check that raises rejects the generation too", async () => {
    const { project, reloader, index } = setUp();
    await reloader.start({ watch: false });
    project.writeScript(versionedScript(2, "error('not ready')"));
    expect(await reloader.reload()).toMatchObject({ status: "failed", code: "health_check_failed" });
    expect(index.current?.generation).toBe(1);
  });

  it("swaps under load: 200 concurrent invocations while the skill reloads five times, none dropped, each answered wholly by one generation", async () => {
    // Each round's calls wait inside ctx.tools.invoke_agent until that round's switch is done,
    // so every switch happens with 40 calls in flight on the generation it replaces.
    let gate: Promise<void> = Promise.resolve();
    const { project, reloader, index, call } = setUp({ review: () => gate });
    await reloader.start({ watch: false });
    const inFlightAtSwitch: number[] = [];
    const versionOf = new Map<number, number>([[1, 1]]);
    const retired: LuaCapabilityProvider[] = [];
    const calls: Promise<{ generation: number; value: unknown }>[] = [];
    for (let round = 0; round < 5; round += 1) {
      let open = () => {};
      gate = new Promise((resolve) => {
        open = resolve;
      });
      for (let i = 0; i < 40; i += 1) calls.push(call(round * 40 + i + 1));
      const replaced = index.current as LuaCapabilityProvider;
      retired.push(replaced);
      project.writeScript(versionedScript(round + 2));
      const outcome = await reloader.reload();
      expect(outcome.status).toBe("switched");
      inFlightAtSwitch.push(replaced.calls);
      open();
      versionOf.set(outcome.generation, round + 2);
    }
    const answers = await Promise.all(calls);
    expect(answers).toHaveLength(200);
    expect(inFlightAtSwitch).toEqual([40, 40, 40, 40, 40]);
    answers.forEach((answer, position) => {
      const value = answer.value as { version: number; product: number; summary: string };
      const version = versionOf.get(answer.generation);
      expect(value.version).toBe(version);
      expect(value.summary).toBe(`v${version}/${version}`);
      expect(value.product).toBe((position + 1) * (version ?? 0));
    });
    await eventually("every replaced state is closed", () =>
      retired.every((provider) => provider.runtime.closed),
    );
    expect((index.current as LuaCapabilityProvider).runtime.closed).toBe(false);
  });

  it("a call routed to a generation just before it was drained is answered wholly by its successor", async () => {
    const { project, reloader, index } = setUp();
    await reloader.start({ watch: false });
    const old = index.current as LuaCapabilityProvider;
    project.writeScript(versionedScript(2));
    await reloader.reload();
    await eventually("generation 1 is closed", () => old.runtime.closed);
    const answer = await old.invokeWithGeneration({ n: 5 }, testContext({ permissions: old.permissions }));
    expect(answer).toMatchObject({ generation: 2, value: { version: 2, product: 10 } });
  });

  it("debounces a burst of writes into one reload", async () => {
    const { project, events, reloader, index } = setUp({ debounceMs: 100 });
    await reloader.start();
    for (let version = 2; version <= 6; version += 1) project.writeScript(versionedScript(version));
    await eventually("the last version serves", async () => {
      const provider = index.current as LuaCapabilityProvider;
      const answer = await provider.invokeWithGeneration(
        { n: 1 },
        testContext({ permissions: provider.permissions }),
      );
      return (answer.value as { version: number }).version === 6;
    });
    const reloads = events.filter(
      (event) => event.topic === "/skill/reload/step" && event.step === "debounce" && event.generation > 1,
    );
    expect(reloads.length).toBeLessThan(5);
  });
});
