import { LuaFactory, type LuaWasm } from "wasmoon";
import type { InvocationContext } from "../types.js";
import type { HostApiRefusal } from "./lua-errors.js";

/**
 * The pieces of a Lua skill's state that are not the runtime's own logic: the libraries it
 * opens, the process's one wasmoon module, a call's budget and the wait for a host request
 * within it (lua-runtime.ts uses them).
 */

/**
 * The libraries a skill gets, opened here rather than by wasmoon's `loadLibrary`, which opens
 * the string library a second time for `utf8` (and so a second string metatable).
 */
export function openLibraries(lua: LuaWasm, L: number): void {
  const libraries: [string, (state: number) => number][] = [
    ["_G", (state) => lua.luaopen_base(state)],
    ["coroutine", (state) => lua.luaopen_coroutine(state)],
    ["table", (state) => lua.luaopen_table(state)],
    ["string", (state) => lua.luaopen_string(state)],
    ["math", (state) => lua.luaopen_math(state)],
    ["utf8", (state) => lua.luaopen_utf8(state)],
  ];
  for (const [name, open] of libraries) {
    open(L);
    lua.lua_setglobal(L, name);
  }
}

let sharedFactory: LuaFactory | undefined;

/** The process's one wasmoon module; engines made from it share the WebAssembly instance. */
export function factory(): LuaFactory {
  sharedFactory ??= new LuaFactory();
  return sharedFactory;
}

/** What a running call may still spend, and whether it was ended. */
export interface CallBudget {
  deadline: number;
  /** The pipeline's stop (its timeout, the caller's cancel): ends the call like its deadline. */
  signal?: AbortSignal;
  instructionsLeft: number;
  ended?: "cpu" | "deadline";
  refusal?: HostApiRefusal;
}

/** The deadline or the pipeline's stop came while the call waited for the host. */
export class DeadlinePassed extends Error {}

/** `promise`, or a {@link DeadlinePassed} rejection at the call's deadline or stop, whichever is first. */
export function withinDeadline<Value>(promise: Promise<Value>, budget: CallBudget): Promise<Value> {
  const left = budget.deadline - Date.now();
  if (left <= 0 || budget.signal?.aborted === true) return Promise.reject(new DeadlinePassed());
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlinePassed()), left);
    onAbort = () => reject(new DeadlinePassed());
    budget.signal?.addEventListener("abort", onAbort, { once: true });
  });
  return Promise.race([promise, deadline]).finally(() => {
    clearTimeout(timer);
    if (onAbort !== undefined) budget.signal?.removeEventListener("abort", onAbort);
  });
}

/** The first line of an error message (tracebacks stay out of what a model sees). */
export function firstLine(message: string): string {
  return message.split("\n")[0] ?? message;
}

/** The context of the script's top level, which serves no call: it may log, never touch files. */
export function loadContext(skill: string): InvocationContext {
  return {
    requestId: `load:${skill}`,
    traceId: "",
    agentId: "",
    runtimeMode: "normal",
    signal: new AbortController().signal,
    permissions: { fsRead: [], fsWrite: [], network: false, shell: false, env: [], adapterCapabilities: [] },
    touched: () => undefined,
  };
}
