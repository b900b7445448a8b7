import type { Command } from "commander";
import { inspectSetupCapabilities } from "../../../app/capability-setup.js";
import { detailOf } from "../../../capabilities/report.js";
import { explainSkill } from "../../../catalog/explain.js";
import { NotFoundError } from "../../../core/errors.js";
import { grant } from "../../../skill/content-hash.js";
import { workspaceAccessOf } from "../../../skill/governance.js";
import { detailLines } from "../capability-format.js";
import { catalogFromFlags, type GlobalOptions } from "../context.js";
import { type CliOutput, decisionStyle, paint, printJson } from "../output.js";
import { decisionJson } from "./list.js";

/** `skillgate explain <name> [--json]`: decision first, then everything else known. */
export function registerExplain(program: Command, output: CliOutput): void {
  program
    .command("explain")
    .description(
      "explain one skill: its decision and reasons, source, location, hash, governance, scripts (schema, argv, usage), shadowing",
    )
    .argument("<name>", "a skill name, a unique prefix, or a unique part of a name")
    .option("--json", "print JSON")
    .action(async (name: string, options: { json?: boolean }, command: Command) => {
      const setup = await catalogFromFlags(command, output);
      const discovery = setup.catalog.discover();
      const capabilities = inspectSetupCapabilities(setup, {
        discovery,
        ...(command.optsWithGlobals<GlobalOptions>().projectExtensions === true
          ? { projectExtensions: true }
          : {}),
      });
      const config = setup.catalog.config.capabilities;
      const result = explainSkill(discovery, name);
      if (!result.found) {
        // Not a skill: a capability provider's id (an adapter or Lua manifest's `id`).
        const provider = capabilities.decisions.find((item) => item.decision.id === name);
        if (provider === undefined) throw new NotFoundError("skill", name, [...result.candidates]);
        const detail = detailOf(provider, config);
        if (options.json) printJson(output, detail);
        else output.out(`${detailLines(output, detail).join("\n")}\n`);
        return;
      }
      const { explanation } = result;
      const { decision } = explanation;
      const offered = capabilities.decisions
        .filter(
          (item) =>
            item.decision.id === `skill:${decision.name}` || item.candidate.skill?.name === decision.name,
        )
        .map((item) => detailOf(item, config));
      if (options.json) {
        printJson(output, {
          ...decisionJson(decision),
          properties: explanation.properties ?? null,
          hash: explanation.hash ?? null,
          grant: explanation.hash ? grant(decision.name, explanation.hash) : null,
          governance: explanation.governance ?? null,
          allowedTools: explanation.allowedTools,
          scripts: explanation.scripts,
          packages: explanation.packages ?? null,
          related: explanation.related.map(decisionJson),
          diagnostics: explanation.diagnostics,
          capabilities: offered,
        });
        return;
      }
      const lines: string[] = [];
      lines.push(
        `${paint(output, "bold", decision.name)}: ${paint(output, decisionStyle(decision.decision) ?? "bold", decision.decision)}`,
      );
      for (const reason of decision.reasons) lines.push(`  ${reason.code}: ${reason.message}`);
      lines.push(`source:      ${decision.source}`);
      lines.push(`location:    ${decision.location}`);
      if (explanation.description !== undefined) lines.push(`description: ${explanation.description}`);
      const properties = explanation.properties;
      if (properties?.license !== undefined) lines.push(`license:     ${properties.license}`);
      if (properties?.compatibility !== undefined) lines.push(`compatibility: ${properties.compatibility}`);
      if (properties?.metadata !== undefined) {
        lines.push("metadata:");
        for (const [key, value] of Object.entries(properties.metadata))
          lines.push(`  ${key}: ${typeof value === "string" ? value : JSON.stringify(value)}`);
      }
      lines.push(`hash:        ${explanation.hash ?? "-"}`);
      if (explanation.hash) lines.push(`grant:       ${grant(decision.name, explanation.hash)}`);
      const governance = explanation.governance;
      if (governance) {
        lines.push("governance:");
        lines.push(`  skillgate.execution        ${governance.execution}`);
        lines.push(`  skillgate.tier             ${governance.tier}`);
        lines.push(`  skillgate.network          ${governance.network}`);
        lines.push(`  skillgate.allowed-domains  ${governance.allowedDomains.join(" ") || "-"}`);
        lines.push(
          `  skillgate.workspace        ${workspaceAccessOf(governance)}${governance.workspace !== undefined ? "" : governance.execution === "queue" ? " (queue mode: none)" : " (from the tier)"}`,
        );
        lines.push(
          `  parameters_schema          ${governance.parametersSchema.kind === "none" ? "(none declared; mode default)" : governance.parametersSchema.kind}`,
        );
      }
      if (explanation.allowedTools.length > 0)
        lines.push(`allowed-tools: ${explanation.allowedTools.join(" ")}`);
      if (explanation.scripts.length > 0) {
        lines.push("scripts:");
        for (const script of explanation.scripts) {
          lines.push(`  ${script.path} (${script.language}) ${JSON.stringify(script.schema)}`);
          const commandLine = script.commandLine;
          if (commandLine !== undefined)
            lines.push(
              `    reads argv (${commandLine.reads})${commandLine.usage !== undefined ? `; usage: ${commandLine.usage}` : ""}`,
            );
        }
      }
      const packages = explanation.packages;
      if (packages?.python !== undefined || packages?.node !== undefined) {
        lines.push("packages:");
        if (packages.python !== undefined)
          lines.push(
            `  python  ${packages.python.requirements.join(" ")} (from ${packages.python.sources.join(", ")})`,
          );
        if (packages.node !== undefined)
          lines.push(
            `  node    ${packages.node.dependencies.join(" ")} (${packages.node.folder === "" ? "" : `${packages.node.folder}/`}package.json, ${packages.node.lock})`,
          );
      }
      for (const related of explanation.related) {
        const verb = related.decision === "shadowed" ? "shadows" : "related";
        lines.push(`${verb}:     ${related.source} ${related.location} (${related.decision})`);
      }
      if (explanation.diagnostics.length > 0) {
        lines.push("diagnostics:");
        for (const item of explanation.diagnostics)
          lines.push(
            `  ${item.severity} ${item.code}: ${item.message}${item.hint ? ` (fix: ${item.hint})` : ""}`,
          );
      }
      for (const detail of offered) {
        lines.push("capability:");
        lines.push(...detailLines(output, detail).map((line) => `  ${line}`));
      }
      output.out(`${lines.join("\n")}\n`);
    });
}
