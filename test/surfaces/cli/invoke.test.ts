import { describe, expect, it } from "vitest";
import { cliSandbox } from "./harness.js";

describe("skillgate invoke", () => {
  it("refuses an unknown capability with its code and exit 1", async () => {
    const sandbox = cliSandbox();
    const run = await sandbox.run(["invoke", "workflow.nothing", "--payload", '{"scope":"current_diff"}']);
    expect(run.code).toBe(1);
    expect(run.out).toBe("");
    expect(run.err).toMatch(
      /^skillgate invoke: capability_unknown: HOST: there is no capability "workflow\.nothing"/,
    );
  });

  it("prints the whole result with --json", async () => {
    const sandbox = cliSandbox();
    const run = await sandbox.run(["invoke", "workflow.nothing", "--json"]);
    expect(run.code).toBe(1);
    const result = JSON.parse(run.out) as {
      ok: boolean;
      refusal: { code: string };
      record: Record<string, unknown>;
    };
    expect(result.ok).toBe(false);
    expect(result.refusal.code).toBe("capability_unknown");
    expect(result.record).toMatchObject({
      agentId: "cli",
      capability: "workflow.nothing",
      status: "refused",
    });
  });

  const USAGE: Array<[string, string[]]> = [
    ["a payload that is not JSON", ["--payload", "{scope"]],
    ["an unknown runtime", ["--runtime", "orbit"]],
    ["a timeout that is not a positive number", ["--timeout-ms", "-3"]],
  ];
  for (const [what, flags] of USAGE)
    it(`refuses ${what} with exit 2`, async () => {
      const sandbox = cliSandbox();
      const run = await sandbox.run(["invoke", "workflow.code_review", ...flags]);
      expect(run.code).toBe(2);
      expect(run.err).toMatch(/^skillgate: --/);
    });
});
