import type { ApprovalMode } from "../../../app/run-skill-script.js";
import type { CallStatus } from "../../../observe/events.js";
import type { RunResult } from "../../../runners/contract.js";

/** The longest line of the server's answer this client reads (an output chunk is far smaller). */
const MAX_LINE_CHARS = 16 * 1024 * 1024;

/** What `skillgate run --server` sends: the command line's own parts. */
export interface RemoteRunInput {
  readonly skill: string;
  readonly script: string;
  readonly argumentsText?: string;
  readonly node?: string;
  readonly argv?: readonly string[];
  readonly approval: ApprovalMode;
}

/** How the run on the server ended: the fields a local run's outcome has. */
export interface RemoteRunOutcome {
  readonly status: CallStatus;
  readonly text: string;
  readonly run?: RunResult;
  readonly unanswerable: boolean;
  readonly exitCode: number;
}

/** The server could not be asked, or refused the request itself: a message for the person, no run. */
export class RemoteRunError extends Error {
  override readonly name = "RemoteRunError";
}

/**
 * `POST <server>/api/runs` with the owner token, reading the NDJSON answer: each output
 * line goes to `onOutput` as it arrives, and the result line is the outcome. The server
 * runs the script through the same path as a local `skillgate run` (src/app/run-skill-script.ts).
 */
export async function runOnServer(
  server: string,
  token: string,
  input: RemoteRunInput,
  options: {
    readonly signal?: AbortSignal;
    readonly onOutput?: (stream: "stdout" | "stderr", chunk: string) => void;
  } = {},
): Promise<RemoteRunOutcome> {
  const url = new URL("/api/runs", server);
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${token}`,
        "Content-Type": "application/json",
        "X-Skillgate-CSRF": "1",
        Accept: "application/x-ndjson",
      },
      body: JSON.stringify({
        skill: input.skill,
        script: input.script,
        approval: input.approval,
        ...(input.argumentsText !== undefined ? { arguments: input.argumentsText } : {}),
        ...(input.node !== undefined ? { node: input.node } : {}),
        ...(input.argv !== undefined ? { argv: input.argv } : {}),
      }),
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    throw new RemoteRunError(`could not reach the server at ${url.origin} (${cause ?? String(error)})`);
  }
  if (response.status !== 200) throw new RemoteRunError(await refusalText(response, url.origin));
  const body = response.body;
  if (body === null) throw new RemoteRunError(`the server at ${url.origin} sent no answer`);
  let result: RemoteRunOutcome | undefined;
  let pending = "";
  const decoder = new TextDecoder();
  const take = (line: string): void => {
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new RemoteRunError(`the server at ${url.origin} sent an answer that is not NDJSON`);
    }
    const parsed = value as
      | { type: "output"; stream: "stdout" | "stderr"; chunk: string }
      | ({ type: "result" } & RemoteRunOutcome);
    if (parsed.type === "output")
      options.onOutput?.(parsed.stream === "stderr" ? "stderr" : "stdout", parsed.chunk);
    else if (parsed.type === "result") {
      const { type: _type, ...outcome } = parsed;
      result = outcome;
    }
  };
  for await (const bytes of body) {
    pending += decoder.decode(bytes, { stream: true });
    let newline = pending.indexOf("\n");
    while (newline !== -1) {
      take(pending.slice(0, newline));
      pending = pending.slice(newline + 1);
      newline = pending.indexOf("\n");
    }
    if (pending.length > MAX_LINE_CHARS) throw new RemoteRunError("the server sent a line too long to read");
  }
  take(pending + decoder.decode());
  if (result === undefined)
    throw new RemoteRunError(`the server at ${url.origin} ended the answer before the run's result`);
  return result;
}

/** The person's message for a refused request: the API's error body, or the status. */
async function refusalText(response: Response, origin: string): Promise<string> {
  let detail = `HTTP ${response.status}`;
  try {
    const body = (await response.json()) as { error?: { code?: string; message?: string } };
    if (body.error?.message !== undefined)
      detail = `${body.error.message} [${body.error.code ?? response.status}]`;
  } catch {
    // Not the API's JSON: the status says enough.
  }
  if (response.status === 401)
    return `the server at ${origin} refused the owner token (${detail}); pass --token or set SKILLGATE_TOKEN`;
  return `the server at ${origin} refused the run: ${detail}`;
}
