import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { RunRequest } from "../../../src/runners/contract.js";
import { RunnerRouter } from "../../../src/runners/router.js";
import type { SandboxRunResult } from "../../../src/runners/sandbox/run-in-sandbox.js";
import { SandboxRunner } from "../../../src/runners/sandbox/sandbox-runner.js";
import { SnapshotStore } from "../../../src/runners/snapshot.js";
import { eventually } from "../../helpers/eventually.js";
import { hashOf, requestFor, runnerTree, writeSkillFolder } from "../helpers.js";
import {
  cgroupsNamed,
  expectContained,
  expectStatus,
  keptAheadPids,
  processesNamed,
  requireBubblewrap,
  sandboxesStartedSince,
  snapshotOf,
} from "./harness.js";

beforeAll(() => requireBubblewrap());

const runners: SandboxRunner[] = [];

afterEach(async () => {
  for (const runner of runners.splice(0)) await runner.close();
});

const WHO = `import json, os, sys
print(json.dumps({"uid": os.getuid(), "args": json.load(sys.stdin), "file": __file__, "name": os.environ["SKILLGATE_SKILL_NAME"]}))
`;

function setUp() {
  const tree = runnerTree();
  const snapshots = new SnapshotStore({ dataFolder: tree.data });
  const sandbox = new SandboxRunner();
  runners.push(sandbox);
  const router = new RunnerRouter({ snapshots, runners: { sandbox } });
  const folder = writeSkillFolder(tree.skills, "demo", {
    "scripts/who.py": WHO,
    "scripts/run.ts": "console.log(1)\n",
  });
  return { ...tree, snapshots, sandbox, router, folder };
}

describe("SandboxRunner", () => {
  it("runs a skill the router verified and snapshotted, from the snapshot at /skill, as 65534", async () => {
    const { router, folder } = setUp();
    const result = await router.run(
      requestFor(folder, "scripts/who.py", { execution: "sandbox", arguments: { n: 1 } }),
    );
    expectStatus(result, "ok");
    expect(JSON.parse(result.stdout)).toEqual({
      uid: 65534,
      args: { n: 1 },
      file: "/skill/scripts/who.py",
      name: "demo",
    });
  });

  it("a file swapped in the live folder after approval does not run", async () => {
    const { router, folder } = setUp();
    const approved = hashOf(folder);
    writeFileSync(join(folder, "scripts/who.py"), "print('swapped')\n");
    const result = await router.run(
      requestFor(folder, "scripts/who.py", { execution: "sandbox", hash: approved }),
    );
    expectStatus(result, "refused");
    expect(result.code).toBe("skill_changed");
    expect(result.stdout).toBe("");
  });

  it("admits only the sandboxable kinds, before any snapshot is made", () => {
    const { sandbox, folder } = setUp();
    const refused = sandbox.admit(requestFor(folder, "scripts/run.ts", { execution: "sandbox" }));
    expect(refused?.code).toBe("language_not_sandboxable");
    expect(refused?.message).toMatch(/^HOST: scripts\/run\.ts cannot run in the sandbox/);
    expect(sandbox.admit(requestFor(folder, "scripts/who.py", { execution: "sandbox" }))).toBeUndefined();
  });

  it("without the router's snapshot it verifies and snapshots itself when given a store, else refuses", async () => {
    const { snapshots, folder } = setUp();
    const withStore = new SandboxRunner({ snapshots });
    runners.push(withStore);
    const request = requestFor(folder, "scripts/who.py", { execution: "sandbox" });
    const before = hashOf(folder);
    const result = await withStore.run(request);
    expectStatus(result, "ok");
    expect(JSON.parse(result.stdout).file).toBe("/skill/scripts/who.py");
    await expectContained(result, folder, before);
    const refused = await new SandboxRunner().run(request);
    expect(refused.code).toBe("runner_unavailable");
  });

  it("applies the runner's resources under the request's time and output caps", async () => {
    const tree = runnerTree();
    const snapshots = new SnapshotStore({ dataFolder: tree.data });
    const folder = writeSkillFolder(tree.skills, "writer", {
      "scripts/write.py": `import errno
try:
    open("/tmp/big", "wb").write(b"x" * (2 * 1024 * 1024))
    print("wrote")
except OSError as error:
    print(errno.errorcode[error.errno])
`,
    });
    const runner = new SandboxRunner({ snapshots, resources: { fileSizeBytes: 1024 * 1024 } });
    runners.push(runner);
    const result = await runner.run(requestFor(folder, "scripts/write.py", { execution: "sandbox" }));
    expectStatus(result, "ok");
    expect(result.stdout).toBe("EFBIG\n");
  });

  it("keeps a sandbox started ahead for its next run; close() leaves no process and no cgroup", async () => {
    // A verified snapshot the sandbox user can reach (a routed run as root goes through the portal).
    const snapshot = snapshotOf({ "scripts/who.py": WHO });
    // Only the sandboxes this runner starts count: an earlier test's runner may still keep one.
    const keptBefore = keptAheadPids();
    const sandbox = new SandboxRunner();
    runners.push(sandbox);
    const request: RunRequest = {
      ...requestFor(snapshot, "scripts/who.py", { execution: "sandbox", arguments: { n: 2 } }),
      snapshot: { folder: snapshot, hash: hashOf(snapshot), reused: true },
    };
    const first = await sandbox.run(request);
    expectStatus(first, "ok");
    await eventually("the runner keeps a sandbox ahead", () => sandboxesStartedSince(keptBefore).length > 0);
    const second = await sandbox.run(request);
    expectStatus(second, "ok");
    expect(second.stdout).toBe(first.stdout);
    expect(second.sandbox?.prestarted).toBe(true);
    await eventually(
      "the runner keeps the next sandbox ahead",
      () => sandboxesStartedSince(keptBefore).length > 0,
    );
    const ahead = sandboxesStartedSince(keptBefore).map((kept) => kept.runId);
    expect(ahead).toHaveLength(1);
    await sandbox.close();
    expect(sandboxesStartedSince(keptBefore)).toEqual([]);
    for (const runId of [first.sandbox?.runId ?? "", second.sandbox?.runId ?? "", ...ahead]) {
      expect(processesNamed(runId)).toEqual([]);
      expect(cgroupsNamed(runId)).toEqual([]);
    }
    const third = await sandbox.run(request);
    expectStatus(third, "ok");
    expect(third.sandbox?.prestarted).toBe(false);
  });

  it("serves routed runs from a sandbox started ahead too (as root, through the portal)", async () => {
    const { router, folder } = setUp();
    const request = requestFor(folder, "scripts/who.py", { execution: "sandbox", arguments: { n: 3 } });
    const keptBefore = keptAheadPids();
    const first = await router.run(request);
    expectStatus(first, "ok");
    await eventually(
      "the router's sandbox runner keeps a sandbox ahead",
      () => sandboxesStartedSince(keptBefore).length > 0,
    );
    const second = (await router.run(request)) as SandboxRunResult;
    expectStatus(second, "ok");
    expect(second.stdout).toBe(first.stdout);
    expect(second.sandbox?.prestarted).toBe(true);
    expect(second.sandbox?.portal).toBe(process.getuid?.() === 0);
  });
});
