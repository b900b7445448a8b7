import { type Command, Option } from "commander";
import { inspectSetupCapabilities } from "../../../app/capability-setup.js";
import type { CapabilityInspection } from "../../../capabilities/discover.js";
import { detailOf, orderedFor, routesOf } from "../../../capabilities/report.js";
import { RUNTIME_MODES } from "../../../capabilities/runtime-gate.js";
import type { RuntimeMode } from "../../../capabilities/types.js";
import type { CapabilitiesConfig } from "../../../config/capabilities-config.js";
import { NotFoundError } from "../../../core/errors.js";
import { detailLines, summaryTable } from "../capability-format.js";
import { catalogFromFlags, type GlobalOptions } from "../context.js";
import { type CliOutput, paint, printJson } from "../output.js";

/** `--runtime <mode>`: which runtime the decisions are for. */
export function runtimeOption(): Option {
  return new Option("--runtime <mode>", "decide for this runtime")
    .choices([...RUNTIME_MODES])
    .default("normal");
}

/** The capability inspection the global flags describe, for `runtime`. */
export async function inspectFromFlags(
  command: Command,
  output: CliOutput,
  runtime: RuntimeMode,
): Promise<{ inspection: CapabilityInspection; config: CapabilitiesConfig }> {
  const setup = await catalogFromFlags(command, output);
  const globals = command.optsWithGlobals<GlobalOptions>();
  const inspection = inspectSetupCapabilities(setup, {
    runtime,
    ...(globals.projectExtensions === true ? { projectExtensions: true } : {}),
  });
  return { inspection, config: setup.catalog.config.capabilities };
}

/** `skillgate capability list|inspect`. */
export function registerCapability(program: Command, output: CliOutput): void {
  const capability = program
    .command("capability")
    .description(
      "the capability plane: capabilities, their providers in router order, decisions and permissions",
    );
  capability
    .command("list")
    .description("list every capability with its providers in router order (registered first)")
    .addOption(runtimeOption())
    .option("--json", "print JSON")
    .action(async (options: { runtime: RuntimeMode; json?: boolean }, command: Command) => {
      const { inspection, config } = await inspectFromFlags(command, output, options.runtime);
      const routes = routesOf(inspection, config);
      if (options.json) {
        printJson(output, { runtime: options.runtime, capabilities: routes });
        return;
      }
      if (routes.length === 0) {
        output.out(
          "No capabilities. Adapter manifests go in <config>/adapters/*.yaml, Lua capability manifests in <config>/capabilities/*.yaml (docs/capabilities.md).\n",
        );
        return;
      }
      const lines: string[] = [];
      for (const route of routes) {
        lines.push(paint(output, "bold", route.capability));
        lines.push(
          summaryTable(output, route.providers)
            .split("\n")
            .map((line) => `  ${line}`)
            .join("\n"),
        );
        lines.push("");
      }
      output.out(`${lines.join("\n")}`);
    });
  capability
    .command("inspect")
    .description(
      "inspect a provider (by id) or a capability (its providers in router order): decision, source, schemas, gate, effective permissions, generation, digest, limits",
    )
    .argument("<id>", "a provider id (code-review-skill, skill:NAME) or a capability (workflow.code_review)")
    .addOption(runtimeOption())
    .option("--json", "print JSON")
    .action(async (id: string, options: { runtime: RuntimeMode; json?: boolean }, command: Command) => {
      const { inspection, config } = await inspectFromFlags(command, output, options.runtime);
      const provider = inspection.decisions.find((item) => item.decision.id === id);
      const offering = inspection.decisions.filter(
        (item) => item.descriptor?.capabilities.includes(id) === true,
      );
      if (provider === undefined && offering.length === 0) {
        const known = [
          ...new Set([
            ...inspection.decisions.map((item) => item.decision.id),
            ...inspection.decisions.flatMap((item) => item.descriptor?.capabilities ?? []),
          ]),
        ];
        throw new NotFoundError(
          "capability or provider",
          id,
          known.filter((name) => name.includes(id)).slice(0, 10),
        );
      }
      if (provider !== undefined) {
        const detail = detailOf(provider, config);
        if (options.json) printJson(output, { kind: "provider", runtime: options.runtime, provider: detail });
        else output.out(`${detailLines(output, detail).join("\n")}\n`);
        return;
      }
      const ordered = orderedFor(offering, id, config).map((item) => detailOf(item, config));
      if (options.json) {
        printJson(output, {
          kind: "capability",
          runtime: options.runtime,
          capability: id,
          providers: ordered,
        });
        return;
      }
      const lines = [`${paint(output, "bold", id)}: ${ordered.length} provider(s) in router order`, ""];
      ordered.forEach((detail, index) => {
        lines.push(`${index + 1}. ${detailLines(output, detail).join("\n   ")}`, "");
      });
      output.out(lines.join("\n"));
    });
}
