import {
  chmodSync,
  chownSync,
  existsSync,
  linkSync,
  mkdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { removeTree } from "../../../src/core/remove-tree.js";
import type { RunRequest, RunResult } from "../../../src/runners/contract.js";
import { RunnerRouter } from "../../../src/runners/router.js";
import { SandboxRunner } from "../../../src/runners/sandbox/sandbox-runner.js";
import { SnapshotStore } from "../../../src/runners/snapshot.js";
import type { WorkspaceAccess } from "../../../src/runners/workspace/workspace.js";
import { requestFor, runnerTree, writeSkillFolder } from "../helpers.js";
import { requireBubblewrap } from "./harness.js";

beforeAll(() => requireBubblewrap());

const runners: SandboxRunner[] = [];
const hostFiles: string[] = [];

afterEach(async () => {
  for (const runner of runners.splice(0)) await runner.close();
  for (const file of hostFiles.splice(0)) removeTree(file);
});

/**
 * A probe that does what its arguments list, in order, and prints each outcome: "ok", the
 * text read, a listing, or the errno's name. It reports its working folder first.
 */
const PROBE = `import errno, json, os, sys
def attempt(action):
    try:
        result = action()
        return "ok" if result is None else result
    except OSError as error:
        return errno.errorcode.get(error.errno, str(error.errno))
def write(path, text):
    with open(path, "w") as handle:
        handle.write(text)
def read(path):
    with open(path) as handle:
        return handle.read()
steps = {
    "read": lambda path: read(path),
    "write": lambda path, text: write(path, text),
    "append": lambda path, text: open(path, "a").write(text) and None,
    "delete": lambda path: os.remove(path),
    "mkdir": lambda path: os.mkdir(path),
    "exists": lambda path: os.path.exists(path),
    "list": lambda path: sorted(os.listdir(path)),
}
out = {"cwd": os.getcwd(), "steps": [attempt(lambda: steps[step[0]](*step[1:])) for step in json.load(sys.stdin)["do"]]}
print(json.dumps(out))
`;

/**
 * A project beside an outside folder, under one test folder; the skill and skillgate's data
 * elsewhere in it. As root the sandbox user is 65534, so the project is given to it, and the
 * outside files are writable by anyone: only the sandbox may stop a write there.
 */
function setUp() {
  const tree = runnerTree();
  const project = join(tree.root, "project");
  const outside = join(tree.root, "outside");
  mkdirSync(join(project, "docs"), { recursive: true });
  mkdirSync(outside, { mode: 0o777 });
  chmodSync(outside, 0o777);
  writeFileSync(join(project, "in.txt"), "input\n");
  writeFileSync(join(project, "docs", "old.txt"), "old\n");
  writeFileSync(join(outside, "secret.txt"), "secret\n", { mode: 0o666 });
  chmodSync(join(outside, "secret.txt"), 0o666);
  const snapshots = new SnapshotStore({ dataFolder: tree.data });
  const sandbox = new SandboxRunner();
  runners.push(sandbox);
  const router = new RunnerRouter({ snapshots, runners: { sandbox }, protectedFolders: [tree.data] });
  const folder = writeSkillFolder(tree.skills, "probe", { "scripts/probe.py": PROBE });
  const giveToSandbox = (): void => {
    if (process.getuid?.() !== 0) return;
    for (const path of [
      project,
      join(project, "docs"),
      join(project, "in.txt"),
      join(project, "docs", "old.txt"),
    ])
      chownSync(path, 65534, 65534);
  };
  const run = async (
    access: WorkspaceAccess,
    steps: readonly (readonly string[])[],
    workspace = project,
  ): Promise<RunResult & { probe?: { cwd: string; steps: unknown[] } }> => {
    const request: RunRequest = {
      ...requestFor(folder, "scripts/probe.py", {
        execution: "sandbox",
        arguments: { do: steps.map((s) => [...s]) },
      }),
      workspace: { path: workspace, access },
    };
    const result = await router.run(request);
    return result.status === "ok" ? { ...result, probe: JSON.parse(result.stdout) } : result;
  };
  return { ...tree, project, outside, router, folder, run, giveToSandbox };
}

describe("the workspace in the sandbox", () => {
  it("starts the script in the workspace; relative and absolute paths inside it read the same files", async () => {
    const { project, run } = setUp();
    const result = await run("read", [
      ["read", "in.txt"],
      ["read", join(project, "in.txt")],
      ["list", "."],
    ]);
    expect(result.status, result.stderr + (result.message ?? "")).toBe("ok");
    expect(result.probe).toEqual({ cwd: project, steps: ["input\n", "input\n", ["docs", "in.txt"]] });
  });

  it("shows nothing of the host outside it: the folders above hold only the way to it", async () => {
    const { root, project, outside, run } = setUp();
    const result = await run("read", [
      ["read", join(outside, "secret.txt")],
      ["list", root],
      ["exists", join(root, "data")],
    ]);
    expect(result.probe?.steps).toEqual(["ENOENT", ["project"], false]);
    expect(project.startsWith(root)).toBe(true);
  });

  it("a read workspace is read-only: nothing is written, and no comparison is needed", async () => {
    const { project, run, giveToSandbox } = setUp();
    giveToSandbox();
    const result = await run("read", [
      ["write", "new.txt", "x"],
      ["append", "in.txt", "more"],
      ["delete", "docs/old.txt"],
      ["mkdir", "made"],
    ]);
    expect(result.probe?.steps).toEqual(["EROFS", "EROFS", "EROFS", "EROFS"]);
    expect(readFileSync(join(project, "in.txt"), "utf8")).toBe("input\n");
    expect(existsSync(join(project, "docs", "old.txt"))).toBe(true);
    expect(existsSync(join(project, "new.txt"))).toBe(false);
    expect(result.workspaceChanges).toBeUndefined();
  });

  it("a writable workspace takes creates, changes and deletes, and the result lists each", async () => {
    const { project, run, giveToSandbox } = setUp();
    giveToSandbox();
    const result = await run("write", [
      ["write", "new.txt", "made\n"],
      ["append", "in.txt", "more\n"],
      ["delete", "docs/old.txt"],
      ["mkdir", "made"],
      ["write", "made/inner.txt", "inner\n"],
    ]);
    expect(result.probe?.steps).toEqual(["ok", "ok", "ok", "ok", "ok"]);
    expect(readFileSync(join(project, "new.txt"), "utf8")).toBe("made\n");
    expect(readFileSync(join(project, "in.txt"), "utf8")).toBe("input\nmore\n");
    expect(result.workspaceChanges).toEqual({
      created: ["made/", "made/inner.txt", "new.txt"],
      changed: ["in.txt"],
      deleted: ["docs/old.txt"],
      omitted: 0,
      complete: true,
    });
  });

  it("a symbolic link in the workspace that points out cannot be written through, absolute or relative", async () => {
    const { project, outside, run, giveToSandbox } = setUp();
    giveToSandbox();
    symlinkSync(join(outside, "secret.txt"), join(project, "absolute-link"));
    symlinkSync("../outside/secret.txt", join(project, "relative-link"));
    symlinkSync(outside, join(project, "folder-link"));
    const result = await run("write", [
      ["write", "absolute-link", "pwned\n"],
      ["append", "relative-link", "pwned\n"],
      ["write", "folder-link/planted.txt", "pwned\n"],
      ["read", "absolute-link"],
    ]);
    expect(result.status).toBe("ok");
    // Inside the sandbox the links resolve to paths that do not exist there, on a read-only root.
    for (const outcome of result.probe?.steps.slice(0, 3) ?? [])
      expect(["ENOENT", "EROFS"]).toContain(outcome);
    expect(result.probe?.steps[3]).toBe("ENOENT");
    expect(readFileSync(join(outside, "secret.txt"), "utf8")).toBe("secret\n");
    expect(existsSync(join(outside, "planted.txt"))).toBe(false);
    expect(result.workspaceChanges?.created).toEqual([]);
  });

  it("a file with a second name outside the workspace (a hard link) is read-only in a writable workspace", async () => {
    const { project, outside, run, giveToSandbox } = setUp();
    giveToSandbox();
    linkSync(join(outside, "secret.txt"), join(project, "linked.txt"));
    const result = await run("write", [
      ["read", "linked.txt"],
      ["append", "linked.txt", "pwned\n"],
      ["write", "other.txt", "fine\n"],
    ]);
    expect(result.probe?.steps).toEqual(["secret\n", "EROFS", "ok"]);
    expect(readFileSync(join(outside, "secret.txt"), "utf8")).toBe("secret\n");
  });

  it("/tmp stays private: the host's /tmp is not visible and what the script writes there stays in the run", async () => {
    const { run, giveToSandbox } = setUp();
    giveToSandbox();
    const marker = join(tmpdir(), `skillgate-host-marker-${process.pid}`);
    writeFileSync(marker, "host\n", { mode: 0o644 });
    hostFiles.push(marker);
    const planted = join(tmpdir(), `skillgate-planted-${process.pid}`);
    hostFiles.push(planted);
    const result = await run("write", [
      ["exists", marker],
      ["write", planted, "from the sandbox\n"],
      ["exists", planted],
    ]);
    expect(result.probe?.steps).toEqual([false, "ok", true]);
    expect(existsSync(planted)).toBe(false);
  });

  it("a workspace that holds skillgate's data folder is refused before anything runs", async () => {
    const { root, data, run } = setUp();
    mkdirSync(data, { recursive: true });
    const result = await run("read", [["list", "."]], root);
    expect(result.status).toBe("refused");
    expect(result.code).toBe("workspace_not_allowed");
    expect(result.message).toMatch(
      /^HOST: the workspace .* holds or is inside skillgate's own configuration or data folder/,
    );
    // Refused before the snapshot: nothing was written for it.
    expect(existsSync(join(data, "runs"))).toBe(false);
  });

  it("a runner handed a workspace the router did not check refuses the run", async () => {
    const { project, folder } = setUp();
    const sandbox = new SandboxRunner({
      snapshots: new SnapshotStore({ dataFolder: join(project, "..", "data2") }),
    });
    runners.push(sandbox);
    const result = await sandbox.run({
      ...requestFor(folder, "scripts/probe.py", { execution: "sandbox", arguments: { do: [] } }),
      workspace: { path: project, access: "write" },
    });
    expect(result.status).toBe("refused");
    expect(result.code).toBe("runner_unavailable");
  });
});
