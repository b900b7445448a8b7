import type { Command } from "commander";
import { inspectSetupCapabilities } from "../../../app/capability-setup.js";
import { type CapabilitySummary, summaryOf } from "../../../capabilities/report.js";
import type { SkillDecision } from "../../../catalog/decisions.js";
import { summaryTable } from "../capability-format.js";
import { catalogFromFlags, type GlobalOptions } from "../context.js";
import { type CliOutput, decisionStyle, paint, printJson, table } from "../output.js";

/** The stable JSON shape of one decision (documented in docs/cli.md). */
export function decisionJson(decision: SkillDecision): Record<string, unknown> {
  return {
    name: decision.name,
    source: decision.source,
    decision: decision.decision,
    description: decision.skill?.description ?? null,
    location: decision.location,
    reasons: decision.reasons.map((reason) => ({
      code: reason.code,
      severity: reason.severity,
      message: reason.message,
      ...(reason.winner ? { winner: reason.winner } : {}),
    })),
  };
}

/** `skillgate list [--all] [--json]`. */
export function registerList(program: Command, output: CliOutput): void {
  program
    .command("list")
    .description(
      "list skills with their source and decision (registered and display-only; --all for every skill found)",
    )
    .option("-a, --all", "include shadowed, disabled and rejected skills")
    .option("--json", "print JSON")
    .action(async (options: { all?: boolean; json?: boolean }, command: Command) => {
      const setup = await catalogFromFlags(command, output);
      const result = setup.catalog.discover();
      const capabilities = inspectSetupCapabilities(setup, {
        discovery: result,
        ...(command.optsWithGlobals<GlobalOptions>().projectExtensions === true
          ? { projectExtensions: true }
          : {}),
      }).decisions.map(summaryOf);
      // A cap that left skills out is said on stderr, so neither output hides it (details: doctor).
      for (const item of result.diagnostics)
        if (item.code === "limit_exceeded" && item.severity === "error")
          output.err(`skillgate: warning: ${item.message} (see skillgate doctor)\n`);
      const shown = result.decisions.filter(
        (decision) =>
          options.all || decision.decision === "registered" || decision.decision === "display_only",
      );
      const sorted = [...shown].sort((left, right) =>
        left.name < right.name ? -1 : left.name > right.name ? 1 : 0,
      );
      if (options.json) {
        printJson(output, { skills: sorted.map(decisionJson), capabilities });
        return;
      }
      const capabilityText = capabilitySection(output, capabilities);
      if (sorted.length === 0) {
        output.out(
          `No skills found. Run \`skillgate doctor\` to see where skillgate looked.\n${capabilityText}`,
        );
        return;
      }
      const rows = sorted.map((decision) => [
        decision.name,
        decision.source,
        decision.decision,
        decision.reasons.map((reason) => reason.code).join(",") || "-",
        decision.location,
      ]);
      output.out(
        `${table(output, ["NAME", "SOURCE", "DECISION", "REASONS", "LOCATION"], rows, (row, column) => (column === 2 ? decisionStyle(rows[row]?.[2] ?? "") : undefined))}\n`,
      );
      const hidden = result.decisions.length - shown.length;
      if (hidden > 0)
        output.out(
          paint(
            output,
            "dim",
            `\n${hidden} more found (shadowed, disabled or rejected): skillgate list --all\n`,
          ),
        );
      output.out(capabilityText);
    });
}

/**
 * The capability decisions under the skills: every manifest's and every runtime worker's,
 * and a count of the bare SKILL.md skills, which are display-only until a manifest gives
 * them schemas (`skillgate explain NAME` and the JSON show each). Empty when there is
 * nothing but bare skills, so a catalog without manifests lists as before.
 */
function capabilitySection(output: CliOutput, summaries: readonly CapabilitySummary[]): string {
  const bare = summaries.filter((item) => item.scope === "catalog" && item.kind === "workflow_skill");
  const shown = summaries.filter((item) => !bare.includes(item));
  if (shown.length === 0) return "";
  const lines = ["", paint(output, "bold", "Capabilities (normal runtime):"), summaryTable(output, shown)];
  if (bare.length > 0)
    lines.push(
      paint(
        output,
        "dim",
        `${bare.length} bare SKILL.md skill(s) are display_only (capability_missing_schema) until an adapter manifest gives them schemas`,
      ),
    );
  return `${lines.join("\n")}\n`;
}
