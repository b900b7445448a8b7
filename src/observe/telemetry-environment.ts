/**
 * Whether the owner configured an OpenTelemetry exporter, read from the standard `OTEL_*`
 * variables. This file imports nothing, so the CLI's entry can ask before loading any of
 * OpenTelemetry (observe/telemetry.ts loads the SDK only when this says yes).
 */

/** The exporter variables that switch the SDK on (any set to something other than `none`). */
export const EXPORTER_VARIABLES = [
  "OTEL_TRACES_EXPORTER",
  "OTEL_METRICS_EXPORTER",
  "OTEL_EXPORTER_OTLP_ENDPOINT",
  "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
  "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
] as const;

/** True when the environment configures an exporter and does not set `OTEL_SDK_DISABLED=true`. */
export function telemetryConfigured(environment: Readonly<Record<string, string | undefined>>): boolean {
  if ((environment.OTEL_SDK_DISABLED ?? "").trim().toLowerCase() === "true") return false;
  return EXPORTER_VARIABLES.some((name) => {
    const value = (environment[name] ?? "").trim();
    return value !== "" && value.toLowerCase() !== "none";
  });
}
