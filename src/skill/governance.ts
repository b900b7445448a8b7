import { domainToASCII } from "node:url";
import { type Diagnostic, diagnostic } from "../core/diagnostics.js";
import { MAX_ALLOWED_DOMAINS } from "../core/limits.js";
import type { ValidationMode } from "./fields.js";
import { type ParametersSchema, readParametersSchema } from "./parameters-schema.js";

/** Where a skill's scripts run. `sandbox` is the default: nothing runs unconfined unless trusted. */
export type ExecutionMode = "local" | "sandbox" | "node" | "queue";
/** How risky a script call is; it picks the policy rule that applies. */
export type Tier = "read" | "change" | "destructive";
/** Network for a queued script's container. */
export type NetworkMode = "none" | "bridge";

/**
 * What a skill declares about the turn's workspace (docs/running-scripts.md, "The workspace"):
 * `none` turns it off, `read` sees it read-only, `write` may change it (asked first).
 */
export type WorkspaceDeclaration = "none" | "read" | "write";

/** The values every governance key may take, for messages, docs and the CLI. */
export const EXECUTION_MODES: readonly ExecutionMode[] = ["local", "sandbox", "node", "queue"];
/** See {@link Tier}. */
export const TIERS: readonly Tier[] = ["read", "change", "destructive"];
/** See {@link NetworkMode}. */
export const NETWORK_MODES: readonly NetworkMode[] = ["none", "bridge"];
/** See {@link WorkspaceDeclaration}. */
export const WORKSPACE_DECLARATIONS: readonly WorkspaceDeclaration[] = ["none", "read", "write"];

/** The metadata keys skillgate reads. */
export const GOVERNANCE_KEYS = {
  execution: "skillgate.execution",
  tier: "skillgate.tier",
  allowedDomains: "skillgate.allowed-domains",
  network: "skillgate.network",
  workspace: "skillgate.workspace",
  parametersSchema: "parameters_schema",
} as const;

/** A skill's governance: how its scripts run and how calls to them are judged. */
export interface Governance {
  readonly execution: ExecutionMode;
  readonly tier: Tier;
  /** Lower-case ASCII host names (IDNA applied), optionally with `:port`. */
  readonly allowedDomains: readonly string[];
  readonly network: NetworkMode;
  readonly parametersSchema: ParametersSchema;
  /** `skillgate.workspace` when declared; left out, the tier decides (see {@link workspaceAccessOf}). */
  readonly workspace?: WorkspaceDeclaration;
}

/**
 * How a skill's runs use the turn's workspace: the declared `skillgate.workspace`, else none
 * for a `queue` skill (a pool worker's script sees no project folder, docs/queue.md), else
 * read-only for a `read` skill and writable for `change` and `destructive` ones.
 */
export function workspaceAccessOf(governance: Governance): WorkspaceDeclaration {
  if (governance.workspace !== undefined) return governance.workspace;
  if (governance.execution === "queue") return "none";
  return governance.tier === "read" ? "read" : "write";
}

/** Governance with every default, for skills that declare nothing. */
export const DEFAULT_GOVERNANCE: Governance = {
  execution: "sandbox",
  tier: "change",
  allowedDomains: [],
  network: "none",
  parametersSchema: { kind: "none" },
};

/**
 * Reads governance from `metadata`. An invalid value is a skill problem
 * (`invalid_governance`, `invalid_parameters_schema`) and the key keeps its default, so
 * the caller can decide whether the skill may still be offered.
 */
export function readGovernance(
  metadata: Readonly<Record<string, unknown>>,
  context: { path?: string; mode: ValidationMode },
): { governance: Governance; diagnostics: readonly Diagnostic[] } {
  const problems = new GovernanceProblems(context.path);
  const execution = readChoice(
    metadata,
    GOVERNANCE_KEYS.execution,
    EXECUTION_MODES,
    DEFAULT_GOVERNANCE.execution,
    problems,
  );
  const tier = readChoice(metadata, GOVERNANCE_KEYS.tier, TIERS, DEFAULT_GOVERNANCE.tier, problems);
  const network = readChoice(
    metadata,
    GOVERNANCE_KEYS.network,
    NETWORK_MODES,
    DEFAULT_GOVERNANCE.network,
    problems,
  );
  const workspace =
    metadata[GOVERNANCE_KEYS.workspace] === undefined
      ? undefined
      : readChoice(metadata, GOVERNANCE_KEYS.workspace, WORKSPACE_DECLARATIONS, undefined, problems);
  const rawDomains = metadata[GOVERNANCE_KEYS.allowedDomains];
  const rawSchema = metadata[GOVERNANCE_KEYS.parametersSchema];
  if (workspace !== undefined) {
    const shared = sharedGovernance(execution, tier, network);
    const schema = readParametersSchema(rawSchema);
    if (schema.problem !== undefined)
      problems.report("invalid_parameters_schema", schema.problem, GOVERNANCE_KEYS.parametersSchema);
    return {
      governance: Object.freeze({
        ...shared,
        allowedDomains: readDomains(rawDomains, problems),
        parametersSchema: schema.schema,
        workspace,
      }),
      diagnostics: problems.found(),
    };
  }
  if ((rawDomains === undefined || rawDomains === null) && (rawSchema === undefined || rawSchema === null)) {
    return { governance: sharedGovernance(execution, tier, network), diagnostics: problems.found() };
  }
  const allowedDomains = readDomains(rawDomains, problems);
  const schema = readParametersSchema(rawSchema);
  if (schema.problem !== undefined)
    problems.report("invalid_parameters_schema", schema.problem, GOVERNANCE_KEYS.parametersSchema);
  return {
    governance: { execution, tier, network, allowedDomains, parametersSchema: schema.schema },
    diagnostics: problems.found(),
  };
}

