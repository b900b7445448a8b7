import { type Command, InvalidArgumentError as CommanderArgumentError } from "commander";
import { skillgateOptions } from "../context.js";
import type { CliOutput } from "../output.js";

/** The port `skillgate serve` listens on unless told otherwise (the server's own default). */
const DEFAULT_PORT = 3917;

interface ServeOptions {
  readonly host?: string;
  readonly port?: number;
  readonly token?: string;
  readonly newToken?: boolean;
  readonly allowHost?: string[];
}

/**
 * `skillgate serve [--host H] [--port N] [--token T] [--new-token] [--allow-host NAME]...`:
 * the owner's server (web UI, HTTP API, MCP at `/mcp`) until SIGINT or SIGTERM, then a
 * graceful stop. docs/server.md.
 */
export function registerServe(program: Command, output: CliOutput): void {
  program
    .command("serve")
    .description("serve the web UI, the HTTP API and MCP (/mcp) to the owner")
    .option("--host <address>", "the address to bind (default 127.0.0.1; any other needs --token)")
    .option("--port <number>", `the port (default ${DEFAULT_PORT}; 0 for any free port)`, port)
    .option(
      "--token <token>",
      "the owner's token (default $SKILLGATE_SERVE_TOKEN, else the stored or a new one)",
    )
    .option("--new-token", "replace the stored owner token with a new one and print its login URL")
    .option(
      "--allow-host <name>",
      "another name clients reach the server by (a reverse proxy's), on any port; repeatable",
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .addHelpText(
      "after",
      "\nWithout --token or $SKILLGATE_SERVE_TOKEN, a token is made on the first start and printed once\n" +
        "as a login URL; only its digest is kept (<data>/server/owner-token.json). API clients send\n" +
        "Authorization: Bearer TOKEN; state-changing requests also send X-Skillgate-CSRF: 1.\n" +
        "SIGINT or SIGTERM stops it: running calls end interrupted. See docs/server.md.\n",
    )
    .action(async (options: ServeOptions, command: Command) => {
      const token = options.token ?? process.env.SKILLGATE_SERVE_TOKEN;
      // Hono, the MCP SDK and the whole app load only when this command runs.
      const { startServer } = await import("../../http/server.js");
      const { logger, ...skillgate } = skillgateOptions(command);
      const server = await startServer({
        ...(options.host !== undefined ? { host: options.host } : {}),
        port: options.port ?? DEFAULT_PORT,
        ...(token !== undefined && token !== "" ? { token } : {}),
        ...(options.newToken === true ? { newToken: true } : {}),
        ...(options.allowHost !== undefined ? { allowedHosts: options.allowHost } : {}),
        skillgate: { ...skillgate, watchExtensions: true },
        ...(logger !== undefined ? { logger } : {}),
      });
      const stopped = new Promise<string>((resolve) => {
        process.once("SIGINT", () => resolve("SIGINT"));
        process.once("SIGTERM", () => resolve("SIGTERM"));
      });
      output.out(`skillgate: serving at ${server.url}\n`);
      if (server.loginUrl !== undefined)
        output.out(`skillgate: log in (this link is shown once): ${server.loginUrl}\n`);
      else if (server.tokenOrigin === "stored")
        output.out(
          "skillgate: log in with the owner token printed when it was made (skillgate serve --new-token makes a new one)\n",
        );
      else output.out(`skillgate: log in at ${server.url}login with your token\n`);
      const signal = await stopped;
      output.err(`skillgate: ${signal}: stopping (running calls are interrupted)\n`);
      await server.close();
      output.err("skillgate: stopped\n");
    });
}

function port(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65_535)
    throw new CommanderArgumentError(`--port takes a port number from 0 to 65535 (got "${value}").`);
  return Number(value);
}
