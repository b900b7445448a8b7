import { realpathSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { parseRelativePath } from "../../core/safe-paths.js";
import type {
  CapabilityLimits,
  CapabilityPermissions,
  DescriptorEntry,
  RuntimeGate,
  SchemaRef,
  SkillKind,
} from "../types.js";
import {
  CAPABILITY_NAME,
  DEFAULT_LIMITS,
  ENV_NAME,
  LIMIT_BOUNDS,
  ManifestFields,
  PROVIDER_ID,
} from "./manifest-fields.js";
import type { ManifestParse } from "./manifest-parse.js";
import { isInside, type PathContext, resolveManifestPath } from "./manifest-paths.js";
import { readRuntimeGate } from "./runtime-gate-field.js";
import { type JsonSchemaObject, readSchemaPair } from "./schema-ref.js";

/**
 * An adapter manifest (`transport: skill`): an external SKILL.md offered as a capability,
 * with the fields of seed 004's example. Read from `<config>/adapters/*.yaml` and, with the
 * project opt-in, `<project>/.skillgate/adapters/*.yaml` (docs/capabilities.md, "Adapter
 * manifests"). `skill.kind`, `skill.runtime_gate`, `skill.input_schema` and
 * `skill.output_schema` are required; a manifest without a schema is rejected with
 * `capability_missing_schema`.
 */
export interface AdapterManifest {
  readonly id: string;
  readonly name?: string;
  readonly version?: string;
  readonly description?: string;
  readonly enabled: boolean;
  /** skillgate's addition: an explicit routing priority (higher first; config.yaml's wins). */
  readonly priority: number;
  readonly skill: {
    /** Where the skill came from as the manifest says it (`codex`, `user`, `store`, …); trust follows from it. */
    readonly source: string;
    /** The skill's name. */
    readonly id: string;
    /** The canonical SKILL.md. */
    readonly path: string;
    readonly kind: Exclude<SkillKind, "lua_skill">;
    readonly runtimeGate: RuntimeGate;
    readonly entry: DescriptorEntry;
    readonly inputSchema: SchemaRef;
    readonly outputSchema: SchemaRef;
  };
  readonly inputSchema: JsonSchemaObject;
  readonly outputSchema: JsonSchemaObject;
  readonly capabilities: readonly string[];
  readonly permissions: CapabilityPermissions;
  readonly limits: CapabilityLimits;
}

const TOP_FIELDS = [
  "id",
  "name",
  "version",
  "description",
  "enabled",
  "transport",
  "priority",
  "skill",
  "capabilities",
  "permissions",
  "limits",
];
const SKILL_FIELDS = [
  "source",
  "id",
  "path",
  "kind",
  "runtime_gate",
  "entry",
  "input_schema",
  "output_schema",
];
const PERMISSION_FIELDS = ["read_workspace", "write_workspace", "network", "shell", "env"];
const LIMIT_FIELDS = ["timeout_ms", "max_concurrency", "max_prompt_bytes"];
/** `codex_skill` (the seed's entry) is a skill whose body a model follows: sampling. */
const ENTRY_TYPES = ["script", "sampling", "codex_skill"] as const;

/** Parses an adapter manifest's data; `file` is its canonical path. Never throws. */
export function parseAdapterManifest(
  value: Record<string, unknown>,
  file: string,
  context: PathContext,
): ManifestParse<AdapterManifest> {
  const fields = new ManifestFields(file);
  fields.unknown(value, "", TOP_FIELDS);
  const id = fields.text(value, "id", "id", { required: true, pattern: PROVIDER_ID });
  const name = fields.text(value, "name", "name", { max: 200 });
  const version = fields.text(value, "version", "version", { max: 64 });
  const description = fields.text(value, "description", "description", { max: 1024 });
  const enabled = fields.flag(value, "enabled", "enabled", true);
  const priority = fields.integer(value, "priority", "priority", LIMIT_BOUNDS.priority, 0);
  const transport = fields.choice(value, "transport", "transport", ["skill"], true);
  const skill = fields.mapping(value, "skill", "skill", true);
  fields.unknown(skill, "skill", SKILL_FIELDS);
  const source = fields.text(skill, "source", "skill.source", { required: true, max: 64 });
  const skillId = fields.text(skill, "id", "skill.id", { required: true, max: 64 });
  const kind = fields.choice(skill, "kind", "skill.kind", ["workflow_skill", "runtime_worker"], true);
  const runtimeGate = readRuntimeGate(skill.runtime_gate, "skill.runtime_gate", fields);
  const rawPath = fields.text(skill, "path", "skill.path", { required: true });
  let skillFile: string | undefined;
  if (rawPath !== undefined) {
    const resolved = resolveManifestPath(rawPath, "skill.path", file, context);
    if (!resolved.ok) fields.push(resolved.problem);
    else skillFile = skillFileOf(resolved.path);
    if (resolved.ok && skillFile === undefined)
      fields.add("path_missing", "error", "skill.path", `${rawPath} holds no SKILL.md`);
  }
  const entry = readEntry(fields.mapping(skill, "entry", "skill.entry"), skillFile, fields);
  const schemas = readSchemaPair(skill, "skill.", file, context, (...problems) => fields.push(...problems));
  const capabilities = fields.textList(value, "capabilities", "capabilities", {
    required: true,
    pattern: CAPABILITY_NAME,
  });
  const permissions = readAdapterPermissions(fields.mapping(value, "permissions", "permissions"), fields);
  const limitsValue = fields.mapping(value, "limits", "limits");
  fields.unknown(limitsValue, "limits", LIMIT_FIELDS);
  const maxPromptBytes =
    limitsValue.max_prompt_bytes === undefined
      ? undefined
      : fields.integer(
          limitsValue,
          "max_prompt_bytes",
          "limits.max_prompt_bytes",
          LIMIT_BOUNDS.promptBytes,
          0,
        );
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
      "max_concurrency",
      "limits.max_concurrency",
      LIMIT_BOUNDS.concurrency,
      DEFAULT_LIMITS.maxConcurrency,
    ),
    ...(maxPromptBytes !== undefined ? { maxPromptBytes } : {}),
  };
  const problems = fields.problems;
  const input = schemas.input;
  const output = schemas.output;
  if (
    problems.some((item) => item.severity === "error") ||
    id === undefined ||
    transport === undefined ||
    source === undefined ||
    skillId === undefined ||
    kind === undefined ||
    runtimeGate === undefined ||
    skillFile === undefined ||
    entry === undefined ||
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
      skill: {
        source,
        id: skillId,
        path: skillFile,
        kind,
        runtimeGate,
        entry,
        inputSchema: input.ref,
        outputSchema: output.ref,
      },
      inputSchema: input.schema,
      outputSchema: output.schema,
      capabilities,
      permissions,
      limits,
    },
  };
}

