import { readFile } from "node:fs/promises";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { parse } from "yaml";
import { sha256Hex } from "../../core/hashing.js";
import { MAX_YAML_ALIAS_COUNT } from "../../core/limits.js";
import { isPlainObject, type JsonValue, sanitizeJson } from "../../core/safe-json.js";
import type { LuaSkillEntry } from "../lua/lua-provider.js";
import type { CapabilityPermissions, RuntimeMode, SkillDescriptor } from "../types.js";

/**
 * A small reading of seed 004's Lua capability manifest, standing in for the descriptor
 * layer's parser (`capabilities/manifests/lua-manifest.ts`) until it is merged: the reloader
 * takes any {@link LuaManifestLoader}, and this one is what tests and the bench use today.
 * It checks shape, resolves paths inside the project root, and takes declared permissions as
 * effective (the descriptor layer narrows them by trust and policy).
 */

/** A manifest read and checked, ready for a generation. */
export interface LoadedLuaManifest {
  readonly descriptor: SkillDescriptor;
  /** Effective permissions. */
  readonly permissions: CapabilityPermissions;
  readonly scriptPath: string;
  readonly entry: LuaSkillEntry;
  /** `lua_skill`. */
  readonly transport: string;
  /** The manifest, the script and the schema files: what the reloader watches. */
  readonly watchedFiles: readonly string[];
}

/** Reads a manifest; throws an error with a `code` (`invalid_manifest`, `path_not_allowed`, `invalid_schema`). */
export type LuaManifestLoader = (manifestPath: string) => Promise<LoadedLuaManifest>;

/** A manifest that cannot become a generation. */
export class LuaManifestProblem extends Error {
  readonly code: "invalid_manifest" | "path_not_allowed" | "invalid_schema";
  constructor(code: LuaManifestProblem["code"], message: string) {
    super(message);
    this.code = code;
  }
}

const MODES = new Set<string>(["normal", "plan", "job", "team"]);

function strings(value: unknown, field: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((item) => typeof item === "string"))
    throw new LuaManifestProblem("invalid_manifest", `${field} must be a list of text`);
  return value as string[];
}

function inside(root: string, relativePath: unknown, field: string): string {
  if (typeof relativePath !== "string" || relativePath === "")
    throw new LuaManifestProblem("invalid_manifest", `${field} is missing`);
  const path = resolve(root, relativePath);
  const rest = relative(root, path);
  if (isAbsolute(relativePath) || rest.startsWith(`..${sep}`) || rest === "..")
    throw new LuaManifestProblem("path_not_allowed", `${field} ${relativePath} is outside ${root}`);
  return path;
}

/** The stand-in loader: paths in the manifest are relative to `projectRoot`. */
export function standInLuaManifestLoader(projectRoot: string): LuaManifestLoader {
  return async (manifestPath) => {
    const text = await readFile(manifestPath, "utf8");
    let document: unknown;
    try {
      document = parse(text, { maxAliasCount: MAX_YAML_ALIAS_COUNT });
    } catch (error) {
      throw new LuaManifestProblem("invalid_manifest", `${manifestPath}: ${(error as Error).message}`);
    }
    if (!isPlainObject(document))
      throw new LuaManifestProblem("invalid_manifest", "the manifest is not a mapping");
    if (document.kind !== "lua_skill")
      throw new LuaManifestProblem("invalid_manifest", "kind must be lua_skill");
    if (typeof document.id !== "string") throw new LuaManifestProblem("invalid_manifest", "id is missing");
    const lua = isPlainObject(document.lua) ? document.lua : {};
    const scriptPath = inside(projectRoot, lua.script, "lua.script");
    const entry = typeof lua.entry === "string" ? lua.entry : "invoke";
    const healthCheck = typeof lua.health_check === "string" ? lua.health_check : undefined;
    const schemaFiles: string[] = [];
    const schema = async (field: "input_schema" | "output_schema") => {
      const path = inside(projectRoot, document[field], field);
      schemaFiles.push(path);
      try {
        const parsed = sanitizeJson(JSON.parse(await readFile(path, "utf8")));
        if (!isPlainObject(parsed)) throw new Error("not an object");
        return parsed as { [key: string]: JsonValue };
      } catch (error) {
        throw new LuaManifestProblem("invalid_schema", `${field} ${path}: ${(error as Error).message}`);
      }
    };
    const inputSchema = await schema("input_schema");
    const outputSchema = await schema("output_schema");
    const gate = isPlainObject(document.runtime_gate) ? document.runtime_gate : {};
    const modes = strings(gate.allowed_modes, "runtime_gate.allowed_modes");
    if (!modes.every((mode) => MODES.has(mode)))
      throw new LuaManifestProblem("invalid_manifest", "runtime_gate.allowed_modes holds an unknown mode");
    const permissionsField = isPlainObject(document.permissions) ? document.permissions : {};
    const fs = isPlainObject(permissionsField.fs) ? permissionsField.fs : {};
    const adapters = isPlainObject(permissionsField.adapters) ? permissionsField.adapters : {};
    const permissions: CapabilityPermissions = {
      fsRead: strings(fs.read, "permissions.fs.read"),
      fsWrite: strings(fs.write, "permissions.fs.write"),
      network: permissionsField.network === true,
      shell: permissionsField.shell === true,
      env: strings(permissionsField.env, "permissions.env"),
      adapterCapabilities: strings(adapters.capabilities, "permissions.adapters.capabilities"),
    };
    const limits = isPlainObject(document.limits) ? document.limits : {};
    const script = await readFile(scriptPath, "utf8").catch(() => {
      throw new LuaManifestProblem("invalid_manifest", `lua.script ${scriptPath} cannot be read`);
    });
    const descriptor: SkillDescriptor = {
      id: document.id,
      kind: "lua_skill",
      source: "capability-manifest",
      path: manifestPath,
      capabilities: strings(document.capabilities, "capabilities"),
      runtimeGate: {
        allowedModes: modes as RuntimeMode[],
        disallowTeamWorker: gate.disallow_team_worker === true,
        requiresInteractiveUser: gate.requires_interactive_user === true,
      },
      inputSchema: { kind: "inline", schema: inputSchema },
      outputSchema: { kind: "inline", schema: outputSchema },
      permissions,
      trustLevel: "project",
      priority: 0,
      limits: {
        timeoutMs: typeof limits.timeout_ms === "number" ? limits.timeout_ms : 30_000,
        maxConcurrency: typeof limits.concurrency === "number" ? limits.concurrency : 1,
      },
      // The digest covers what the generation runs: the manifest and the script.
      manifestDigest: sha256Hex(`${text}\u0000${script}`),
      metadata: { script: relative(projectRoot, scriptPath) },
    };
    return {
      descriptor,
      permissions,
      scriptPath,
      entry: { entry, ...(healthCheck === undefined ? {} : { healthCheck }) },
      transport: "lua_skill",
      watchedFiles: [manifestPath, scriptPath, ...schemaFiles],
    };
  };
}
