import { existsSync, realpathSync } from "node:fs";
import type { CapabilitiesConfig } from "../../config/capabilities-config.js";
import { DEFAULT_CAPABILITIES_CONFIG } from "../../config/capabilities-config.js";
import { type CapabilityDecision, decideRegistration } from "../decide.js";
import { CAPABILITY_SOURCE, candidateFromLuaFile } from "../descriptors/from-manifest.js";
import { catalogSource } from "../descriptors/from-skill.js";
import type { LuaSkillEntry } from "../lua/lua-provider.js";
import type { PathContext } from "../manifests/manifest-paths.js";
import type { CapabilityPermissions, RuntimeMode, SkillDescriptor } from "../types.js";

/**
 * The reloader's "parse manifest" and "validate schema and policy" steps: one Lua capability
 * manifest through the descriptor layer (`candidateFromLuaFile`, then `decideRegistration`,
 * the same path discovery takes), so a reloaded generation passes every check a first load
 * does: shape, paths inside the allowed roots, schemas, trust, the owner's policy, the gate.
 */

/** A manifest read and decided, ready for a generation. */
export interface LoadedLuaManifest {
  readonly descriptor: SkillDescriptor;
  /** Effective permissions (declared ∩ trust ceiling ∩ the owner's policy), computed once. */
  readonly permissions: CapabilityPermissions;
  readonly scriptPath: string;
  readonly entry: LuaSkillEntry;
  /** `lua_skill` (what a transport change would compare). */
  readonly transport: string;
  /** The capabilities it serves, after config.yaml's switches. */
  readonly capabilities: readonly string[];
  /** The runtimes its gate registers it to. */
  readonly runtimes: readonly RuntimeMode[];
  /** The manifest, the script and the schema files: what the reloader watches. */
  readonly watchedFiles: readonly string[];
}

/** Reads and decides a manifest; throws {@link LuaManifestProblem}. */
export type LuaManifestLoader = (manifestPath: string) => Promise<LoadedLuaManifest>;

/** A manifest that cannot become a generation: the decision's first reason is the code. */
export class LuaManifestProblem extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

/** Where a manifest lives and what decides it. */
export interface LuaManifestLoaderOptions {
  readonly scope: "config" | "project";
  readonly paths: PathContext;
  readonly config?: CapabilitiesConfig;
  readonly runtime?: RuntimeMode;
}

/** The loader over the descriptor layer, for one manifest alone. */
export function luaManifestLoader(options: LuaManifestLoaderOptions): LuaManifestLoader {
  return async (manifestPath) => {
    const candidate = candidateFromLuaFile(manifestPath, {
      scope: options.scope,
      paths: options.paths,
      findSkill: () => undefined,
      sourceOf: catalogSource,
    });
    const [decided] = decideRegistration([candidate], {
      runtime: options.runtime ?? "normal",
      config: options.config ?? DEFAULT_CAPABILITIES_CONFIG,
    });
    return loadedFromDecision(decided, manifestPath);
  };
}

/**
 * The loader over a whole inspection (every manifest and skill discovered and decided again,
 * as the capability plane does at start): the manifest's own decision among all of them, so a
 * reload sees what a first load sees, an id another manifest already holds included. A manifest
 * no longer among the candidates (the file was removed) is `manifest_removed`.
 */
export function inspectionLoader(
  inspect: () => { readonly decisions: readonly CapabilityDecision[] },
): LuaManifestLoader {
  return async (manifestPath) => {
    const wanted = canonicalOf(manifestPath);
    const decided = inspect().decisions.find(
      (item) =>
        item.candidate.source === CAPABILITY_SOURCE &&
        (item.candidate.location === manifestPath || canonicalOf(item.candidate.location) === wanted),
    );
    if (decided === undefined || !existsSync(manifestPath))
      throw new LuaManifestProblem("manifest_removed", `${manifestPath} is no longer a capability manifest`);
    return loadedFromDecision(decided, manifestPath);
  };
}

function canonicalOf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** A decision as a generation's manifest; throws {@link LuaManifestProblem} when it may not become one. */
export function loadedFromDecision(
  decided: CapabilityDecision | undefined,
  manifestPath: string,
): LoadedLuaManifest {
  const descriptor = decided?.descriptor;
  const permissions = decided?.permissions?.effective;
  const entry = descriptor?.entry;
  if (decided === undefined || !decided.providable || descriptor === undefined || permissions === undefined)
    throw new LuaManifestProblem(
      decided?.decision.reasons[0] ?? "invalid_manifest",
      decided?.decision.detail ?? `${manifestPath} cannot be read`,
    );
  if (entry?.type !== "lua")
    throw new LuaManifestProblem("invalid_manifest", `${manifestPath} is not a Lua skill`);
  const schemaFiles = [descriptor.inputSchema, descriptor.outputSchema].flatMap((reference) =>
    reference?.kind === "file" ? [reference.path] : [],
  );
  return {
    descriptor,
    permissions,
    scriptPath: entry.script,
    entry: {
      entry: entry.entry,
      ...(entry.healthCheck === undefined ? {} : { healthCheck: entry.healthCheck }),
    },
    transport: "lua_skill",
    capabilities: decided.capabilities,
    runtimes: decided.decision.registeredTo ?? [],
    watchedFiles: [descriptor.manifestPath ?? manifestPath, entry.script, ...schemaFiles],
  };
}
