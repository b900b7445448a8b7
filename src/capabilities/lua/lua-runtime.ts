import { LUA_REGISTRYINDEX, type LuaEngine, LuaEventMasks, LuaReturn, LuaType, type LuaWasm } from "wasmoon";
import type { JsonValue } from "../../core/safe-json.js";
import type { CapabilityProvider, InvocationContext } from "../types.js";
import { HostApiRefusal, LuaSkillError } from "./lua-errors.js";
import type { LuaFileRoots } from "./lua-fs.js";
import {
  type AgentInvoker,
  answerHostRequest,
  type HostCall,
  isHostOperation,
  type LuaLogSink,
} from "./lua-host-api.js";
import { HOST_REQUEST_TAG, LUA_PRELUDE } from "./lua-prelude.js";
import {
  type CallBudget,
  DeadlinePassed,
  factory,
  firstLine,
  loadContext,
  openLibraries,
  withinDeadline,
} from "./lua-state.js";
import { type LuaMarkers, LuaValueError, pushLuaValue, readLuaString, readLuaValue } from "./lua-values.js";

/**
 * One Lua state (a wasmoon engine) per generation of a Lua skill, with only the restricted
 * host API (lua-prelude.ts): the libraries `base`, `coroutine`, `table`, `string`, `math`
 * and `utf8`, minus every global in `REMOVED_GLOBALS`. Each call runs in its own coroutine of
 * the state, so calls interleave at host requests and a waiting `invoke_agent` holds no one.
 *
 * Bounds: an instruction-count hook charges each call and checks its deadline; a call over
 * either is ended, and stays ended (the hook then fires on every instruction, so a `pcall`
 * loop cannot swallow it). Memory is bounded for the whole state by wasmoon's allocation
 * tracking. A state is closed when its generation is drained; a closed state refuses calls.
 *
 * Limit: time spent inside one C library function (a pathological `string.find` pattern) is
 * not counted by the hook, which sees Lua instructions only; memory still bounds its input.
 */

/** Instructions a call may run by default. */
export const DEFAULT_LUA_INSTRUCTION_LIMIT = 1_000_000_000;
/** Bytes a state may allocate by default. */
export const DEFAULT_LUA_MEMORY_LIMIT = 32 * 1024 * 1024;
/** Instructions between two hook calls. */
const HOOK_INTERVAL = 1000;

/** How a runtime is made. */
export interface LuaRuntimeOptions {
  /** The skill's id, for messages and logs. */
  readonly skill: string;
  /** The script's text. */
  readonly source: string;
  /** The name errors show (`config_lint.lua`). */
  readonly chunkName: string;
  readonly memoryLimitBytes?: number;
  readonly instructionLimit?: number;
  /** How long the script's top level may run while loading. */
  readonly loadTimeoutMs?: number;
  readonly invokeAgent?: AgentInvoker;
  readonly log?: LuaLogSink;
}

/** One call of a function of the script. */
export interface LuaCallOptions {
  readonly context: InvocationContext;
  readonly timeoutMs: number;
  readonly roots: LuaFileRoots;
  readonly allowedCapabilities: readonly string[];
  /** The provider the call serves, for nested calls' caller. */
  readonly provider?: CapabilityProvider;
}

/** A Lua state with the restricted host API. */
export class LuaRuntime {
  readonly skill: string;
  readonly #engine: LuaEngine;
  readonly #lua: LuaWasm;
  readonly #options: LuaRuntimeOptions;
  readonly #markers: LuaMarkers;
  readonly #ctxRef: number;
  readonly #hook: number;
  #running: CallBudget | undefined;
  #inFlight = 0;
  #closed = false;
  #drainWaiters: (() => void)[] = [];