/** The SKILL.md a canonical path names: the file itself, or the one inside a folder. */
function skillFileOf(path: string): string | undefined {
  try {
    const stats = statSync(path);
    if (stats.isFile()) return basename(path) === "SKILL.md" ? path : undefined;
    if (stats.isDirectory()) return realpathSync(join(path, "SKILL.md"));
  } catch {
    return undefined;
  }
  return undefined;
}

function readEntry(
  entry: Record<string, unknown>,
  skillFile: string | undefined,
  fields: ManifestFields,
): DescriptorEntry | undefined {
  fields.unknown(entry, "skill.entry", ["type", "script"]);
  const type = fields.choice(entry, "type", "skill.entry.type", ENTRY_TYPES, true);
  if (type === undefined) return undefined;
  if (type !== "script") {
    if (entry.script !== undefined)
      fields.add("invalid_field", "error", "skill.entry.script", `is only for entry type script`);
    return { type: "sampling" };
  }
  const script = fields.text(entry, "script", "skill.entry.script", { required: true });
  if (script === undefined) return undefined;
  const relative = parseRelativePath(script);
  if (!relative.ok) {
    fields.add(
      "path_not_allowed",
      "error",
      "skill.entry.script",
      `${JSON.stringify(script)} is not a path inside the skill (${relative.problem.reason})`,
    );
    return undefined;
  }
  if (skillFile === undefined) return undefined;
  const folder = dirname(skillFile);
  try {
    const canonical = realpathSync(join(folder, relative.value.path));
    if (!isInside(canonical, folder)) {
      fields.add(
        "path_not_allowed",
        "error",
        "skill.entry.script",
        `${script} leads outside the skill folder`,
      );
      return undefined;
    }
    if (!statSync(canonical).isFile()) {
      fields.add("path_missing", "error", "skill.entry.script", `${script} is not a file`);
      return undefined;
    }
  } catch {
    fields.add("path_missing", "error", "skill.entry.script", `${script} does not exist in the skill`);
    return undefined;
  }
  return { type: "script", script: relative.value.path };
}

function readAdapterPermissions(
  value: Record<string, unknown>,
  fields: ManifestFields,
): CapabilityPermissions {
  fields.unknown(value, "permissions", PERMISSION_FIELDS);
  const read = fields.flag(value, "read_workspace", "permissions.read_workspace", false);
  const write = fields.flag(value, "write_workspace", "permissions.write_workspace", false);
  return {
    // Writing implies reading what one writes.
    fsRead: read || write ? ["workspace"] : [],
    fsWrite: write ? ["workspace"] : [],
    network: fields.flag(value, "network", "permissions.network", false),
    shell: fields.flag(value, "shell", "permissions.shell", false),
    env: fields.textList(value, "env", "permissions.env", { pattern: ENV_NAME }),
    adapterCapabilities: [],
  };
}
