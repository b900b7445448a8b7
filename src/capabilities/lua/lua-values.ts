import { LUA_REGISTRYINDEX, LuaType, type LuaWasm } from "wasmoon";
import { isForbiddenKey, type JsonValue } from "../../core/safe-json.js";

/**
 * JSON values in and out of a Lua state, done here rather than by wasmoon's own conversion:
 * that one turns `null` into an error, guesses arrays, calls `__tostring` metamethods on keys
 * and hands Lua functions to JavaScript. This one reads raw (`lua_next`, no metamethods),
 * refuses what JSON cannot hold and bounds depth and size, so a hostile table cannot make
 * the host loop or allocate without limit.
 *
 * Lua has one table type; the rules: a table whose keys are exactly 1..n is an array, one with
 * string keys an object, an empty table an array unless marked with `json.object()` (schemas
 * mostly want `[]` for an empty list). `json.null` is JSON null. Decoded empty arrays and
 * objects keep their mark, so they encode back the same.
 */

/**
 * The string at `index` with its true length: wasmoon's `lua_tolstring` stops at the first
 * NUL, which would let `"a.txt\0.lua"` read as `"a.txt"`. Only for values that are strings
 * (a number would be converted in place and confuse `lua_next`).
 */
export function readLuaString(lua: LuaWasm, L: number, index: number): string {
  const module = lua.module;
  const lengthSlot = module._malloc(4);
  try {
    const pointer = module.ccall(
      "lua_tolstring",
      "number",
      ["number", "number", "number"],
      [L, index, lengthSlot],
    ) as number;
    const length = module.getValue(lengthSlot, "i32") as number;
    return Buffer.from(module.HEAPU8.subarray(pointer, pointer + length)).toString("utf8");
  } finally {
    module._free(lengthSlot);
  }
}

/** How deep a value may nest, both ways. */
export const MAX_LUA_VALUE_DEPTH = 64;
/** How many values (every table entry counts) one conversion may visit. */
export const MAX_LUA_VALUE_NODES = 200_000;

/** The registry references of the prelude's markers. */
export interface LuaMarkers {
  readonly nullRef: number;
  readonly arrayMetaRef: number;
  readonly objectMetaRef: number;
}

/** Why a Lua value could not become JSON (the path names where, `$.a[2]`). */
export class LuaValueError extends Error {}

interface Budget {
  nodes: number;
}

/** Reads the value at `index` of thread `L` as JSON. Leaves the stack as it was. */
export function readLuaValue(lua: LuaWasm, L: number, index: number, markers: LuaMarkers): JsonValue {
  const budget: Budget = { nodes: MAX_LUA_VALUE_NODES };
  return readAt(lua, L, lua.lua_absindex(L, index), markers, 0, "$", budget);
}

function readAt(
  lua: LuaWasm,
  L: number,
  index: number,
  markers: LuaMarkers,
  depth: number,
  where: string,
  budget: Budget,
): JsonValue {
  budget.nodes -= 1;
  if (budget.nodes < 0) throw new LuaValueError(`more than ${MAX_LUA_VALUE_NODES} values`);
  const type = lua.lua_type(L, index);
  switch (type) {
    case LuaType.Nil:
    case LuaType.None:
      return null;
    case LuaType.Boolean:
      return lua.lua_toboolean(L, index) !== 0;
    case LuaType.Number:
      return readNumber(lua, L, index, where);
    case LuaType.String:
      return readLuaString(lua, L, index);
    case LuaType.Table:
      if (depth >= MAX_LUA_VALUE_DEPTH)
        throw new LuaValueError(`${where} nests deeper than ${MAX_LUA_VALUE_DEPTH}`);
      return readTable(lua, L, index, markers, depth, where, budget);
    default:
      throw new LuaValueError(`${where} is a ${lua.lua_typename(L, type)}, which JSON cannot hold`);
  }
}

function readNumber(lua: LuaWasm, L: number, index: number, where: string): number {
  if (lua.lua_isinteger(L, index) !== 0) {
    const integer = lua.lua_tointegerx(L, index, null);
    const value = Number(integer);
    if (!Number.isSafeInteger(value)) throw new LuaValueError(`${where} is an integer beyond 2^53`);
    return value;
  }
  const value = lua.lua_tonumberx(L, index, null);
  if (!Number.isFinite(value)) throw new LuaValueError(`${where} is not a finite number`);
  return value;
}

/** The table's `__jsontype` mark (`null`, `array`, `object`), read raw. */
function markOf(lua: LuaWasm, L: number, index: number): string | undefined {
  if (lua.lua_getmetatable(L, index) === 0) return undefined;
  lua.lua_pushstring(L, "__jsontype");
  const type = lua.lua_rawget(L, -2);
  const mark = type === LuaType.String ? lua.lua_tolstring(L, -1, null) : undefined;
  lua.lua_settop(L, -3);
  return mark;
}

