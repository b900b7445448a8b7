import { type Counter, type Meter, type MeterProvider, metrics } from "@opentelemetry/api";

/**
 * skillgate's metrics, through the OpenTelemetry API only: they cost nothing until the
 * host registers a meter provider (an SDK with an exporter), and then flow with the host's
 * other telemetry. Instruments are looked up through the global provider at each use,
 * cached per provider, so a provider registered after skillgate loaded is still used.
 */

/** The meter's name. */
export const METER_NAME = "skillgate";
/** The counter of repaired `run_skill_script` arguments (docs/audit.md, "Metrics"). */
export const ARGUMENTS_COERCED_COUNTER = "skillgate.skill_arguments_coerced";

/** The kinds of argument repair: JSON text parsed into an object, or a top-level `node` moved inside. */
export type ArgumentRepairKind = "string" | "node";

/** skillgate's meter, from the global meter provider. */
export function skillgateMeter(): Meter {
  return metrics.getMeter(METER_NAME);
}

const coercedCounters = new WeakMap<MeterProvider, Counter>();

/**
 * The counter `skillgate.skill_arguments_coerced`: one per repaired call, with the
 * attribute `kind` (`string` or `node`).
 */
export function argumentsCoercedCounter(): Counter {
  const provider = metrics.getMeterProvider();
  let counter = coercedCounters.get(provider);
  if (counter === undefined) {
    counter = provider.getMeter(METER_NAME).createCounter(ARGUMENTS_COERCED_COUNTER, {
      description:
        "run_skill_script calls whose arguments skillgate repaired: JSON text parsed into an object (kind=string) or a top-level node moved inside (kind=node)",
      unit: "{call}",
    });
    coercedCounters.set(provider, counter);
  }
  return counter;
}

/** Adds one to `skillgate.skill_arguments_coerced` with `kind`. Never throws. */
export function recordArgumentRepair(kind: ArgumentRepairKind): void {
  try {
    argumentsCoercedCounter().add(1, { kind });
  } catch {
    // A broken metrics SDK must not fail the call it counts.
  }
}
