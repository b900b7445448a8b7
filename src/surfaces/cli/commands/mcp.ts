import { type Command, InvalidArgumentError as CommanderArgumentError } from "commander";
import { DEFAULT_WATCH_INTERVAL_MS } from "../../../catalog/watch.js";
import { skillgateOptions } from "../context.js";
import type { CliOutput } from "../output.js";
import { positiveInteger } from "../parse.js";

/** The port `skillgate mcp --http` listens on unless told otherwise. */
export const DEFAULT_MCP_PORT = 3917;

interface McpOptions {
  readonly http?: boolean;
  readonly host?: string;
  readonly port?: number;
  readonly token?: string;
  readonly plan?: boolean;
  readonly watch?: boolean;
  readonly watchInterval?: number;
}

/**
 * `skillgate mcp [--http [--host H] [--port N] [--token T]] [--plan] [--watch-interval MS | --no-watch]`:
 * serves the skills as an MCP server, over stdio (default) or Streamable HTTP, until the
 * client goes away (stdio) or the process is interrupted.
 */
export function registerMcp(program: Command, output: CliOutput): void {
  program
    .command("mcp")
    .description("serve skills to MCP clients: over stdio (default) or Streamable HTTP (--http)")
    .option("--http", "serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio")
    .option("--host <address>", "the address to bind with --http (default 127.0.0.1; others need a token)")
    .option(
      "--port <number>",
      `the port with --http (default ${DEFAULT_MCP_PORT}; 0 for any free port)`,
      port,
    )
    .option("--token <token>", "the bearer token HTTP clients must send (default $SKILLGATE_MCP_TOKEN)")
    .option("--plan", "plan mode: the model may look but not change anything (only read calls run)")
    .option(
      "--watch-interval <ms>",
      `how often the slow full re-check runs while file-system notifications do not cover every skill folder (default ${DEFAULT_WATCH_INTERVAL_MS}; ten times less often while they do)`,
      positiveInteger("--watch-interval"),
    )
    .option(
      "--no-watch",
      "no catalog watch: no list_changed notifications, and every tool call looks at the skill folders",
    )
    .addHelpText(
      "after",
      "\nOver stdio, stdout carries only MCP messages; skillgate's own lines go to stderr.\n" +
        "Approvals: clients that support elicitation are asked in a form; otherwise the call waits\n" +
        "for `skillgate approve ID` and the model makes the same call again. See docs/mcp.md.\n",
    )
    .action(async (options: McpOptions, command: Command) => {
      if (!options.http && (options.host !== undefined || options.port !== undefined))
        command.error("--host and --port need --http");
      // The MCP SDK and the whole app load only when this command runs.
      const { McpHost } = await import("../../mcp/host.js");
      const host = await McpHost.open({
        ...skillgateOptions(command),
        ...(options.plan ? { mode: "plan" as const } : {}),
        watchIntervalMs:
          options.watch === false ? false : (options.watchInterval ?? DEFAULT_WATCH_INTERVAL_MS),
        watchExtensions: options.watch !== false,
      });
      // Lua skills reload while the server runs, as under `skillgate serve` (not with --no-watch).
      const { startCapabilityReloads } = await import("../../../app/capability-reloads.js");
      const reloads = options.watch === false ? undefined : await startCapabilityReloads(host.skillgate);
      const stop = new AbortController();
      const onSignal = (): void => stop.abort();
      process.once("SIGINT", onSignal);
      process.once("SIGTERM", onSignal);
      try {
        if (options.http) {
          const token = options.token ?? process.env.SKILLGATE_MCP_TOKEN;
          const { serveHttp } = await import("../../mcp/http.js");
          const server = await serveHttp(host, {
            ...(options.host !== undefined ? { host: options.host } : {}),
            port: options.port ?? DEFAULT_MCP_PORT,
            ...(token !== undefined ? { token } : {}),
          });
          output.out(`skillgate: MCP over Streamable HTTP at ${server.url}\n`);
          await new Promise((resolve) => stop.signal.addEventListener("abort", resolve, { once: true }));
          await server.close();
        } else {
          keepStdoutForProtocol();
          const { serveStdio } = await import("../../mcp/stdio.js");
          const server = await serveStdio(host);
          stop.signal.addEventListener("abort", () => void server.close(), { once: true });
          await server.closed;
        }
      } finally {
        process.removeListener("SIGINT", onSignal);
        process.removeListener("SIGTERM", onSignal);
        await reloads?.close();
        await host.close();
      }
    });
}

/**
 * Over stdio, stdout belongs to the protocol: console output from anything in the process
 * (a dependency's stray log line) goes to stderr instead of corrupting the stream.
 */
function keepStdoutForProtocol(): void {
  const toStderr = (...values: unknown[]): void => console.error(...values);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
}

function port(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65_535)
    throw new CommanderArgumentError(`--port takes a port number from 0 to 65535 (got "${value}").`);
  return Number(value);
}