function readTable(
  lua: LuaWasm,
  L: number,
  index: number,
  markers: LuaMarkers,
  depth: number,
  where: string,
  budget: Budget,
): JsonValue {
  // The C API does not grow the stack by itself: nesting needs room for a key and a value per level.
  if (lua.lua_checkstack(L, 4) === 0) throw new LuaValueError(`${where} nests too deep for the stack`);
  const mark = markOf(lua, L, index);
  if (mark === "null") return null;
  const entries: [string | number, JsonValue][] = [];
  let integerKeys = 0;
  lua.lua_pushnil(L);
  while (lua.lua_next(L, index) !== 0) {
    const keyType = lua.lua_type(L, -2);
    let key: string | number;
    if (keyType === LuaType.String) {
      key = readLuaString(lua, L, lua.lua_gettop(L) - 1);
    } else if (keyType === LuaType.Number && lua.lua_isinteger(L, -2) !== 0) {
      key = Number(lua.lua_tointegerx(L, -2, null));
      integerKeys += 1;
    } else {
      lua.lua_settop(L, -3);
      throw new LuaValueError(`${where} has a key of type ${lua.lua_typename(L, keyType)}`);
    }
    const inner = `${where}${typeof key === "number" ? `[${key}]` : `.${key}`}`;
    try {
      entries.push([key, readAt(lua, L, lua.lua_gettop(L), markers, depth + 1, inner, budget)]);
    } catch (error) {
      lua.lua_settop(L, -3);
      throw error;
    }
    lua.lua_settop(L, -2);
  }
  if (entries.length === 0) return mark === "object" ? {} : [];
  if (integerKeys === entries.length && mark !== "object") {
    const array: JsonValue[] = new Array<JsonValue>(entries.length);
    for (const [key, value] of entries) {
      if (typeof key !== "number" || key < 1 || key > entries.length)
        throw new LuaValueError(`${where} is a sparse array (keys must be 1..n)`);
      array[key - 1] = value;
    }
    return array;
  }
  if (integerKeys > 0) throw new LuaValueError(`${where} mixes list items and named fields`);
  const object: { [key: string]: JsonValue } = {};
  for (const [key, value] of entries) {
    // Never a prototype-polluting key in what reaches JavaScript.
    if (typeof key === "string" && !isForbiddenKey(key)) object[key] = value;
  }
  return object;
}

/** Pushes a JSON value onto thread `L` (one slot). */
export function pushLuaValue(
  lua: LuaWasm,
  L: number,
  value: JsonValue,
  markers: LuaMarkers,
  depth = 0,
): void {
  if (depth > MAX_LUA_VALUE_DEPTH)
    throw new LuaValueError(`the value nests deeper than ${MAX_LUA_VALUE_DEPTH}`);
  if (value === null) {
    lua.lua_rawgeti(L, LUA_REGISTRYINDEX, BigInt(markers.nullRef));
    return;
  }
  switch (typeof value) {
    case "boolean":
      lua.lua_pushboolean(L, value ? 1 : 0);
      return;
    case "number":
      if (Number.isSafeInteger(value)) lua.lua_pushinteger(L, BigInt(value));
      else lua.lua_pushnumber(L, value);
      return;
    case "string":
      lua.lua_pushlstring(L, value, Buffer.byteLength(value, "utf8"));
      return;
    default:
      break;
  }
  if (lua.lua_checkstack(L, 4) === 0) throw new LuaValueError("the value nests too deep for the stack");
  if (Array.isArray(value)) {
    lua.lua_createtable(L, value.length, 0);
    value.forEach((item, position) => {
      pushLuaValue(lua, L, item, markers, depth + 1);
      lua.lua_rawseti(L, -2, BigInt(position + 1));
    });
    if (value.length === 0) setMark(lua, L, markers.arrayMetaRef);
    return;
  }
  const keys = Object.keys(value);
  lua.lua_createtable(L, 0, keys.length);
  for (const key of keys) {
    const inner = value[key];
    if (inner === undefined) continue;
    lua.lua_pushlstring(L, key, Buffer.byteLength(key, "utf8"));
    pushLuaValue(lua, L, inner, markers, depth + 1);
    lua.lua_rawset(L, -3);
  }
  if (keys.length === 0) setMark(lua, L, markers.objectMetaRef);
}

function setMark(lua: LuaWasm, L: number, metaRef: number): void {
  lua.lua_rawgeti(L, LUA_REGISTRYINDEX, BigInt(metaRef));
  lua.lua_setmetatable(L, -2);
}
