import { afterEach, describe, expect, it } from "vitest";
import { REMOVED_GLOBALS } from "../../../src/capabilities/lua/lua-prelude.js";
import { LuaRuntime } from "../../../src/capabilities/lua/lua-runtime.js";
import { testContext } from "./lua-test-context.js";

const runtimes: LuaRuntime[] = [];
afterEach(() => {
  for (const runtime of runtimes.splice(0)) runtime.close();
});

async function make(source: string, options: { instructionLimit?: number; memoryLimitBytes?: number } = {}) {
  const runtime = await LuaRuntime.create({ skill: "test-skill", chunkName: "test.lua", source, ...options });
  runtimes.push(runtime);
  return runtime;
}

const callOptions = (timeoutMs = 10_000) => ({
  context: testContext(),
  timeoutMs,
  roots: { read: [], write: [] },
  allowedCapabilities: [],
});

describe("Lua runtime: the sandbox-escape table", () => {
  it.each(REMOVED_GLOBALS)("the global %s is gone", async (name) => {
    const runtime = await make(
      `function probe() return { kind = type(${name}), via_env = type(_G["${name}"]) } end`,
    );
    expect(await runtime.call("probe", {}, callOptions())).toEqual({ kind: "nil", via_env: "nil" });
  });

  it.each([
    ["string.dump", "return type(string.dump)"],
    ["string.dump through the string metatable", "return type(('').dump)"],
    ["the string metatable itself", "return type(getmetatable(''))"],
    ["load through _ENV", "return type(_ENV.load)"],
  ])("%s is out of reach", async (_label, body) => {
    const runtime = await make(`function probe() ${body} end`);
    const answer = await runtime.call("probe", {}, callOptions());
    expect(answer === "nil" || answer === "boolean").toBe(true);
  });

  it("changing the string metatable is refused", async () => {
    const runtime = await make(`function probe() return setmetatable("", {}) end`);
    await expect(runtime.call("probe", {}, callOptions())).rejects.toMatchObject({ code: "lua_error" });
  });

  it("a forged host request with an unknown operation is refused inside Lua", async () => {
    const runtime = await make(
      `function probe() local ok, message = coroutine.yield("skillgate.host/1", "shell.run", "id"); return { ok = ok, message = message } end`,
    );
    const answer = (await runtime.call("probe", {}, callOptions())) as { ok: boolean; message: string };
    expect(answer.ok).toBe(false);
    expect(answer.message).toMatch(/^HOST:/);
  });
});

describe("Lua runtime: bounds", () => {
  it("an endless loop ends lua_cpu_limit, even inside a pcall loop, and the state serves the next call", async () => {
    const runtime = await make(
      `function spin() while true do pcall(function() while true do end end) end end
       function ping(ctx, p) return { pong = p.n } end`,
      { instructionLimit: 2_000_000 },
    );
    const spinning = runtime.call("spin", {}, callOptions());
    const second = runtime.call("ping", { n: 7 }, callOptions());
    await expect(spinning).rejects.toMatchObject({ code: "lua_cpu_limit" });
    expect(await second).toEqual({ pong: 7 });
  });

  it("an endless loop past its deadline ends capability_timeout", async () => {
    const runtime = await make(`function spin() while true do end end`);
    await expect(runtime.call("spin", {}, callOptions(50))).rejects.toMatchObject({
      code: "capability_timeout",
    });
  });

  it("a memory bomb ends lua_memory_limit and the state serves the next call", async () => {
    const runtime = await make(
      `function bomb() local t = {} for i = 1, 1e9 do t[i] = string.rep("x", 4096) .. i end end
       function ping() return "pong" end`,
      { memoryLimitBytes: 8 * 1024 * 1024 },
    );
    await expect(runtime.call("bomb", {}, callOptions())).rejects.toMatchObject({ code: "lua_memory_limit" });
    expect(await runtime.call("ping", {}, callOptions())).toBe("pong");
  });

  it("a top-level endless loop ends the load", async () => {
    await expect(make(`while true do end`, { instructionLimit: 1_000_000 })).rejects.toMatchObject({
      code: "lua_cpu_limit",
    });
  });

  it("a syntax error ends the load with lua_load_failed", async () => {
    await expect(make(`function broken( return end`)).rejects.toMatchObject({ code: "lua_load_failed" });
  });

  it("a closed state refuses calls", async () => {
    const runtime = await make(`function ping() return 1 end`);
    runtime.close();
    await expect(runtime.call("ping", {}, callOptions())).rejects.toMatchObject({ code: "lua_state_closed" });
  });
});

describe("Lua runtime: JSON in and out", () => {
  it("round-trips payloads, null, empty lists and objects", async () => {
    const runtime = await make(
      `function echo(ctx, p) return { p = p, text = json.encode(p), back = json.decode('{"a":[],"b":{},"c":null}') } end`,
    );
    const answer = await runtime.call("echo", { a: [1, 2], b: { c: null }, d: [] }, callOptions());
    expect(answer).toEqual({
      p: { a: [1, 2], b: { c: null }, d: [] },
      text: expect.any(String),
      back: { a: [], b: {}, c: null },
    });
  });

  it.each([
    ["a function", "return { f = function() end }"],
    ["a mixed table", "return { 1, a = 2 }"],
    ["a sparse array", "local t = {} t[1] = 1 t[3] = 3 return t"],
    ["a cycle", "local t = {} t.t = t return t"],
    ["infinity", "return { x = math.huge }"],
  ])("refuses %s in a result with lua_output_invalid", async (_label, body) => {
    const runtime = await make(`function bad() ${body} end`);
    await expect(runtime.call("bad", {}, callOptions())).rejects.toMatchObject({
      code: "lua_output_invalid",
    });
  });
});
