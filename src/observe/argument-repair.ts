import type { Logger } from "./logger.js";
import { type ArgumentRepairKind, recordArgumentRepair } from "./metrics.js";

/** Which call was repaired: names only, never the arguments. */
export interface RepairedCall {
  readonly skill: string;
  readonly script: string;
  /** The repairs made, in order (at most one of each kind counts). */
  readonly repairs: readonly ArgumentRepairKind[];
}

/**
 * Reports a repaired `run_skill_script` call (docs/tools.md, "Script arguments"; docs/audit.md,
 * "Metrics"): one information line, `Skill arguments for {skill}/{script} were coerced from a JSON
 * string.` (or `… had a top-level node moved inside.`) with `coerced` and `injectedNode` fields,
 * and one added to `skillgate.skill_arguments_coerced` per kind of repair. A call with no repair
 * reports nothing. The arguments' content is never passed here, so it cannot be logged.
 */
export function reportArgumentRepairs(call: RepairedCall, logger: Logger): void {
  const coerced = call.repairs.includes("string");
  const injectedNode = call.repairs.includes("node");
  if (!coerced && !injectedNode) return;
  const what = coerced ? "were coerced from a JSON string" : "had a top-level node moved inside";
  logger.info(`Skill arguments for ${call.skill}/${call.script} ${what}.`, { coerced, injectedNode });
  if (coerced) recordArgumentRepair("string");
  if (injectedNode) recordArgumentRepair("node");
}