/** The problems one skill's governance keys have, each naming its `metadata.` field. */
class GovernanceProblems {
  /** Made on the first problem: most skills have none. */
  #list: Diagnostic[] | undefined;
  constructor(private readonly path: string | undefined) {}

  report(code: "invalid_governance" | "invalid_parameters_schema", message: string, field: string): void {
    const item = diagnostic(code, "error", message, { path: this.path, field: `metadata.${field}` });
    if (this.#list === undefined) this.#list = [item];
    else this.#list.push(item);
  }

  /** Every problem, in order (one shared frozen empty list when there was none). */
  found(): readonly Diagnostic[] {
    return this.#list ?? NO_PROBLEMS;
  }
}

const NO_PROBLEMS: readonly Diagnostic[] = Object.freeze([]);

/**
 * Governance without domains or a schema, one frozen object per combination of the three
 * choices (24 in all) shared by every skill that has it: most skills declare only a tier
 * and an execution mode, and a catalog of thousands need not hold a copy each.
 */
const SHARED_GOVERNANCE: (Governance | undefined)[] = [];
const NO_DOMAINS: readonly string[] = Object.freeze([]);
const NO_SCHEMA: ParametersSchema = Object.freeze({ kind: "none" });

function sharedGovernance(execution: ExecutionMode, tier: Tier, network: NetworkMode): Governance {
  const index =
    (EXECUTION_MODES.indexOf(execution) * TIERS.length + TIERS.indexOf(tier)) * NETWORK_MODES.length +
    NETWORK_MODES.indexOf(network);
  let governance = SHARED_GOVERNANCE[index];
  if (governance === undefined) {
    governance = Object.freeze({
      execution,
      tier,
      network,
      allowedDomains: NO_DOMAINS,
      parametersSchema: NO_SCHEMA,
    });
    SHARED_GOVERNANCE[index] = governance;
  }
  return governance;
}

function readChoice<Choice extends string, Fallback extends Choice | undefined>(
  metadata: Readonly<Record<string, unknown>>,
  key: string,
  choices: readonly Choice[],
  fallback: Fallback,
  problems: GovernanceProblems,
): Choice | Fallback {
  const raw = metadata[key];
  if (raw === undefined) return fallback;
  if (typeof raw === "string" && (choices as readonly string[]).includes(raw)) return raw as Choice;
  problems.report(
    "invalid_governance",
    `${key} must be one of ${choices.join(", ")} (got ${JSON.stringify(raw)})`,
    key,
  );
  return fallback;
}

function readDomains(raw: unknown, problems: GovernanceProblems): string[] {
  if (raw === undefined || raw === null) return [];
  const key = GOVERNANCE_KEYS.allowedDomains;
  let entries: unknown[];
  if (typeof raw === "string") entries = raw.split(/[\s,]+/).filter((entry) => entry.length > 0);
  else if (Array.isArray(raw)) entries = raw;
  else {
    problems.report("invalid_governance", `${key} must be a list of host names`, key);
    return [];
  }
  if (entries.length > MAX_ALLOWED_DOMAINS) {
    problems.report(
      "invalid_governance",
      `${key} lists ${entries.length} hosts; the limit is ${MAX_ALLOWED_DOMAINS}`,
      key,
    );
    return [];
  }
  const hosts: string[] = [];
  for (const entry of entries) {
    const host = typeof entry === "string" ? canonicalHost(entry) : undefined;
    if (host === undefined) {
      problems.report("invalid_governance", `${key} has an invalid host ${JSON.stringify(entry)}`, key);
      return [];
    }
    if (!hosts.includes(host)) hosts.push(host);
  }
  return hosts;
}

const HOST_LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * The canonical form of a host (`host` or `host:port`): lower case, IDNA to ASCII, no
 * trailing dot; `undefined` for anything with userinfo, a path, control characters,
 * wildcards or an IP literal (allow-lists name hosts, not addresses).
 */
export function canonicalHost(entry: string): string | undefined {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters in a host name are refused.
  if (/[\u0000-\u0020\u007f/@\\?#*]/.test(entry)) return undefined;
  const match = /^([^:]+)(?::(\d{1,5}))?$/.exec(entry);
  if (!match) return undefined;
  const port = match[2];
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) return undefined;
  const ascii = domainToASCII((match[1] as string).replace(/\.$/, ""));
  if (ascii === "" || ascii.length > 253) return undefined;
  const labels = ascii.split(".");
  if (labels.length < 2 || !labels.every((label) => HOST_LABEL.test(label))) return undefined;
  if (labels.every((label) => /^\d+$/.test(label)) || /^\d+$/.test(labels[labels.length - 1] as string))
    return undefined;
  return port === undefined ? ascii : `${ascii}:${Number(port)}`;
}
