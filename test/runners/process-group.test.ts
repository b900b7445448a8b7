import { describe, expect, it } from "vitest";
import { DEFAULT_RUN_LIMITS } from "../../src/runners/contract.js";
import { runInProcessGroup } from "../../src/runners/process-group.js";
import { runnerTree } from "./helpers.js";

describe("runInProcessGroup", () => {
  it("a command that cannot be started is refused with runner_unavailable, not thrown", async () => {
    const { root } = runnerTree();
    const result = await runInProcessGroup({
      command: "/nonexistent/interpreter",
      args: [],
      cwd: root,
      env: {},
      input: "{}",
      limits: DEFAULT_RUN_LIMITS,
    });
    expect(result.status).toBe("refused");
    expect(result.code).toBe("runner_unavailable");
    expect(result.message).toMatch(/^HOST: \/nonexistent\/interpreter could not be started \(ENOENT\)/);
  });

  it("a script killed by a signal it did not get from skillgate is failed, with the signal named", async () => {
    const { root } = runnerTree();
    const result = await runInProcessGroup({
      command: "/bin/sh",
      args: ["-c", "kill -SEGV $$"],
      cwd: root,
      env: {},
      input: "",
      limits: DEFAULT_RUN_LIMITS,
    });
    expect(result).toMatchObject({ status: "failed", exitCode: null, signal: "SIGSEGV" });
  });

  it("a script that never reads stdin and exits at once is not an error", async () => {
    const { root } = runnerTree();
    const result = await runInProcessGroup({
      command: "/bin/sh",
      args: ["-c", "exec 0<&-; echo done"],
      cwd: root,
      env: {},
      input: "x".repeat(1024 * 1024),
      limits: DEFAULT_RUN_LIMITS,
    });
    expect(result).toMatchObject({ status: "ok", exitCode: 0, stdout: "done\n" });
  });
});
