import { resolve } from "node:path";
import type { Command } from "commander";
import type { RuntimeMode } from "../../../capabilities/types.js";
import { escapeJsonControls } from "../../../core/terminal-text.js";
import { skillgateOptions } from "../context.js";
import type { CliOutput } from "../output.js";

interface InvokeOptions {
  readonly payload?: string;
  readonly provider?: string;
  readonly runtime?: string;
  readonly timeoutMs?: string;
  readonly json?: boolean;
}

const RUNTIMES: readonly RuntimeMode[] = ["normal", "plan", "job", "team"];

/**
 * `skillgate invoke <capability> --payload JSON [--provider ID] [--runtime MODE] [--timeout-ms N] [--json]`:
 * one invocation through the capability pipeline, as the owner at the terminal (caller `cli`,
 * filed under the job `cli`): every step runs (caller permission, router, payload guard,
 * schemas, guard, audit). It prints the output JSON on stdout; a refusal goes to stderr with
 * its code. Exit codes: 0 ok; 1 refused or failed; 2 usage; 124 timed out; 130 interrupted.
 */
export function registerInvoke(program: Command, output: CliOutput): void {
  program
    .command("invoke")
    .description("invoke a registered capability through the invocation pipeline and print its JSON output")
    .argument("<capability>", "the capability, such as workflow.code_review")
    .option("--payload <json>", "the payload: a JSON object (default {})")
    .option("--provider <id>", "pin one provider by id instead of the router's choice")
    .option("--runtime <mode>", `the runtime mode of the call: ${RUNTIMES.join(", ")} (default normal)`)
    .option("--timeout-ms <ms>", "a shorter timeout than the provider's own")
    .option("--json", "print the whole result (output or refusal, and the invocation record) as JSON")
    .addHelpText(
      "after",
      '\nExample:\n  skillgate invoke workflow.code_review --payload \'{"scope": "current_diff"}\'\n' +
        "Exit codes: 0 ok; 1 refused or failed; 2 usage; 124 timed out; 130 interrupted.\n",
    )
    .action(async (capability: string, options: InvokeOptions, command: Command) => {
      let payload: unknown = {};
      if (options.payload !== undefined) {
        try {
          // Plain JSON.parse: a key such as __proto__ stays visible, so the payload guard refuses it.
          payload = JSON.parse(options.payload);
        } catch {
          command.error('error: --payload must be JSON text, such as \'{"scope": "current_diff"}\'', {
            exitCode: 2,
          });
        }
      }
      const runtime = (options.runtime ?? "normal") as RuntimeMode;
      if (!RUNTIMES.includes(runtime))
        command.error(`error: --runtime must be one of ${RUNTIMES.join(", ")}`, { exitCode: 2 });
      const timeoutMs = options.timeoutMs === undefined ? undefined : Number(options.timeoutMs);
      if (timeoutMs !== undefined && (!Number.isInteger(timeoutMs) || timeoutMs <= 0))
        command.error("error: --timeout-ms must be a positive whole number", { exitCode: 2 });
      const settings = skillgateOptions(command);
      const { bootstrapSkillgate } = await import("../../../app/bootstrap.js");
      const skillgate = await bootstrapSkillgate(settings);
      const controller = new AbortController();
      const onInterrupt = (): void => controller.abort();
      process.on("SIGINT", onInterrupt);
      try {
        const result = await skillgate.capabilities.invoke(
          {
            capability,
            payload,
            ...(options.provider !== undefined ? { provider: options.provider } : {}),
            ...(timeoutMs !== undefined ? { timeoutMs } : {}),
          },
          {
            kind: "cli",
            agentId: "cli",
            runtimeMode: runtime,
            interactive: process.stdin.isTTY === true,
            scope: { kind: "job", id: "cli" },
            workspace: resolve(settings.roots?.[0] ?? process.cwd()),
            signal: controller.signal,
          },
          "skillgate invoke",
        );
        if (options.json) output.out(`${escapeJsonControls(JSON.stringify(result, null, 2))}\n`);
        else if (result.ok) output.out(`${escapeJsonControls(JSON.stringify(result.output, null, 2))}\n`);
        else output.err(`skillgate invoke: ${result.refusal.code}: ${result.refusal.message}\n`);
        process.exitCode = result.ok
          ? 0
          : result.record.status === "timed_out"
            ? 124
            : result.record.status === "interrupted"
              ? 130
              : 1;
      } finally {
        process.removeListener("SIGINT", onInterrupt);
        skillgate.close();
      }
    });
}