  private constructor(engine: LuaEngine, options: LuaRuntimeOptions, markers: LuaMarkers, ctxRef: number) {
    this.skill = options.skill;
    this.#engine = engine;
    this.#lua = engine.global.lua;
    this.#options = options;
    this.#markers = markers;
    this.#ctxRef = ctxRef;
    this.#hook = this.#lua.module.addFunction((state: number) => this.#onHook(state), "vii");
  }

  /**
   * Makes the state in the seed's order: the state with the script compiled (`load_state`;
   * a syntax error ends here), the restricted API bound by the prelude (`bind_api`), then the
   * script's top level. Throws `lua_load_failed`, or a call code when the top level ran over.
   */
  static async create(
    options: LuaRuntimeOptions,
    onStep?: (step: "load_state" | "bind_api") => void,
  ): Promise<LuaRuntime> {
    const engine = await factory().createEngine({
      openStandardLibs: false,
      injectObjects: false,
      enableProxy: false,
      traceAllocations: true,
    });
    const global = engine.global;
    const lua = global.lua;
    try {
      openLibraries(lua, global.address);
      global.setMemoryMax(options.memoryLimitBytes ?? DEFAULT_LUA_MEMORY_LIMIT);
      const main = global.newThread();
      const mainRef = lua.luaL_ref(global.address, LUA_REGISTRYINDEX);
      try {
        main.loadString(options.source, `@${options.chunkName}`);
      } catch (error) {
        throw new LuaSkillError("lua_load_failed", options.skill, firstLine((error as Error).message));
      }
      onStep?.("load_state");
      global.loadString(LUA_PRELUDE, "=prelude");
      const results = global.runSync();
      if (results.length !== 4) throw new Error("the prelude did not return its markers");
      // runSync leaves the four results on the stack: anchor them in the registry, last first.
      const ctxRef = lua.luaL_ref(global.address, LUA_REGISTRYINDEX);
      const objectMetaRef = lua.luaL_ref(global.address, LUA_REGISTRYINDEX);
      const arrayMetaRef = lua.luaL_ref(global.address, LUA_REGISTRYINDEX);
      const nullRef = lua.luaL_ref(global.address, LUA_REGISTRYINDEX);
      global.setTop(0);
      onStep?.("bind_api");
      const runtime = new LuaRuntime(engine, options, { nullRef, arrayMetaRef, objectMetaRef }, ctxRef);
      try {
        await runtime.#run(main.address, 0, runtime.#hostCallFor(undefined), options.loadTimeoutMs ?? 5000);
      } finally {
        lua.luaL_unref(global.address, LUA_REGISTRYINDEX, mainRef);
      }
      return runtime;
    } catch (error) {
      global.close();
      if (error instanceof LuaSkillError) {
        throw error.code === "lua_error"
          ? new LuaSkillError("lua_load_failed", options.skill, error.data.detail)
          : error;
      }
      throw new LuaSkillError("lua_load_failed", options.skill, (error as Error).message);
    }
  }

