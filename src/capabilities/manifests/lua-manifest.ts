import { statSync } from "node:fs";
import { WORKSPACE_ROOT } from "../permissions.js";
import { problem } from "../problems.js";
import type { CapabilityLimits, CapabilityPermissions, RuntimeGate, SchemaRef } from "../types.js";
import {
  CAPABILITY_NAME,
  DEFAULT_LIMITS,
  ENV_NAME,
  LIMIT_BOUNDS,
  LUA_NAME,
  ManifestFields,
  PROVIDER_ID,
} from "./manifest-fields.js";
import type { ManifestParse } from "./manifest-parse.js";
import { type PathContext, resolveManifestPath } from "./manifest-paths.js";
import { readRuntimeGate } from "./runtime-gate-field.js";
import { type JsonSchemaObject, readSchemaPair } from "./schema-ref.js";

/**
 * A Lua capability manifest (`kind: lua_skill`), with the fields of seed 004's example: a
 * project's Lua workflow offered as `workflow.*` capabilities. Read from
 * `<config>/capabilities/*.yaml` and, with the project opt-in,
 * `<project>/.skillgate/capabilities/*.yaml` (docs/capabilities.md, "Lua capability
 * manifests"). The Lua runtime that runs it is not here: this file only reads and checks.
 */
export interface LuaManifest {
  readonly id: string;
  readonly name?: string;
  readonly version?: string;
  readonly description?: string;
  readonly enabled: boolean;
  readonly priority: number;
  readonly capabilities: readonly string[];
  readonly lua: {
    /** The canonical Lua file. */
    readonly script: string;
    readonly entry: string;
    readonly healthCheck?: string;
  };
  readonly runtimeGate: RuntimeGate;
  readonly inputSchemaRef: SchemaRef;
  readonly outputSchemaRef: SchemaRef;
  readonly inputSchema: JsonSchemaObject;
  readonly outputSchema: JsonSchemaObject;
  readonly permissions: CapabilityPermissions;
  readonly limits: CapabilityLimits;
}

const TOP_FIELDS = [
  "id",
  "name",
  "version",
  "description",
  "kind",
  "enabled",
  "priority",
  "capabilities",
  "lua",
  "runtime_gate",
  "input_schema",
  "output_schema",
  "permissions",
  "limits",
];
/** The most bytes a Lua script may have (the runtime reads it whole into a state). */
export const MAX_LUA_SCRIPT_BYTES = 1024 * 1024;

