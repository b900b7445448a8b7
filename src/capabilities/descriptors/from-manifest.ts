import { basename, dirname, extname } from "node:path";
import type { SkillDecision } from "../../catalog/decisions.js";
import type { JsonValue } from "../../core/safe-json.js";
import { parseAdapterManifest } from "../manifests/adapter-manifest.js";
import { parseLuaManifest } from "../manifests/lua-manifest.js";
import { readManifestFile } from "../manifests/manifest-file.js";
import type { PathContext } from "../manifests/manifest-paths.js";
import { problem } from "../problems.js";
import { lowerTrust, trustLevelOf } from "../trust.js";
import type { SkillDescriptor, TrustLevel } from "../types.js";
import type { DescriptorCandidate } from "./candidate.js";
import type { SourceOf } from "./from-skill.js";

/** Everything a manifest's descriptor is built with. */
export interface ManifestContext {
  /** The owner's manifests (`<config>`) or a project's (with the opt-in). */
  readonly scope: "config" | "project";
  readonly paths: PathContext;
  /** The catalog's decision about the skill whose SKILL.md is at a canonical path, if it found one. */
  readonly findSkill: (skillFile: string) => SkillDecision | undefined;
  readonly sourceOf: SourceOf;
}

/** The descriptor source of adapter manifests. */
export const ADAPTER_SOURCE = "adapter-manifest";
/** The descriptor source of Lua capability manifests. */
export const CAPABILITY_SOURCE = "capability-manifest";

/**
 * The candidate from one adapter manifest file (`transport: skill`). Its trust level is the
 * lowest of: what `skill.source` claims, where the catalog actually found the skill, and
 * (for a project's manifest) `project`: a manifest cannot lift a skill above where it lies.
 */
export function candidateFromAdapterFile(file: string, context: ManifestContext): DescriptorCandidate {
  const read = readManifestFile(file);
  if (!read.ok) return unreadable(file, read.problems, context.scope, ADAPTER_SOURCE);
  const parsed = parseAdapterManifest(read.value, read.path, context.paths);
  const id = parsed.id ?? fallbackId(file);
  const manifest = parsed.manifest;
  if (manifest === undefined)
    return { ...unreadable(file, parsed.problems, context.scope, ADAPTER_SOURCE), id, kind: undefined };
  const problems = [...parsed.problems];
  const found = context.findSkill(manifest.skill.path);
  if (found === undefined)
    problems.push(
      problem(
        "skill_not_found",
        "error",
        `skill.path ${manifest.skill.path} is not a skill the catalog found (is its folder a skills folder?)`,
        { path: read.path, field: "skill.path" },
      ),
    );
  else if (found.name !== manifest.skill.id)
    problems.push(
      problem(
        "invalid_field",
        "error",
        `skill.id ${manifest.skill.id} does not match the skill at skill.path (${found.name})`,
        { path: read.path, field: "skill.id" },
      ),
    );
  const claimed = trustLevelOf(manifest.skill.source);
  const located = found === undefined ? undefined : trustLevelOf(context.sourceOf(found));
  const trustLevel = claimed === undefined ? undefined : capped(claimed, located, context.scope);
  const descriptor: SkillDescriptor = {
    id: manifest.id,
    ...(manifest.name !== undefined ? { name: manifest.name } : {}),
    kind: manifest.skill.kind,
    source: ADAPTER_SOURCE,
    path: manifest.skill.path,
    capabilities: manifest.capabilities,
    runtimeGate: manifest.skill.runtimeGate,
    inputSchema: manifest.skill.inputSchema,
    outputSchema: manifest.skill.outputSchema,
    permissions: manifest.permissions,
    ...(trustLevel !== undefined ? { trustLevel } : {}),
    priority: manifest.priority,
    limits: manifest.limits,
    manifestDigest: read.digest,
    metadata: metadataOf({
      version: manifest.version,
      description: manifest.description,
      transport: "skill",
      skill_source: manifest.skill.source,
      skill_id: manifest.skill.id,
      catalog_source: found?.source,
    }),
    scope: context.scope,
    manifestPath: read.path,
    entry: manifest.skill.entry,
    skillDirectory: dirname(manifest.skill.path),
  };
  return {
    id: manifest.id,
    kind: manifest.skill.kind,
    source: ADAPTER_SOURCE,
    scope: context.scope,
    location: read.path,
    descriptor,
    schemas: { input: manifest.inputSchema, output: manifest.outputSchema },
    problems,
    enabled: manifest.enabled,
    ...(found !== undefined ? { skill: { name: found.name, catalogDecision: found.decision } } : {}),
  };
}

