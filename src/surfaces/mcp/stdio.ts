import type { Readable, Writable } from "node:stream";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { McpHost } from "./host.js";
import type { McpSession } from "./session.js";

/** A session served over a pair of streams. */
export interface McpStdioServer {
  readonly session: McpSession;
  /** Resolves once the session ended: the input closed, the output broke, or `close()` was called. */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

/**
 * Serves one session over stdio: newline-delimited JSON-RPC on `input` and `output`
 * (default the process's stdin and stdout). Nothing but protocol messages is written to
 * `output`; skillgate's own lines go to its logger (stderr). The session ends when the
 * input ends (the client went away) or the output fails (a broken pipe).
 */
export async function serveStdio(
  host: McpHost,
  streams: { readonly input?: Readable; readonly output?: Writable } = {},
): Promise<McpStdioServer> {
  const input = streams.input ?? process.stdin;
  const output = streams.output ?? process.stdout;
  const session = host.openSession();
  const transport = new StdioServerTransport(input, output);
  let finish: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    finish = resolve;
  });
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      input.off("end", onEnd);
      input.off("close", onEnd);
      output.off("error", onEnd);
      await host.closeSession(session.id);
      finish();
    })();
    return closing;
  };
  const onEnd = (): void => void close();
  transport.onclose = onEnd;
  input.on("end", onEnd);
  input.on("close", onEnd);
  output.on("error", onEnd);
  await session.server.connect(transport);
  return { session, closed, close };
}
