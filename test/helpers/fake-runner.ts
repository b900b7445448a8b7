import type { Runner, RunRequest, RunResult } from "../../src/runners/contract.js";

/**
 * A runner for tests of everything above the runners: it records each request and
 * answers with what `respond` returns (by default: exit 0 echoing the arguments).
 */
export class FakeRunner implements Runner {
  readonly requests: RunRequest[] = [];
  constructor(private readonly respond: (request: RunRequest) => Partial<RunResult> = () => ({})) {}

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
      ...this.respond(request),
    };
  }
}