/** The candidate from one Lua capability manifest file (`kind: lua_skill`): `owner` trust for the owner's, `project` for a project's. */
export function candidateFromLuaFile(file: string, context: ManifestContext): DescriptorCandidate {
  const read = readManifestFile(file);
  if (!read.ok) return unreadable(file, read.problems, context.scope, CAPABILITY_SOURCE);
  const parsed = parseLuaManifest(read.value, read.path, context.paths);
  const id = parsed.id ?? fallbackId(file);
  const manifest = parsed.manifest;
  if (manifest === undefined)
    return { ...unreadable(file, parsed.problems, context.scope, CAPABILITY_SOURCE), id, kind: "lua_skill" };
  const trustLevel: TrustLevel = context.scope === "config" ? "owner" : "project";
  const descriptor: SkillDescriptor = {
    id: manifest.id,
    ...(manifest.name !== undefined ? { name: manifest.name } : {}),
    kind: "lua_skill",
    source: CAPABILITY_SOURCE,
    path: manifest.lua.script,
    capabilities: manifest.capabilities,
    runtimeGate: manifest.runtimeGate,
    inputSchema: manifest.inputSchemaRef,
    outputSchema: manifest.outputSchemaRef,
    permissions: manifest.permissions,
    trustLevel,
    priority: manifest.priority,
    limits: manifest.limits,
    manifestDigest: read.digest,
    metadata: metadataOf({ version: manifest.version, description: manifest.description }),
    scope: context.scope,
    manifestPath: read.path,
    entry: {
      type: "lua",
      script: manifest.lua.script,
      entry: manifest.lua.entry,
      ...(manifest.lua.healthCheck !== undefined ? { healthCheck: manifest.lua.healthCheck } : {}),
    },
  };
  return {
    id: manifest.id,
    kind: "lua_skill",
    source: CAPABILITY_SOURCE,
    scope: context.scope,
    location: read.path,
    descriptor,
    schemas: { input: manifest.inputSchema, output: manifest.outputSchema },
    problems: parsed.problems,
    enabled: manifest.enabled,
  };
}

function capped(
  claimed: TrustLevel,
  located: TrustLevel | undefined,
  scope: "config" | "project",
): TrustLevel {
  let level = located === undefined ? claimed : lowerTrust(claimed, located);
  if (scope === "project") level = lowerTrust(level, "project");
  return level;
}

/** A name for a manifest whose `id` could not be read: `manifest:<file name without .yaml>`. */
function fallbackId(file: string): string {
  return `manifest:${basename(file, extname(file))}`;
}

function unreadable(
  file: string,
  problems: DescriptorCandidate["problems"],
  scope: "config" | "project",
  source: string,
): DescriptorCandidate {
  return {
    id: fallbackId(file),
    kind: undefined,
    source,
    scope,
    location: file,
    descriptor: undefined,
    problems,
    enabled: true,
  };
}

function metadataOf(values: Record<string, string | undefined>): { [key: string]: JsonValue } {
  const metadata: { [key: string]: JsonValue } = {};
  for (const [key, value] of Object.entries(values)) if (value !== undefined) metadata[key] = value;
  return metadata;
}
