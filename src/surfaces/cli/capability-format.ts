import type { CapabilityDetail, CapabilitySummary } from "../../capabilities/report.js";
import type { CapabilityPermissions, SchemaRef } from "../../capabilities/types.js";
import { escapeTerminalControls } from "../../core/terminal-text.js";
import { type CliOutput, decisionStyle, paint, table } from "./output.js";

/**
 * How the CLI prints capability decisions: one table of summaries (`list`, `capability
 * list`) and one block per decision in seed 004's explain order (`explain`, `capability
 * inspect`). Text from manifests is escaped: a manifest cannot move a person's cursor.
 */

const clean = escapeTerminalControls;

/** A table of decisions: id, kind, decision, reasons, capabilities, location. */
export function summaryTable(output: CliOutput, summaries: readonly CapabilitySummary[]): string {
  const rows = summaries.map((item) => [
    clean(item.id),
    item.kind ?? "-",
    item.status,
    item.reasons.join(","),
    item.capabilities.join(",") || "-",
    clean(item.location),
  ]);
  return table(
    output,
    ["ID", "KIND", "DECISION", "REASONS", "CAPABILITIES", "LOCATION"],
    rows,
    (row, column) => (column === 2 ? decisionStyle(rows[row]?.[2] ?? "") : undefined),
  );
}

/** One decision in full: decision, source, schemas, runtime gate, permissions, conflicts, diagnostics, then limits. */
export function detailLines(output: CliOutput, detail: CapabilityDetail): string[] {
  const { decision, source } = detail;
  const lines = [
    `${paint(output, "bold", clean(decision.id))}: ${paint(output, decisionStyle(decision.status) ?? "bold", decision.status)} (${decision.reasons.join(", ")}) in ${decision.runtime}`,
    `  ${clean(decision.detail)}`,
  ];
  if (decision.registered_to.length > 0) lines.push(`  registered to: ${decision.registered_to.join(", ")}`);
  lines.push("source:");
  lines.push(`  kind         ${source.kind ?? "-"}`);
  lines.push(`  source       ${clean(source.source)} (${source.scope})`);
  lines.push(`  trust level  ${source.trust_level ?? "unknown"}`);
  lines.push(`  location     ${clean(source.location)}`);
  if (source.path !== null && source.path !== source.location)
    lines.push(`  path         ${clean(source.path)}`);
  if (source.skill !== null) lines.push(`  skill        ${clean(source.skill)}`);
  if (source.entry !== null) lines.push(`  entry        ${entryText(source.entry)}`);
  lines.push(`  digest       ${source.manifest_digest ?? "-"}`);
  lines.push("schemas:");
  lines.push(`  input        ${schemaText(detail.schemas.input)}`);
  lines.push(`  output       ${schemaText(detail.schemas.output)}`);
  const gate = detail.runtime_gate;
  lines.push("runtime gate:");
  if (gate === null) lines.push("  -");
  else {
    lines.push(`  allowed modes              ${gate.allowedModes.join(", ")}`);
    lines.push(`  disallow team worker       ${gate.disallowTeamWorker}`);
    lines.push(`  requires interactive user  ${gate.requiresInteractiveUser}`);
    lines.push(
      `  admits                     ${gate.admits.join(", ") || "nothing"} (row ${gate.row ?? "-"})`,
    );
  }
  lines.push("permissions:");
  lines.push(`  declared     ${permissionsText(detail.permissions.declared)}`);
  lines.push(`  effective    ${permissionsText(detail.permissions.effective)}`);
  const sandbox = detail.permissions.sandbox;
  if (sandbox !== null)
    lines.push(
      `  sandbox      network ${sandbox.network ? "proxy" : "none"}, workspace ${sandbox.workspace ?? "none"}${sandbox.writableRoots.length > 0 ? `, writable ${sandbox.writableRoots.join(" ")}` : ""}`,
    );
  for (const line of detail.permissions.denied) lines.push(`  denied       ${clean(line)}`);
  for (const line of detail.permissions.narrowed) lines.push(`  narrowed     ${clean(line)}`);
  lines.push("conflicts:");
  if (detail.conflicts.length === 0) lines.push("  none");
  for (const conflict of detail.conflicts)
    lines.push(`  ${clean(conflict.id)} at ${clean(conflict.location)}`);
  lines.push("diagnostics:");
  if (detail.diagnostics.length === 0) lines.push("  none");
  for (const item of detail.diagnostics)
    lines.push(
      `  ${item.severity} ${item.code}${item.field !== undefined ? ` (${clean(item.field)})` : ""}: ${clean(item.message)}`,
    );
  lines.push(`capabilities: ${detail.capabilities.join(", ") || "-"}`);
  lines.push(`priority:     ${detail.priority}`);
  lines.push(`generation:   ${detail.generation ?? "-"}`);
  const limits = detail.limits;
  lines.push(
    `limits:       ${limits === null ? "-" : `timeout ${limits.timeoutMs} ms, concurrency ${limits.maxConcurrency}${limits.maxPromptBytes !== undefined ? `, prompt ${limits.maxPromptBytes} bytes` : ""}`}`,
  );
  return lines;
}

function entryText(entry: NonNullable<CapabilityDetail["source"]["entry"]>): string {
  if (entry.type === "script") return `script ${clean(entry.script)}`;
  if (entry.type === "lua")
    return `lua ${clean(entry.script)} ${entry.entry}()${entry.healthCheck !== undefined ? `, health ${entry.healthCheck}()` : ""}`;
  return "sampling";
}

function schemaText(ref: SchemaRef | null): string {
  if (ref === null) return "(none)";
  if (ref.kind === "file") return clean(ref.path);
  return clean(JSON.stringify(ref.schema));
}

function permissionsText(permissions: CapabilityPermissions | null): string {
  if (permissions === null) return "none";
  const parts = [
    `read ${permissions.fsRead.join(" ") || "-"}`,
    `write ${permissions.fsWrite.join(" ") || "-"}`,
    `network ${permissions.network}`,
    `shell ${permissions.shell}`,
    `env ${permissions.env.join(" ") || "-"}`,
  ];
  if (permissions.adapterCapabilities.length > 0)
    parts.push(`calls ${permissions.adapterCapabilities.join(" ")}`);
  return clean(parts.join(", "));
}
