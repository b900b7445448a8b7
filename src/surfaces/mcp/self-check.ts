import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { packageRoot } from "../../core/package-root.js";

/** How long `skillgate doctor` waits for `skillgate mcp` to answer `initialize`. */
export const SELF_CHECK_TIMEOUT_MS = 10_000;

/** What the self-check found. */
export interface McpSelfCheck {
  readonly ok: boolean;
  /** One line: how long the answer took, or what went wrong. */
  readonly detail: string;
}

/** Options of {@link mcpSelfCheck}. */
export interface McpSelfCheckOptions {
  /** Global flags to start `skillgate mcp` with (`--config`, `--data`, `--root`, `--no-builtins`), so it serves what the caller sees. */
  readonly globalArguments?: readonly string[];
  readonly timeoutMs?: number;
  /** The command that starts the CLI (default: this installation's own entry, see {@link cliEntry}). */
  readonly entry?: readonly string[];
}

/**
 * The command that runs this installation's CLI: the package's `bin`
 * (`node dist/surfaces/cli/main.js`), or, in a source checkout that was never built,
 * `node --import tsx src/surfaces/cli/main.ts`.
 */
export function cliEntry(): string[] {
  const built = join(packageRoot(), "dist", "surfaces", "cli", "main.js");
  if (existsSync(built)) return [process.execPath, built];
  return [process.execPath, "--import", "tsx", fileURLToPath(new URL("../cli/main.ts", import.meta.url))];
}

/**
 * Starts `skillgate mcp` over stdio as a client would, sends `initialize`, and expects
 * skillgate's answer within `timeoutMs`, with nothing but JSON-RPC messages on stdout. When
 * the server warned that file-system notifications do not cover its catalog (docs/mcp.md),
 * the detail says so.
 * Then closes its input and expects it to exit (it is killed if it does not). Never throws.
 */
export async function mcpSelfCheck(options: McpSelfCheckOptions = {}): Promise<McpSelfCheck> {
  const [command, ...entryArguments] = options.entry ?? cliEntry();
  if (command === undefined) return { ok: false, detail: "no command to start skillgate mcp with" };
  const timeoutMs = options.timeoutMs ?? SELF_CHECK_TIMEOUT_MS;
  const started = Date.now();
  const child = spawn(command, [...entryArguments, ...(options.globalArguments ?? []), "mcp"], {
    stdio: ["pipe", "pipe", "pipe"],
    env: process.env,
  });
  let stdout = "";
  let stderr = "";
  const exited = new Promise<number | null>((resolve) => {
    child.on("close", (code) => resolve(code));
    child.on("error", () => resolve(null));
  });
  const answer = new Promise<McpSelfCheck>((resolve) => {
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      const lines = stdout.split("\n");
      for (const line of lines.slice(0, -1)) {
        const message = parseMessage(line);
        if (message === undefined)
          return resolve({
            ok: false,
            detail: `skillgate mcp wrote something other than MCP messages to stdout: ${clip(line)}`,
          });
        if (message.id === 1) {
          const name = (message.result as { serverInfo?: { name?: unknown } } | undefined)?.serverInfo?.name;
          return resolve(
            name === "skillgate"
              ? { ok: true, detail: `skillgate mcp answered initialize in ${Date.now() - started} ms` }
              : { ok: false, detail: `skillgate mcp answered initialize unexpectedly: ${clip(line)}` },
          );
        }
      }
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      if (stderr.length < 4096) stderr += chunk;
    });
    void exited.then((code) =>
      resolve({
        ok: false,
        detail: `skillgate mcp exited (code ${code ?? "none"}) before answering${stderr.trim() !== "" ? `: ${clip(lastLine(stderr))}` : ""}`,
      }),
    );
    setTimeout(
      () => resolve({ ok: false, detail: `skillgate mcp did not answer initialize within ${timeoutMs} ms` }),
      timeoutMs,
    ).unref();
  });
  child.stdin.on("error", () => {});
  child.stdin.write(
    `${JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "skillgate-doctor", version: "1" },
      },
    })}\n`,
  );
  const answered = await answer;
  child.stdin.end();
  const code = await Promise.race([exited, delay(3_000).then(() => "running" as const)]);
  // Read once the process is gone (or given up on): its stderr is complete then.
  const result = answered.ok ? withWatchNote(answered, stderr) : answered;
  if (code === "running") {
    child.kill("SIGKILL");
    await exited;
    if (result.ok) return { ok: false, detail: `${result.detail}, but did not exit when its input closed` };
  }
  return result;
}

/** The warning the server logs when file-system notifications do not cover its catalog (catalog/watch.ts, via the host). */
const INCOMPLETE_WATCH = "catalog notifications incomplete";

/**
 * The answer, with the server's own warning added when its catalog watch is incomplete (the
 * inotify limit, say): the server works, but changes on disk may reach it only with the slow
 * re-check, and the owner should know why.
 */
function withWatchNote(result: McpSelfCheck, stderr: string): McpSelfCheck {
  const note = stderr.split("\n").find((line) => line.includes(INCOMPLETE_WATCH));
  return note === undefined ? result : { ok: true, detail: `${result.detail}; ${clip(note.trim())}` };
}

function parseMessage(line: string): { id?: unknown; result?: unknown } | undefined {
  try {
    const value: unknown = JSON.parse(line);
    if (typeof value === "object" && value !== null && (value as { jsonrpc?: unknown }).jsonrpc === "2.0")
      return value as { id?: unknown; result?: unknown };
  } catch {
    // Not JSON: reported by the caller.
  }
  return undefined;
}

function lastLine(text: string): string {
  return (
    text
      .trim()
      .split("\n")
      .filter((line) => line.trim() !== "")
      .at(-1) ?? ""
  );
}

function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