  /** True when the script defines a global function of that name. */
  hasFunction(name: string): boolean {
    if (this.#closed) return false;
    const global = this.#engine.global;
    const type = this.#lua.lua_getglobal(global.address, name);
    global.pop(1);
    return type === LuaType.Function;
  }

  /** Calls `name(ctx, payload)` and returns its first result as JSON. Throws {@link LuaSkillError}. */
  async call(name: string, payload: JsonValue, options: LuaCallOptions): Promise<JsonValue> {
    if (this.#closed)
      throw new LuaSkillError("lua_state_closed", this.skill, "this generation's state is closed");
    this.#inFlight += 1;
    const global = this.#engine.global;
    const thread = global.newThread();
    const ref = this.#lua.luaL_ref(global.address, LUA_REGISTRYINDEX);
    try {
      const L = thread.address;
      if (this.#lua.lua_getglobal(L, name) !== LuaType.Function)
        throw new LuaSkillError("lua_error", this.skill, `the script defines no function ${name}`);
      this.#lua.lua_rawgeti(L, LUA_REGISTRYINDEX, BigInt(this.#ctxRef));
      pushLuaValue(this.#lua, L, payload, this.#markers);
      return await this.#run(L, 2, this.#hostCallFor(options), options.timeoutMs);
    } finally {
      if (!this.#closed) this.#lua.luaL_unref(global.address, LUA_REGISTRYINDEX, ref);
      this.#inFlight -= 1;
      if (this.#inFlight === 0) for (const waiter of this.#drainWaiters.splice(0)) waiter();
    }
  }

  #hostCallFor(options: LuaCallOptions | undefined): HostCall {
    const context = options?.context ?? loadContext(this.skill);
    return {
      skill: this.skill,
      context,
      roots: options?.roots ?? { read: [], write: [] },
      allowedCapabilities: options?.allowedCapabilities ?? [],
      ...(this.#options.invokeAgent === undefined ? {} : { invokeAgent: this.#options.invokeAgent }),
      ...(this.#options.log === undefined ? {} : { log: this.#options.log }),
      ...(options?.provider === undefined ? {} : { provider: options.provider }),
      logLines: 0,
    };
  }

  /** Resumes the coroutine `L` until it returns, answering its host requests. */
  async #run(L: number, argumentCount: number, call: HostCall, timeoutMs: number): Promise<JsonValue> {
    const lua = this.#lua;
    const budget: CallBudget = {
      deadline: Date.now() + timeoutMs,
      instructionsLeft: this.#options.instructionLimit ?? DEFAULT_LUA_INSTRUCTION_LIMIT,
      signal: call.context.signal,
    };
    lua.lua_sethook(L, this.#hook, LuaEventMasks.Count, HOOK_INTERVAL);
    let count = argumentCount;
    for (;;) {
      const result = this.#resume(L, count, budget);
      if (result.status === LuaReturn.Yield) {
        const base = lua.lua_gettop(L) - result.values;
        const answer = await this.#answer(L, base, result.values, call, budget);
        if (this.#closed)
          throw new LuaSkillError("lua_state_closed", this.skill, "the state closed during the call");
        lua.lua_settop(L, base);
        lua.lua_pushboolean(L, answer.ok ? 1 : 0);
        if (answer.ok) pushLuaValue(lua, L, answer.value, this.#markers);
        else lua.lua_pushlstring(L, answer.message, Buffer.byteLength(answer.message, "utf8"));
        count = 2;
        continue;
      }
      if (result.status === LuaReturn.Ok) {
        if (result.values === 0) return null;
        try {
          return readLuaValue(lua, L, lua.lua_gettop(L) - result.values + 1, this.#markers);
        } catch (error) {
          if (error instanceof LuaValueError)
            throw new LuaSkillError(
              "lua_output_invalid",
              this.skill,
              `the result is not JSON: ${error.message}`,
            );
          throw error;
        }
      }
      throw this.#failure(L, result.status, budget);
    }
  }

  #resume(L: number, count: number, budget: CallBudget): { status: LuaReturn; values: number } {
    const module = this.#lua.module;
    const slot = module._malloc(4);
    this.#running = budget;
    try {
      module.setValue(slot, 0, "i32");
      const status = this.#lua.lua_resume(L, null, count, slot);
      return { status, values: module.getValue(slot, "i32") as number };
    } finally {
      this.#running = undefined;
      module._free(slot);
    }
  }

  /** Reads and answers one yielded request; waits for asynchronous ones within the deadline. */
  async #answer(
    L: number,
    base: number,
    count: number,
    call: HostCall,
    budget: CallBudget,
  ): Promise<{ ok: true; value: JsonValue } | { ok: false; message: string }> {
    const lua = this.#lua;
    const tag =
      count > 0 && lua.lua_type(L, base + 1) === LuaType.String ? lua.lua_tolstring(L, base + 1, null) : "";
    const operation =
      count > 1 && lua.lua_type(L, base + 2) === LuaType.String ? lua.lua_tolstring(L, base + 2, null) : "";
    if (tag !== HOST_REQUEST_TAG || !isHostOperation(operation))
      return {
        ok: false,
        message: "HOST: coroutine.yield outside a coroutine of the skill's own is not allowed",
      };
    try {
      const args: JsonValue[] = [];
      for (let index = base + 3; index <= base + count; index += 1)
        args.push(readLuaValue(lua, L, index, this.#markers));
      const answer = answerHostRequest(operation, args, call);
      const value = answer instanceof Promise ? await withinDeadline(answer, budget) : answer;
      return { ok: true, value };
    } catch (error) {
      if (error instanceof DeadlinePassed) {
        budget.ended = "deadline";
        throw new LuaSkillError("capability_timeout", this.skill, "the call ran past its timeout");
      }
      if (error instanceof HostApiRefusal) {
        budget.refusal = error;
        return { ok: false, message: error.message };
      }
      if (error instanceof LuaValueError)
        return { ok: false, message: `HOST: ${error.message} [lua_host_refused]` };
      const code = (error as { code?: unknown }).code;
      const message = (error as Error).message ?? String(error);
      return {
        ok: false,
        message: message.startsWith("HOST:") ? message : `HOST: ${message} [${String(code)}]`,
      };
    }
  }

  #failure(L: number, status: LuaReturn, budget: CallBudget): LuaSkillError {
    const lua = this.#lua;
    const top = lua.lua_gettop(L);
    const type = top > 0 ? lua.lua_type(L, -1) : LuaType.Nil;
    const message =
      type === LuaType.String
        ? readLuaString(lua, L, top)
        : type === LuaType.Number
          ? lua.lua_tolstring(L, -1, null)
          : `an error value of type ${lua.lua_typename(L, type)}`;
    if (budget.ended === "cpu")
      return new LuaSkillError("lua_cpu_limit", this.skill, "the call ran more instructions than its limit");
    if (budget.ended === "deadline")
      return new LuaSkillError("capability_timeout", this.skill, "the call ran past its timeout");
    if (status === LuaReturn.ErrorMem || message.includes("not enough memory"))
      return new LuaSkillError("lua_memory_limit", this.skill, "the skill's state reached its memory limit");
    const refusal = budget.refusal;
    if (refusal !== undefined && message.includes(refusal.message)) {
      return new LuaSkillError(refusal.code, this.skill, firstLine(message));
    }
    return new LuaSkillError("lua_error", this.skill, firstLine(message));
  }

  /** The count hook: charges the running call, ends it for good when over its budget. */
  #onHook(L: number): void {
    const budget = this.#running;
    if (budget === undefined) return;
    budget.instructionsLeft -= HOOK_INTERVAL;
    if (budget.ended === undefined) {
      if (budget.instructionsLeft < 0) budget.ended = "cpu";
      else if (Date.now() > budget.deadline || budget.signal?.aborted === true) budget.ended = "deadline";
      else return;
    }
    // From now on every instruction of this call raises again, so no pcall can keep it going.
    this.#lua.lua_sethook(L, this.#hook, LuaEventMasks.Count, 1);
    this.#lua.lua_pushstring(L, budget.ended === "cpu" ? "HOST: lua_cpu_limit" : "HOST: capability_timeout");
    this.#lua.lua_error(L);
  }

  /** Calls running now. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** Bytes the state holds now. */
  get memoryUsed(): number {
    return this.#closed ? 0 : this.#engine.global.getMemoryUsed();
  }

  /** True once {@link close} ran. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Resolves when no call is running (at once when none is). */
  drained(): Promise<void> {
    if (this.#inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.#drainWaiters.push(resolve));
  }

  /** Frees the state. Calls still running end with `lua_state_closed`; drain first. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#engine.global.close();
    this.#lua.module.removeFunction(this.#hook);
  }
}
