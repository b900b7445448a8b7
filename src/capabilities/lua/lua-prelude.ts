/**
 * The Lua that runs in every skill state before the skill's own script: it removes what a
 * skill must not reach and defines the restricted host API. The API's functions only
 * `coroutine.yield` a request to the host, which answers it (docs/capabilities.md, "Lua
 * skills"): no JavaScript function or object is ever reachable from Lua, so there is nothing
 * to index through. The host checks every request on its own; the prelude is convenience,
 * not the boundary.
 */

/** The globals removed from every state, one by one (each has its own test). */
export const REMOVED_GLOBALS = [
  "io",
  "os",
  "require",
  "load",
  "loadstring",
  "dofile",
  "loadfile",
  "debug",
  "package",
  "collectgarbage",
  "warn",
] as const;

/** Fields removed from the libraries that stay. */
export const REMOVED_FIELDS = ["string.dump"] as const;

/** The first value of every host request, so a stray `coroutine.yield` is told apart. */
export const HOST_REQUEST_TAG = "skillgate.host/1";

/**
 * The prelude's source. Returns the markers and the `ctx` table for the host to keep in the
 * registry: `json.null`, the empty-array and empty-object metatables, `ctx`.
 */
export const LUA_PRELUDE = `
local yield, error, select, setmetatable, getmetatable, type = coroutine.yield, error, select, setmetatable, getmetatable, type
local TAG = "${HOST_REQUEST_TAG}"

${REMOVED_GLOBALS.map((name) => `${name} = nil`).join("\n")}
string.dump = nil
-- The string metatable is shared by every string: protect it so no skill swaps its methods.
getmetatable("").__metatable = false

local function host(operation, ...)
  local ok, result = yield(TAG, operation, ...)
  if ok == true then return result end
  error(result, 2)
end

local null = setmetatable({}, { __jsontype = "null", __metatable = false, __tostring = function() return "null" end,
  __newindex = function() error("json.null cannot be changed", 2) end })
local array_mt = { __jsontype = "array", __metatable = false }
local object_mt = { __jsontype = "object", __metatable = false }

json = {
  null = null,
  encode = function(value) return host("json.encode", value) end,
  decode = function(text) return host("json.decode", text) end,
  array = function(t) t = t or {}; if getmetatable(t) == nil then setmetatable(t, array_mt) end; return t end,
  object = function(t) t = t or {}; if getmetatable(t) == nil then setmetatable(t, object_mt) end; return t end,
}

local ctx = {
  tools = { invoke_agent = function(request) return host("invoke_agent", request) end },
  fs = {
    read = function(path) return host("fs.read", path) end,
    write = function(path, text) return host("fs.write", path, text) end,
  },
  log = function(level, message) return host("log", level, message) end,
}

print = function(...)
  local parts = {}
  for i = 1, select("#", ...) do parts[#parts + 1] = tostring((select(i, ...))) end
  return host("log", "info", table.concat(parts, "\\t"))
end

return null, array_mt, object_mt, ctx
`;
