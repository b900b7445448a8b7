import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { chainDeathSignal, sandboxTools } from "../../../src/runners/sandbox/host-tools.js";
import {
  DEFAULT_SANDBOX_RESOURCES,
  nodeHeapOption,
  sandboxResources,
} from "../../../src/runners/sandbox/limits.js";
import { reach } from "../../../src/runners/sandbox/reachability.js";
import { PORTAL_FOLDER_PREFIX, sweepPortalFolders } from "../../../src/runners/sandbox/request-checks.js";
import { parseStatus } from "../../../src/runners/sandbox/sandbox-process.js";
import { temporaryFolder } from "./harness.js";

const SANDBOX = { uid: 65534, gid: 65534 };

describe("reach (as the sandbox user, by mode bits)", () => {
  it("tells an open path from a closed folder above it, a refusing mode and a missing path", () => {
    const open = temporaryFolder("skillgate-reach-");
    const closed = temporaryFolder("skillgate-reach-", 0o700);
    for (const parent of [open, closed]) {
      mkdirSync(join(parent, "snapshot"), { mode: 0o755 });
      writeFileSync(join(parent, "snapshot", "readable.py"), "", { mode: 0o444 });
      writeFileSync(join(parent, "snapshot", "private.py"), "", { mode: 0o400 });
    }
    chmodSync(join(open, "snapshot", "private.py"), 0o400);
    expect(reach(join(open, "snapshot"), SANDBOX, "list")).toBe("ok");
    expect(reach(join(open, "snapshot", "readable.py"), SANDBOX, "read")).toBe("ok");
    expect(reach(join(open, "snapshot", "private.py"), SANDBOX, "read")).toBe("denied");
    expect(reach(join(closed, "snapshot"), SANDBOX, "list")).toBe("folder_closed");
    expect(reach(join(closed, "snapshot", "readable.py"), SANDBOX, "read")).toBe("folder_closed");
    expect(reach(join(open, "absent"), SANDBOX, "list")).toBe("missing");
    expect(reach(join(closed, "snapshot"), { uid: 0, gid: 0 }, "list")).toBe("ok");
  });

  it("needs write permission on a socket to connect", () => {
    const folder = temporaryFolder("skillgate-reach-");
    const path = join(folder, "socket-like");
    writeFileSync(path, "", { mode: 0o644 });
    expect(reach(path, SANDBOX, "connect")).toBe("denied");
    chmodSync(path, 0o666);
    expect(reach(path, SANDBOX, "connect")).toBe("ok");
  });
});

describe("sandboxResources", () => {
  it("takes the defaults for anything missing or not a positive number", () => {
    expect(sandboxResources({ timeoutMs: 1, maxOutputBytes: 1 })).toEqual(DEFAULT_SANDBOX_RESOURCES);
    expect(
      sandboxResources({
        timeoutMs: 1,
        maxOutputBytes: 1,
        processes: -1,
        memoryBytes: Number.NaN,
        cpus: 0,
        tmpBytes: 10.7,
      }),
    ).toEqual({ ...DEFAULT_SANDBOX_RESOURCES, tmpBytes: 10 });
    expect(sandboxResources({ timeoutMs: 1, maxOutputBytes: 1, cpus: 0.5 }).cpus).toBe(0.5);
  });

  it("caps Node's heap at three quarters of the memory", () => {
    expect(nodeHeapOption(DEFAULT_SANDBOX_RESOURCES)).toBe("--max-old-space-size=768");
    expect(nodeHeapOption({ ...DEFAULT_SANDBOX_RESOURCES, memoryBytes: 1 })).toBe("--max-old-space-size=16");
  });
});

describe("bubblewrap's status and the spawn's descriptors", () => {
  it("reads the start and end objects, ignoring anything else", () => {
    const text = [
      '{ "child-pid": 4242, "cgroup-namespace": 1, "pid-namespace": 4026532181 }',
      "not json",
      '{ "exit-code": 3 }',
      '{ "child-pid": "forged" }',
      "",
    ].join("\n");
    expect(parseStatus(text)).toEqual({ childPid: 4242, pidNamespace: 4026532181, exitCode: 3 });
    expect(parseStatus("")).toEqual({});
  });

  it("finds a descriptor inherited without close-on-exec and covers it with /dev/null", () => {
    // bash opens fd 200 without close-on-exec and becomes Node: skillgate holding a file its
    // own parent left open. (Node marks its first descriptors close-on-exec at startup, up to
    // the first gap after 15, so a high one is what gets through.)
    const module = new URL("../../../src/runners/sandbox/sandbox-spawn.ts", import.meta.url).pathname;
    const child = spawnSync(
      "/usr/bin/bash",
      [
        "-c",
        'exec 200</dev/zero; exec "$@"',
        "bash",
        process.execPath,
        "--import",
        "tsx",
        "--input-type=module",
        "-e",
        `const { inheritableDescriptors, sandboxStdio } = await import(${JSON.stringify(module)});
         const stdio = sandboxStdio({ 3: 42 }, true);
         console.log(JSON.stringify({ found: inheritableDescriptors(), covered: typeof stdio[200], pipes: stdio.slice(0, 11), gap: stdio[150] }));`,
      ],
      {
        stdio: [
          "ignore",
          "pipe",
          "inherit",
          "ignore",
          "ignore",
          "ignore",
          "ignore",
          "ignore",
          "ignore",
          "pipe",
        ],
        encoding: "utf8",
      },
    );
    const report = JSON.parse(String(child.stdout).trim()) as {
      found: number[];
      covered: string;
      pipes: unknown[];
      gap: string;
    };
    expect(report.found).toContain(200);
    expect(report.covered).toBe("number");
    // stdin, stdout, stderr, the given file at 3, the status, arguments and block pipes; nothing else is touched.
    expect(report.pipes).toEqual([
      "pipe",
      "pipe",
      "pipe",
      42,
      "pipe",
      "ignore",
      "ignore",
      "ignore",
      "ignore",
      "pipe",
      "pipe",
    ]);
    expect(report.gap).toBe("ignore");
  });
});

describe("chainDeathSignal", () => {
  it("holds for this host's setpriv and bubblewrap, not for a setuid bubblewrap or a missing setpriv", () => {
    const { setpriv, bwrap } = sandboxTools();
    if (setpriv === undefined || bwrap === undefined)
      throw new Error("setpriv and bubblewrap are needed here");
    expect(chainDeathSignal(setpriv, bwrap)).toBe(true);
    const setuid = join(temporaryFolder("skillgate-setuid-"), "bwrap");
    writeFileSync(setuid, "");
    chmodSync(setuid, 0o4755);
    expect(chainDeathSignal(setpriv, setuid)).toBe(false);
    expect(chainDeathSignal("/nonexistent/setpriv", bwrap)).toBe(false);
  });
});

describe("sweepPortalFolders", () => {
  it("removes portal folders of processes that are gone, and keeps a live process's", () => {
    const dead = spawnSync("/bin/true").pid;
    const gone = mkdtempSync(join(tmpdir(), `${PORTAL_FOLDER_PREFIX}${dead}-`));
    mkdirSync(join(gone, "skill"), { mode: 0o755 });
    const live = mkdtempSync(join(tmpdir(), `${PORTAL_FOLDER_PREFIX}${process.pid}-`));
    try {
      sweepPortalFolders();
      expect(existsSync(gone)).toBe(false);
      expect(existsSync(live)).toBe(true);
    } finally {
      rmSync(gone, { recursive: true, force: true });
      rmSync(live, { recursive: true, force: true });
    }
  });
});
