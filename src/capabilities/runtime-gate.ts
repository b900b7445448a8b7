import type {
  RegistrationReason,
  RegistrationStatus,
  RuntimeGate,
  RuntimeMode,
  SkillDescriptor,
  SkillKind,
} from "./types.js";

/**
 * Runtime gates: which runtimes a skill may serve. Seed 004's table of gate decisions is
 * {@link RUNTIME_GATE_TABLE}, as data, and docs/capabilities.md ("Runtime gates") prints the
 * same rows; {@link gateDecision} answers for one descriptor and one runtime by finding its
 * row. Runtimes: `normal` (chat), `plan`, `job` (a queued or scheduled run) and `team` (an
 * orchestrating host's worker). `job` and `team` have no person at the keyboard.
 */

/** Every runtime mode. */
export const RUNTIME_MODES: readonly RuntimeMode[] = ["normal", "plan", "job", "team"];

/** Runtimes with a person to answer (a gate's `requires_interactive_user`). */
export const INTERACTIVE_MODES: readonly RuntimeMode[] = ["normal", "plan"];

/** One row of the gate table. */
export interface GateRow {
  /** A stable key, for tests and `explain`. */
  readonly row: string;
  readonly kind: SkillKind;
  /** The runtime condition, as the docs print it. */
  readonly condition: string;
  readonly status: RegistrationStatus;
  readonly reason: RegistrationReason;
  /** What the row means for a person. */
  readonly note: string;
}

/**
 * Seed 004's gate decisions, and skillgate's rows for what the seed leaves implicit (a
 * `lua_skill` or `workflow_skill` whose gate excludes the runtime). The schema row
 * (`workflow_skill` missing schemas) is decided by the schema step before the gate is
 * consulted; it is here so the table is whole. A generation switch that widens permissions
 * belongs to reload, which asks the owner (docs/capabilities.md, "Hot reload").
 */
export const RUNTIME_GATE_TABLE: readonly GateRow[] = [
  {
    row: "workflow_admitted",
    kind: "workflow_skill",
    condition: "gate admits the runtime (normal gate in normal runtime)",
    status: "registered",
    reason: "registered",
    note: "registered",
  },
  {
    row: "workflow_missing_schema",
    kind: "workflow_skill",
    condition: "input or output schema missing",
    status: "display_only",
    reason: "capability_missing_schema",
    note: "display-only for a bare SKILL.md; an adapter manifest without them is rejected",
  },
  {
    row: "workflow_gate_mismatch",
    kind: "workflow_skill",
    condition: "gate excludes the runtime (team-only skill in normal runtime)",
    status: "display_only",
    reason: "runtime_gate_mismatch",
    note: "shown, not offered here; registered to the runtimes its gate admits",
  },
  {
    row: "worker_outside_runtime",
    kind: "runtime_worker",
    condition: "outside its runtime (runtime_worker in normal runtime)",
    status: "display_only",
    reason: "runtime_worker_display_only",
    note: "display-only",
  },
  {
    row: "worker_in_runtime",
    kind: "runtime_worker",
    condition: "in its matching runtime (team)",
    status: "registered",
    reason: "registered",
    note: "registered to that runtime only, never globally",
  },
  {
    row: "lua_admitted",
    kind: "lua_skill",
    condition: "gate admits the runtime",
    status: "registered",
    reason: "registered",
    note: "registered as a hot-reloadable workflow.* capability",
  },
  {
    row: "lua_gate_mismatch",
    kind: "lua_skill",
    condition: "gate excludes the runtime",
    status: "display_only",
    reason: "runtime_gate_mismatch",
    note: "shown, not offered here",
  },
];

/** A gate's answer for one runtime. */
export interface GateDecision {
  readonly admitted: boolean;
  readonly row: GateRow;
  /** Every runtime the gate admits: where the provider is registered. */
  readonly runtimes: readonly RuntimeMode[];
}

/**
 * The runtimes a gate admits: its allowed modes, without `team` when it disallows team
 * workers, and without the non-interactive modes when it requires an interactive user.
 */
export function admittedModes(gate: RuntimeGate): RuntimeMode[] {
  return RUNTIME_MODES.filter(
    (mode) =>
      gate.allowedModes.includes(mode) &&
      !(gate.disallowTeamWorker && mode === "team") &&
      !(gate.requiresInteractiveUser && !INTERACTIVE_MODES.includes(mode)),
  );
}

/** The gate table's answer for `descriptor` in `runtime`. */
export function gateDecision(
  descriptor: Pick<SkillDescriptor, "kind" | "runtimeGate">,
  runtime: RuntimeMode,
): GateDecision {
  const runtimes = admittedModes(descriptor.runtimeGate);
  const admitted = runtimes.includes(runtime);
  const key =
    descriptor.kind === "runtime_worker"
      ? admitted
        ? "worker_in_runtime"
        : "worker_outside_runtime"
      : descriptor.kind === "lua_skill"
        ? admitted
          ? "lua_admitted"
          : "lua_gate_mismatch"
        : admitted
          ? "workflow_admitted"
          : "workflow_gate_mismatch";
  return { admitted, row: gateRow(key), runtimes };
}

/** The row with the given key (throws for a key not in the table: a programming error). */
export function gateRow(key: string): GateRow {
  const found = RUNTIME_GATE_TABLE.find((row) => row.row === key);
  if (found === undefined) throw new Error(`no gate row ${key}`);
  return found;
}

/** Parses a runtime mode name; undefined for anything else. */
export function runtimeModeOf(value: unknown): RuntimeMode | undefined {
  return typeof value === "string" && (RUNTIME_MODES as readonly string[]).includes(value)
    ? (value as RuntimeMode)
    : undefined;
}
