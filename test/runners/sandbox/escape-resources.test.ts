import { spawn } from "node:child_process";
import { readdirSync, readlinkSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { detectCgroups, systemCgroupHost } from "../../../src/runners/sandbox/cgroup-detect.js";
import { eventually } from "../../helpers/eventually.js";
import {
  cgroupsOwnedBy,
  expectContained,
  expectStatus,
  hashOf,
  lastJson,
  probe,
  requireBubblewrap,
  runScript,
  snapshotOf,
  PYTHON_ATTEMPT as TRY,
} from "./harness.js";

/**
 * The escape suite's resource bombs: fork, memory and /tmp bombs, a CPU spin, a setsid
 * daemon, output floods and many sandboxes at once, each with the status and evidence
 * expected and the same containment check after every one (see escape.test.ts).
 */

beforeAll(() => requireBubblewrap());

describe("resource bombs are contained", () => {
  const forkBomb = `${TRY}
import time
children = 0
failure = None
for _ in range(2000):
    try:
        pid = os.fork()
    except OSError as error:
        failure = errno.errorcode.get(error.errno)
        break
    if pid == 0:
        time.sleep(120)
        os._exit(0)
    children += 1
print(json.dumps({"children": children, "failure": failure}))
`;

  for (const cgroups of ["auto", "off"] as const) {
    it(`a fork bomb stops at the process cap and leaves nothing (cgroups ${cgroups})`, async () => {
      const result = await probe(forkBomb, { cgroups });
      expectStatus(result, "ok");
      const outcome = lastJson(result);
      expect(outcome.failure).toBe("EAGAIN");
      expect(outcome.children as number).toBeLessThan(256);
      expect(outcome.children as number).toBeGreaterThan(200);
    });
  }

  it("concurrent sandboxes each have their own process cap, though all are uid 65534 on the host", async () => {
    // 12 runs holding 25 processes each: 300 sandbox processes at once, more than one cap of 256.
    const source = `import os, time
children = []
for _ in range(24):
    pid = os.fork()
    if pid == 0:
        time.sleep(3)
        os._exit(0)
    children.append(pid)
print(len(children), flush=True)
time.sleep(1)
`;
    const snapshot = snapshotOf({ "scripts/hold.py": source });
    const before = hashOf(snapshot);
    const results = await Promise.all(
      Array.from({ length: 12 }, () => runScript(snapshot, "scripts/hold.py")),
    );
    for (const result of results) {
      expectStatus(result, "ok");
      expect(result.stdout).toBe("24\n");
      await expectContained(result, snapshot, before);
    }
  });

  it("a shell fork bomb ends with the run and leaves nothing", async () => {
    const result = await probe(":(){ :|:& };:\nsleep 1\necho done\n", {
      script: "scripts/bomb.sh",
      limits: { timeoutMs: 5_000, maxOutputBytes: 64 * 1024 },
    });
    expect(["ok", "timed_out"]).toContain(result.status);
    expect(result.stderr).toMatch(/Resource temporarily unavailable|retry: /);
  });

  for (const cgroups of ["auto", "off"] as const) {
    it(`a memory bomb fails inside and the host carries on (cgroups ${cgroups})`, async () => {
      const result = await probe(
        "chunks = []\nwhile True:\n    chunks.append(bytearray(64 * 1024 * 1024))\n",
        { cgroups },
      );
      expectStatus(result, "failed");
      // RLIMIT_AS refuses the allocation (MemoryError), or the cgroup's OOM killer ends it (SIGKILL: 128 + 9).
      expect(result.stderr.includes("MemoryError") || result.exitCode === 137).toBe(true);
    });
  }

  it("a Node memory bomb hits its heap cap", async () => {
    const result = await probe("const kept = [];\nfor (;;) kept.push(new Array(1 << 20).fill(1));\n", {
      script: "scripts/bomb.js",
    });
    expectStatus(result, "failed");
    expect(result.stderr).toContain("heap out of memory");
  });

  it("filling /tmp stops at the file cap (EFBIG) and the tmpfs cap (ENOSPC)", async () => {
    const mib = 1024 * 1024;
    const result = await probe(
      `${TRY}
def fill(path, limit):
    written = 0
    try:
        with open(path, "wb") as handle:
            while written < limit:
                handle.write(b"x" * 65536)
                handle.flush()
                written += 65536
    except OSError as error:
        return errno.errorcode.get(error.errno), written
    return "ok", written
one = fill("/tmp/one", 64 * 1024 * 1024)
results = [fill(f"/tmp/many-{index}", 3 * 1024 * 1024) for index in range(8)]
print(json.dumps({"one": one, "many": results}))
`,
      {
        limits: { timeoutMs: 30_000, maxOutputBytes: 64 * 1024, fileSizeBytes: 4 * mib, tmpBytes: 12 * mib },
      },
    );
    expectStatus(result, "ok");
    const outcome = lastJson(result) as { one: [string, number]; many: [string, number][] };
    expect(outcome.one).toEqual(["EFBIG", 4 * mib]);
    expect(outcome.many.map(([code]) => code)).toContain("ENOSPC");
    const total = 4 * mib + outcome.many.reduce((sum, [, written]) => sum + written, 0);
    expect(total).toBeLessThanOrEqual(12 * mib);
  });

  it("a CPU spin past the timeout is timed_out and killed", async () => {
    const result = await probe("print('spinning', flush=True)\nwhile True:\n    pass\n", {
      limits: { timeoutMs: 1_500, maxOutputBytes: 64 * 1024 },
    });
    expectStatus(result, "timed_out");
    expect(result.stdout).toBe("spinning\n");
  });

  it("a setsid daemon does not outlive the run", async () => {
    const result = await probe(`
import os, sys, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        sys.stdout.close()
        time.sleep(60)
        open("/tmp/daemon-was-here", "w").write("still running")
        os._exit(0)
    os._exit(0)
time.sleep(0.2)
print("parent done", flush=True)
`);
    expectStatus(result, "ok");
    expect(result.stdout).toBe("parent done\n");
  });

  it("a stdout flood is capped and flagged", async () => {
    const result = await probe("import sys\nfor _ in range(2000):\n    sys.stdout.write('y' * 8192)\n", {
      limits: { timeoutMs: 30_000, maxOutputBytes: 10_000 },
    });
    expectStatus(result, "ok");
    expect(result.stdout.length).toBe(10_000);
    expect(result.stdoutTruncated).toBe(true);
    expect(result.stderrTruncated).toBe(false);
  });

  it("an endless stdout flood is capped and ends at the timeout", async () => {
    const result = await probe("while true; do echo flood; done\n", {
      script: "scripts/flood.sh",
      limits: { timeoutMs: 1_500, maxOutputBytes: 4_096 },
    });
    expectStatus(result, "timed_out");
    expect(result.stdout.length).toBe(4_096);
    expect(result.stdoutTruncated).toBe(true);
  });

  it("a skillgate process killed mid-run takes its sandbox with it", async () => {
    // A separate Node process runs the sandbox and is SIGKILLed while the script sleeps:
    // bubblewrap's --die-with-parent must end the sandbox without any help from skillgate.
    const snapshot = snapshotOf({
      "scripts/sleep.sh": 'echo "$(readlink /proc/self/ns/pid)"\nsleep 60\n',
    });
    const module = new URL("../../../src/runners/sandbox/run-in-sandbox.ts", import.meta.url).pathname;
    const runner = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "--input-type=module",
        "-e",
        `const { runInSandbox } = await import(${JSON.stringify(module)});
         await runInSandbox({ snapshotFolder: ${JSON.stringify(snapshot)}, script: "scripts/sleep.sh",
           command: ["/usr/bin/bash"], argumentsJson: "{}", limits: { timeoutMs: 60000, maxOutputBytes: 4096 },
           network: { mode: "none" }, onOutput: (stream, text) => process.stdout.write(text) });`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    const namespace = await new Promise<string>((resolve, reject) => {
      let text = "";
      runner.stdout.on("data", (chunk: Buffer) => {
        text += chunk.toString();
        const line = /pid:\[\d+\]/.exec(text)?.[0];
        if (line !== undefined) resolve(line);
      });
      runner.once("exit", () => reject(new Error(`the runner exited first: ${text}`)));
    });
    const inNamespace = (): number[] =>
      readdirSync("/proc").flatMap((entry) => {
        try {
          return /^\d+$/.test(entry) && readlinkSync(`/proc/${entry}/ns/pid`) === namespace
            ? [Number(entry)]
            : [];
        } catch {
          return [];
        }
      });
    expect(inNamespace().length).toBeGreaterThan(0);
    runner.kill("SIGKILL");
    await eventually("every process of the killed runner's sandbox ended", () =>
      expect(inNamespace()).toEqual([]),
    );
    // Its cgroups (if any) are orphans now; the next detection in any skillgate process removes them.
    if (runner.exitCode === null && runner.signalCode === null)
      await new Promise((resolve) => runner.once("exit", resolve));
    detectCgroups(systemCgroupHost());
    expect(cgroupsOwnedBy(runner.pid ?? 0, true)).toEqual([]);
  });
});
