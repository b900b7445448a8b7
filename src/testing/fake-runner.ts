import type { Runner, RunRequest, RunResult } from "../runners/contract.js";

/**
 * A runner for tests of everything above the runners: it records each request and
 * answers with what `respond` returns (by default: exit 0, echoing the script and
 * arguments on stdout). Nothing is executed.
 */
export class FakeRunner implements Runner {
  /** Every request, in order. */
  readonly requests: RunRequest[] = [];
  readonly #respond: (request: RunRequest) => Partial<RunResult>;

  constructor(respond: (request: RunRequest) => Partial<RunResult> = () => ({})) {
    this.#respond = respond;
  }

  async run(request: RunRequest): Promise<RunResult> {
    this.requests.push(request);
    return {
      status: "ok",
      exitCode: 0,
      stdout: `ran ${request.script} with ${JSON.stringify(request.arguments)}`,
      stderr: "",
      stdoutTruncated: false,
      stderrTruncated: false,
      durationMs: 1,
      ...this.#respond(request),
    };
  }
}