/** Parses a Lua capability manifest's data; `file` is its canonical path. Never throws. */
export function parseLuaManifest(
  value: Record<string, unknown>,
  file: string,
  context: PathContext,
): ManifestParse<LuaManifest> {
  const fields = new ManifestFields(file);
  fields.unknown(value, "", TOP_FIELDS);
  const id = fields.text(value, "id", "id", { required: true, pattern: PROVIDER_ID });
  fields.choice(value, "kind", "kind", ["lua_skill"], true);
  const name = fields.text(value, "name", "name", { max: 200 });
  const version = fields.text(value, "version", "version", { max: 64 });
  const description = fields.text(value, "description", "description", { max: 1024 });
  const enabled = fields.flag(value, "enabled", "enabled", true);
  const priority = fields.integer(value, "priority", "priority", LIMIT_BOUNDS.priority, 0);
  const capabilities = fields.textList(value, "capabilities", "capabilities", {
    required: true,
    pattern: CAPABILITY_NAME,
  });
  const notWorkflow = capabilities.filter((name) => !name.startsWith("workflow."));
  if (notWorkflow.length > 0)
    fields.push(
      problem(
        "invalid_capability_name",
        "error",
        `capabilities ${notWorkflow.join(", ")}: a Lua skill offers workflow.* capabilities only`,
        { path: file, field: "capabilities" },
      ),
    );
  const luaValue = fields.mapping(value, "lua", "lua", true);
  fields.unknown(luaValue, "lua", ["script", "entry", "health_check"]);
  const rawScript = fields.text(luaValue, "script", "lua.script", { required: true });
  let script: string | undefined;
  if (rawScript !== undefined) {
    const resolved = resolveManifestPath(rawScript, "lua.script", file, context);
    if (!resolved.ok) fields.push(resolved.problem);
    else {
      // The file may change between the canonicalisation and this look: a vanished file is missing.
      const stats = statSync(resolved.path, { throwIfNoEntry: false });
      if (stats === undefined || !stats.isFile())
        fields.add("path_missing", "error", "lua.script", `${rawScript} is not a file`);
      else if (stats.size > MAX_LUA_SCRIPT_BYTES)
        fields.add(
          "file_too_large",
          "error",
          "lua.script",
          `is ${stats.size} bytes; a Lua script may have ${MAX_LUA_SCRIPT_BYTES}`,
        );
      else script = resolved.path;
    }
  }
  const entry = fields.text(luaValue, "entry", "lua.entry", { required: true, pattern: LUA_NAME, max: 64 });
  const healthCheck = fields.text(luaValue, "health_check", "lua.health_check", {
    pattern: LUA_NAME,
    max: 64,
  });
  const runtimeGate = readRuntimeGate(value.runtime_gate, "runtime_gate", fields);
  const schemas = readSchemaPair(value, "", file, context, (...problems) => fields.push(...problems));
  const permissions = readLuaPermissions(
    fields.mapping(value, "permissions", "permissions"),
    fields,
    file,
    context,
  );
  const limitsValue = fields.mapping(value, "limits", "limits");
  fields.unknown(limitsValue, "limits", ["timeout_ms", "concurrency"]);
  const limits: CapabilityLimits = {
    timeoutMs: fields.integer(
      limitsValue,
      "timeout_ms",
      "limits.timeout_ms",
      LIMIT_BOUNDS.timeoutMs,
      DEFAULT_LIMITS.timeoutMs,
    ),
    maxConcurrency: fields.integer(
      limitsValue,
      "concurrency",
      "limits.concurrency",
      LIMIT_BOUNDS.concurrency,
      DEFAULT_LIMITS.maxConcurrency,
    ),
  };
  const problems = fields.problems;
  const { input, output } = schemas;
  if (
    problems.some((item) => item.severity === "error") ||
    id === undefined ||
    script === undefined ||
    entry === undefined ||
    runtimeGate === undefined ||
    input === undefined ||
    output === undefined
  )
    return { id, problems };
  return {
    id,
    problems,
    manifest: {
      id,
      ...(name !== undefined ? { name } : {}),
      ...(version !== undefined ? { version } : {}),
      ...(description !== undefined ? { description } : {}),
      enabled,
      priority,
      capabilities,
      lua: { script, entry, ...(healthCheck !== undefined ? { healthCheck } : {}) },
      runtimeGate,
      inputSchemaRef: input.ref,
      outputSchemaRef: output.ref,
      inputSchema: input.schema,
      outputSchema: output.schema,
      permissions,
      limits,
    },
  };
}

/**
 * `permissions.fs.read` / `fs.write`: `workspace` or folders, each canonicalised and kept
 * inside the allowed roots; `network`, `shell`; `adapters.capabilities`: what the skill may
 * call through `ctx.tools.invoke_agent`.
 */
function readLuaPermissions(
  value: Record<string, unknown>,
  fields: ManifestFields,
  file: string,
  context: PathContext,
): CapabilityPermissions {
  fields.unknown(value, "permissions", ["fs", "network", "shell", "adapters", "env"]);
  const fs = fields.mapping(value, "fs", "permissions.fs");
  fields.unknown(fs, "permissions.fs", ["read", "write"]);
  const roots = (key: "read" | "write"): string[] => {
    const field = `permissions.fs.${key}`;
    const listed = fields.textList(fs, key, field);
    const resolved: string[] = [];
    for (const root of listed) {
      if (root === WORKSPACE_ROOT) {
        resolved.push(root);
        continue;
      }
      const path = resolveManifestPath(root, field, file, context);
      if (path.ok) resolved.push(path.path);
      else fields.push(path.problem);
    }
    return [...new Set(resolved)];
  };
  const fsRead = roots("read");
  const fsWrite = roots("write");
  const adapters = fields.mapping(value, "adapters", "permissions.adapters");
  fields.unknown(adapters, "permissions.adapters", ["capabilities"]);
  return {
    fsRead: [...new Set([...fsRead, ...fsWrite])],
    fsWrite,
    network: fields.flag(value, "network", "permissions.network", false),
    shell: fields.flag(value, "shell", "permissions.shell", false),
    env: fields.textList(value, "env", "permissions.env", { pattern: ENV_NAME }),
    adapterCapabilities: fields.textList(adapters, "capabilities", "permissions.adapters.capabilities", {
      pattern: CAPABILITY_NAME,
    }),
  };
}
