import { isPlainObject, type JsonValue, parseJsonSafely } from "../../core/safe-json.js";
import type { CapabilityProvider, InvocationContext } from "../types.js";
import { HostApiRefusal } from "./lua-errors.js";
import { type LuaFileRoots, readSkillFile, writeSkillFile } from "./lua-fs.js";

/**
 * The host's side of the restricted API: each request a Lua skill yields (see lua-prelude.ts)
 * is answered here, checked as untrusted input. Nothing here trusts the prelude: a skill can
 * yield any values it likes, and they are judged the same way.
 */

/** What `ctx.tools.invoke_agent` hands the invocation pipeline. */
export interface AgentInvokeRequest {
  readonly capability: string;
  readonly provider?: string;
  readonly payload: { readonly [key: string]: JsonValue };
  readonly timeoutMs?: number;
}

/**
 * The pipeline's `invoke`, as the Lua runtime calls it: the nested call runs as the calling
 * provider (a `lua_skill` caller) under the parent call's context (its trace, runtime mode,
 * scope, workspace, signal), through every pipeline step. Throws {@link HostApiRefusal} with
 * the pipeline's code for a refusal.
 */
export type AgentInvoker = (
  request: AgentInvokeRequest,
  parent: InvocationContext,
  provider: CapabilityProvider | undefined,
) => Promise<JsonValue>;

/** One line a skill logged with `ctx.log` (or `print`). */
export interface LuaLogLine {
  readonly skill: string;
  readonly requestId: string;
  readonly level: "debug" | "info" | "warn" | "error";
  readonly message: string;
}

/** Where log lines go. */
export type LuaLogSink = (line: LuaLogLine) => void;

/** The longest log message kept (longer ones are cut). */
export const MAX_LUA_LOG_MESSAGE = 4096;
/** Log lines kept per call; the rest are dropped. */
export const MAX_LUA_LOG_LINES = 1000;
/** The longest text `json.decode` reads. */
export const MAX_LUA_JSON_TEXT = 4 * 1024 * 1024;

/** Everything a request needs to know about the call it belongs to. */
export interface HostCall {
  readonly skill: string;
  readonly context: InvocationContext;
  readonly roots: LuaFileRoots;
  /** The manifest's `permissions.adapters.capabilities`. */
  readonly allowedCapabilities: readonly string[];
  readonly invokeAgent?: AgentInvoker;
  readonly log?: LuaLogSink;
  /** The provider the call serves (the nested call's caller). */
  readonly provider?: CapabilityProvider;
  logLines: number;
}

const LOG_LEVELS = new Set(["debug", "info", "warn", "error"]);
const REQUEST_FIELDS = new Set(["capability", "provider", "payload", "timeout_ms"]);

/** The operations a skill may ask for; anything else is refused. */
export type HostOperation = "invoke_agent" | "fs.read" | "fs.write" | "log" | "json.encode" | "json.decode";

const OPERATIONS = new Set<string>([
  "invoke_agent",
  "fs.read",
  "fs.write",
  "log",
  "json.encode",
  "json.decode",
]);

/** True for an operation name the host answers. */
export function isHostOperation(name: unknown): name is HostOperation {
  return typeof name === "string" && OPERATIONS.has(name);
}

/** Answers one request; a value (synchronous operations) or a promise. Throws {@link HostApiRefusal}. */
export function answerHostRequest(
  operation: HostOperation,
  args: readonly JsonValue[],
  call: HostCall,
): JsonValue | Promise<JsonValue> {
  switch (operation) {
    case "json.encode":
      return JSON.stringify(args[0] ?? null);
    case "json.decode":
      return decode(args[0]);
    case "log":
      return log(args, call);
    case "fs.read":
      return readSkillFile(args[0], call.roots, (path, access) => call.context.touched(path, access));
    case "fs.write":
      return writeSkillFile(args[0], args[1], call.roots, (path, access) =>
        call.context.touched(path, access),
      ).then(() => true);
    case "invoke_agent":
      return invokeAgent(args[0], call);
  }
}

function decode(text: JsonValue | undefined): JsonValue {
  if (typeof text !== "string") throw new HostApiRefusal("lua_host_refused", "json.decode takes text");
  if (text.length > MAX_LUA_JSON_TEXT)
    throw new HostApiRefusal("lua_host_refused", `json.decode reads at most ${MAX_LUA_JSON_TEXT} characters`);
  try {
    return parseJsonSafely(text);
  } catch (error) {
    throw new HostApiRefusal("lua_host_refused", `json.decode: ${(error as Error).message}`);
  }
}

function log(args: readonly JsonValue[], call: HostCall): JsonValue {
  const [level, message] = args;
  if (typeof level !== "string" || !LOG_LEVELS.has(level))
    throw new HostApiRefusal(
      "lua_host_refused",
      "ctx.log(level, message): level is debug, info, warn or error",
    );
  const text = typeof message === "string" ? message : JSON.stringify(message ?? null);
  call.logLines += 1;
  if (call.logLines > MAX_LUA_LOG_LINES) return false;
  call.log?.({
    skill: call.skill,
    requestId: call.context.requestId,
    level: level as LuaLogLine["level"],
    message: text.length > MAX_LUA_LOG_MESSAGE ? `${text.slice(0, MAX_LUA_LOG_MESSAGE)}…` : text,
  });
  return true;
}

function invokeAgent(request: JsonValue | undefined, call: HostCall): Promise<JsonValue> {
  if (!isPlainObject(request))
    throw new HostApiRefusal(
      "lua_host_refused",
      "ctx.tools.invoke_agent takes a table {capability, payload, …}",
    );
  const unknown = Object.keys(request).filter((key) => !REQUEST_FIELDS.has(key));
  if (unknown.length > 0)
    throw new HostApiRefusal(
      "lua_host_refused",
      `ctx.tools.invoke_agent does not take ${unknown.join(", ")}`,
    );
  const { capability, provider, timeout_ms: timeoutMs } = request;
  // An empty Lua table reads as an empty list; as a payload it means no fields.
  const payload = Array.isArray(request.payload) && request.payload.length === 0 ? {} : request.payload;
  if (typeof capability !== "string" || capability === "")
    throw new HostApiRefusal("lua_host_refused", "ctx.tools.invoke_agent needs a capability name");
  if (!call.allowedCapabilities.includes(capability))
    throw new HostApiRefusal(
      "capability_not_allowed",
      `${call.skill} may not call ${capability} (its manifest's permissions.adapters.capabilities do not list it)`,
    );
  if (provider !== undefined && typeof provider !== "string")
    throw new HostApiRefusal("lua_host_refused", "provider must be text");
  if (!isPlainObject(payload))
    throw new HostApiRefusal("lua_host_refused", "payload must be a table of fields");
  if (
    timeoutMs !== undefined &&
    (typeof timeoutMs !== "number" || !Number.isInteger(timeoutMs) || timeoutMs <= 0)
  )
    throw new HostApiRefusal("lua_host_refused", "timeout_ms must be a positive whole number");
  if (call.invokeAgent === undefined)
    throw new HostApiRefusal("lua_host_refused", "no invocation pipeline is connected to this runtime");
  return call.invokeAgent(
    {
      capability,
      ...(provider === undefined ? {} : { provider }),
      payload: payload as { [key: string]: JsonValue },
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
    },
    call.context,
    call.provider,
  );
}
