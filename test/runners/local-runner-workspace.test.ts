import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LocalRunner } from "../../src/runners/local-runner.js";
import { RunnerRouter } from "../../src/runners/router.js";
import { SnapshotStore } from "../../src/runners/snapshot.js";
import { requestFor, runnerTree, writeSkillFolder } from "./helpers.js";

function setUp() {
  const tree = runnerTree();
  const project = join(tree.root, "project");
  mkdirSync(project);
  writeFileSync(join(project, "in.txt"), "input\n");
  const snapshots = new SnapshotStore({ dataFolder: tree.data });
  const local = new LocalRunner({ dataFolder: tree.data, snapshots, isTrusted: () => true });
  const router = new RunnerRouter({ snapshots, runners: { local }, protectedFolders: [tree.data] });
  const folder = writeSkillFolder(tree.skills, "tool", {
    "scripts/edit.py":
      "import os\nprint(os.getcwd())\nprint(open('in.txt').read(), end='')\nopen('out.txt', 'w').write('x')\n",
  });
  return { ...tree, project, router, folder };
}

describe("the workspace under the local runner", () => {
  it("starts the script in the workspace, HOME stays its private work folder", async () => {
    const { project, router, folder } = setUp();
    const result = await router.run({
      ...requestFor(folder, "scripts/edit.py"),
      workspace: { path: project, access: "write" },
    });
    expect(result.status).toBe("ok");
    expect(result.stdout).toBe(`${project}\ninput\n`);
    expect(readFileSync(join(project, "out.txt"), "utf8")).toBe("x");
    expect(result.workspaceChanges?.created).toEqual(["out.txt"]);
  });

  it("cannot hold a read workspace read-only, so its changes are listed all the same", async () => {
    const { project, router, folder } = setUp();
    const result = await router.run({
      ...requestFor(folder, "scripts/edit.py"),
      workspace: { path: project, access: "read" },
    });
    expect(result.status).toBe("ok");
    expect(result.workspaceChanges).toEqual({
      created: ["out.txt"],
      changed: [],
      deleted: [],
      omitted: 0,
      complete: true,
    });
  });

  it("without a workspace it starts in its work folder, as before", async () => {
    const { data, router, folder } = setUp();
    const result = await router.run(requestFor(folder, "scripts/edit.py"));
    expect(result.status).toBe("failed");
    expect(result.stdout.startsWith(join(data, "runs", "work"))).toBe(true);
    expect(result.workspaceChanges).toBeUndefined();
  });
});
