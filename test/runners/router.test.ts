import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Runner, RunRequest, RunResult } from "../../src/runners/contract.js";
import { LocalRunner } from "../../src/runners/local-runner.js";
import { refusal } from "../../src/runners/refusal.js";
import { RunnerRouter } from "../../src/runners/router.js";
import { SnapshotStore } from "../../src/runners/snapshot.js";
import { hashOf, requestFor, runnerTree, writeSkillFolder } from "./helpers.js";

/** A runner that records what it was given and runs nothing. */
class RecordingRunner implements Runner {
  readonly requests: RunRequest[] = [];
  constructor(readonly refuse?: RunResult) {}
  admit(): RunResult | undefined {
    return this.refuse;
  }
  async run(request: RunRequest): Promise<RunResult> {
    this.requests.push(request);
    return {
      status: "ok",
      exitCode: 0,
      stdout: "recorded",
      stderr: "",
      stdoutTruncated: false,
      stderrTruncated: false,
      durationMs: 0,
    };
  }
}

function setUp(
  runners: (
    data: string,
    snapshots: SnapshotStore,
  ) => ConstructorParameters<typeof RunnerRouter>[0]["runners"],
) {
  const tree = runnerTree();
  const snapshots = new SnapshotStore({ dataFolder: tree.data });
  const router = new RunnerRouter({ snapshots, runners: runners(tree.data, snapshots) });
  const folder = writeSkillFolder(tree.skills, "demo", {
    "scripts/run.sh": "echo from-$SKILLGATE_SKILL_NAME\n",
  });
  return { ...tree, router, folder };
}

describe("RunnerRouter", () => {
  it("local: the local runner runs the trusted skill from the router's snapshot", async () => {
    const { router, folder, data } = setUp((data, snapshots) => ({
      local: new LocalRunner({ dataFolder: data, snapshots, isTrusted: () => true }),
    }));
    const result = await router.run(requestFor(folder, "scripts/run.sh"));
    expect(result).toMatchObject({ status: "ok", exitCode: 0, stdout: "from-demo\n" });
    expect(existsSync(join(data, "runs", "snapshots", hashOf(folder)))).toBe(true);
  });

  it("sandbox: the sandbox runner is given the verified snapshot as the skill's folder, never the live one", async () => {
    const sandbox = new RecordingRunner();
    const { router, folder, data } = setUp(() => ({ sandbox }));
    const result = await router.run(requestFor(folder, "scripts/run.sh", { execution: "sandbox" }));
    expect(result.stdout).toBe("recorded");
    const given = sandbox.requests[0];
    const snapshotFolder = join(data, "runs", "snapshots", hashOf(folder));
    expect(given?.folder).toBe(snapshotFolder);
    expect(given?.snapshot).toEqual({ folder: snapshotFolder, hash: hashOf(folder), reused: false });
  });

  it("a hash mismatch is refused before the mode's runner is called", async () => {
    const sandbox = new RecordingRunner();
    const { router, folder } = setUp(() => ({ sandbox }));
    const approved = hashOf(folder);
    writeFileSync(join(folder, "scripts/run.sh"), "echo swapped\n");
    const result = await router.run(
      requestFor(folder, "scripts/run.sh", { execution: "sandbox", hash: approved }),
    );
    expect(result.code).toBe("skill_changed");
    expect(sandbox.requests).toEqual([]);
  });

  it("a runner's admit refusal comes before any hashing or snapshot", async () => {
    const sandbox = new RecordingRunner(refusal("language_unavailable", "not here."));
    const { router, folder, data } = setUp(() => ({ sandbox }));
    const result = await router.run(requestFor(folder, "scripts/run.sh", { execution: "sandbox" }));
    expect(result.code).toBe("language_unavailable");
    expect(sandbox.requests).toEqual([]);
    expect(existsSync(data)).toBe(false);
  });

  it.each([
    [
      "node",
      "HOST: demo runs on a named server (skillgate.execution: node), and this process has no node controller: node runs go through `skillgate serve` (run it with `skillgate run --server URL`, or connect to the server's MCP). scripts/run.sh of demo did not run. [runner_unavailable]",
    ],
    [
      "queue",
      "HOST: demo runs on the shared worker pool (skillgate.execution: queue), which this host does not have yet. scripts/run.sh of demo did not run. [runner_unavailable]",
    ],
    [
      "sandbox",
      "HOST: no sandbox runner is configured on this host, so scripts/run.sh of demo did not run; tell the host's owner. [runner_unavailable]",
    ],
    [
      "local",
      "HOST: no local runner is configured on this host, so scripts/run.sh of demo did not run. [runner_unavailable]",
    ],
  ] as const)(
    "%s with no runner is refused with runner_unavailable and nothing is written",
    async (mode, message) => {
      const { router, folder, data } = setUp(() => ({}));
      const result = await router.run(requestFor(folder, "scripts/run.sh", { execution: mode }));
      expect(result).toMatchObject({ status: "refused", code: "runner_unavailable", message });
      expect(existsSync(data)).toBe(false);
    },
  );

  it("a local skill that is not trusted is refused by the local runner's admit, with no snapshot made", async () => {
    const { router, folder, data } = setUp((data, snapshots) => ({
      local: new LocalRunner({ dataFolder: data, snapshots, isTrusted: () => false }),
    }));
    const result = await router.run(requestFor(folder, "scripts/run.sh"));
    expect(result.code).toBe("not_trusted");
    expect(existsSync(data)).toBe(false);
  });
});
