import { type Command, Option } from "commander";
import { resolveFolders } from "../../../core/folders.js";
import { stderrLogger } from "../../../observe/logger.js";
import { skillgateOptions } from "../context.js";
import type { CliOutput } from "../output.js";
import { CLI_VERSION } from "../version.js";

interface NodeAgentCommandOptions {
  readonly controller: string;
  readonly name: string;
  readonly enrol?: string;
  readonly runner?: "sandbox" | "local";
}

/**
 * `skillgate node-agent --controller URL --name NAME [--enrol TOKEN] [--runner sandbox|local]`:
 * runs this machine as a named server of a controller (docs/nodes.md, "Running a node
 * agent"). Everything it keeps is in `<data>/node-agent/` (the global `--data` picks the data
 * folder). Logs one line per event on stderr; SIGINT or SIGTERM stops it gracefully.
 */
export function registerNodeAgent(program: Command, output: CliOutput): void {
  program
    .command("node-agent")
    .description(
      "run this machine as a named server: sync its skills from a controller and run them when asked",
    )
    .requiredOption(
      "--controller <url>",
      "the controller's URL: where skillgate serve listens, such as http://lab:3917",
    )
    .requiredOption("--name <name>", "this node's name, as the owner added it (skillgate nodes add NAME)")
    .option("--enrol <token>", "the one-time enrolment token from skillgate nodes add (first start only)")
    .addOption(
      new Option("--runner <mode>", "where scripts run: in the sandbox, or on this host as this user")
        .choices(["sandbox", "local"])
        .default("sandbox"),
    )
    .addHelpText(
      "after",
      "\nThe first start with --enrol stores this node's credential and pins the controller's key in\n" +
        "<data>/node-agent/; later starts reuse them (--enrol is then ignored). The agent connects out to\n" +
        "the controller (a node behind NAT works), reconnects with backoff, beats every 15 s and syncs its\n" +
        "skills every minute. A .cs script runs with dotnet on this host when dotnet is installed.\n" +
        "SIGINT or SIGTERM stops it: runs in flight end interrupted. See docs/nodes.md.\n",
    )
    .action(async (options: NodeAgentCommandOptions, command: Command) => {
      if (!/^https?:\/\//.test(options.controller))
        command.error(
          `error: --controller takes the controller's URL, such as http://127.0.0.1:3917 (got ${options.controller})`,
          { exitCode: 2 },
        );
      // The agent's parts (ws, the runners, tar) load only when this command runs.
      const { startNodeAgent } = await import("../../../nodes/agent/node-agent.js");
      const dataFolder = resolveFolders(skillgateOptions(command)).data;
      const agent = await startNodeAgent({
        controller: options.controller,
        name: options.name,
        dataFolder,
        logger: stderrLogger,
        agentVersion: CLI_VERSION,
        ...(options.enrol !== undefined ? { enrolToken: options.enrol } : {}),
        ...(options.runner !== undefined ? { mode: options.runner } : {}),
      });
      const signal = await new Promise<string>((resolve) => {
        process.once("SIGINT", () => resolve("SIGINT"));
        process.once("SIGTERM", () => resolve("SIGTERM"));
      });
      output.err(`skillgate: ${signal}: stopping the node agent\n`);
      await agent.stop();
    });
}
