import { isPlainObject } from "../../core/safe-json.js";
import { RUNTIME_MODES } from "../runtime-gate.js";
import type { RuntimeGate, RuntimeMode } from "../types.js";
import type { ManifestFields } from "./manifest-fields.js";

/**
 * Reads a manifest's runtime gate: a mode name (`runtime_gate: normal`, the adapter example's
 * form: that mode alone) or a mapping (`allowed_modes`, `disallow_team_worker`,
 * `requires_interactive_user`, the Lua example's form). Required: absent is `missing_field`.
 */
export function readRuntimeGate(
  raw: unknown,
  field: string,
  fields: ManifestFields,
): RuntimeGate | undefined {
  if (raw === undefined || raw === null) {
    fields.missing(field);
    return undefined;
  }
  if (typeof raw === "string") {
    if (!(RUNTIME_MODES as readonly string[]).includes(raw)) {
      fields.add("invalid_field", "error", field, `must be one of ${RUNTIME_MODES.join(", ")} or a mapping`);
      return undefined;
    }
    return { allowedModes: [raw as RuntimeMode], disallowTeamWorker: false, requiresInteractiveUser: false };
  }
  if (!isPlainObject(raw)) {
    fields.add("invalid_field", "error", field, "must be a mode name or a mapping");
    return undefined;
  }
  fields.unknown(raw, field, ["allowed_modes", "disallow_team_worker", "requires_interactive_user"]);
  const modes = fields.textList(raw, "allowed_modes", `${field}.allowed_modes`, { required: true });
  const unknown = modes.filter((mode) => !(RUNTIME_MODES as readonly string[]).includes(mode));
  if (unknown.length > 0) {
    fields.add(
      "invalid_field",
      "error",
      `${field}.allowed_modes`,
      `has ${unknown.join(", ")}; modes are ${RUNTIME_MODES.join(", ")}`,
    );
    return undefined;
  }
  if (modes.length === 0) {
    if (raw.allowed_modes !== undefined)
      fields.add("invalid_field", "error", `${field}.allowed_modes`, "must name at least one mode");
    return undefined;
  }
  return {
    allowedModes: modes as RuntimeMode[],
    disallowTeamWorker: fields.flag(raw, "disallow_team_worker", `${field}.disallow_team_worker`, false),
    requiresInteractiveUser: fields.flag(
      raw,
      "requires_interactive_user",
      `${field}.requires_interactive_user`,
      false,
    ),
  };
}
