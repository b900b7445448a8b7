import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { launcherName } from "../../../src/runners/sandbox/bwrap-arguments.js";
import { hostCgroupSupport } from "../../../src/runners/sandbox/cgroup-detect.js";
import { sandboxTools } from "../../../src/runners/sandbox/host-tools.js";
import { sandboxPrerequisites } from "../../../src/runners/sandbox/request-checks.js";
import type { SandboxRunResult } from "../../../src/runners/sandbox/run-in-sandbox.js";
import {
  cgroupsLeft,
  cgroupsOfRun,
  expectContained,
  expectStatus,
  hashOf,
  lastJson,
  poolReady,
  portalsLeft,
  requireBubblewrap,
  runScript,
  SANDBOX_ENVIRONMENT_KEYS,
  snapshotOf,
  temporaryFolder,
} from "./harness.js";

beforeAll(() => requireBubblewrap());

const isRoot = process.getuid?.() === 0;

const ECHO = `
import json, os, sys
print(json.dumps({
    "stdin": json.load(sys.stdin),
    "env": json.loads(os.environ["SKILLGATE_SKILL_ARGS"]),
    "dir": os.environ["SKILLGATE_SKILL_DIR"],
    "name": os.environ.get("SKILLGATE_SKILL_NAME"),
    "cwd": os.getcwd(),
    "home": os.environ["HOME"],
    "uid": os.getuid(),
    "user": __import__("pwd").getpwuid(os.getuid()).pw_name,
    "hostname": os.uname().nodename,
    "keys": sorted(os.environ),
}))
`;

describe("runInSandbox", () => {
  it("runs a script with its arguments on stdin and in SKILLGATE_SKILL_ARGS, in /tmp, as the sandbox user", async () => {
    const snapshot = snapshotOf({ "scripts/echo.py": ECHO });
    const before = hashOf(snapshot);
    const result = await runScript(snapshot, "scripts/echo.py", {
      arguments: { city: "Zürich", days: 3 },
      skillName: "weather",
    });
    expectStatus(result, "ok");
    expect(result.exitCode).toBe(0);
    expect(lastJson(result)).toEqual({
      stdin: { city: "Zürich", days: 3 },
      env: { city: "Zürich", days: 3 },
      dir: "/skill",
      name: "weather",
      cwd: "/tmp",
      home: "/tmp",
      uid: 65534,
      user: "sandbox",
      hostname: "sandbox",
      keys: SANDBOX_ENVIRONMENT_KEYS,
    });
    expect(result.sandbox?.cgroup).toBe(hostCgroupSupport().version);
    await expectContained(result, snapshot, before);
  });

  it("reports a failing script's exit code and stderr", async () => {
    const snapshot = snapshotOf({
      "scripts/fail.py": "import sys\nprint('bad input', file=sys.stderr)\nsys.exit(3)\n",
    });
    const result = await runScript(snapshot, "scripts/fail.py");
    expectStatus(result, "failed");
    expect(result.exitCode).toBe(3);
    expect(result.stderr).toBe("bad input\n");
  });

  it("runs Node (.js and .mjs) and shell scripts", async () => {
    const snapshot = snapshotOf({
      "scripts/a.js":
        "process.stdin.on('data', (data) => console.log('js', JSON.parse(data).n, process.env.NODE_OPTIONS));\n",
      "scripts/b.mjs":
        "import { readFileSync } from 'node:fs';\nconsole.log('mjs', JSON.parse(readFileSync(0, 'utf8')).n);\n",
      "scripts/c.sh": 'read -r line\necho "sh $line $(id -u)"\n',
    });
    const results = await Promise.all(
      ["scripts/a.js", "scripts/b.mjs", "scripts/c.sh"].map((script) =>
        runScript(snapshot, script, { arguments: { n: 7 } }),
      ),
    );
    for (const result of results) expectStatus(result, "ok");
    expect(results.map((result) => result.stdout)).toEqual([
      "js 7 --max-old-space-size=768\n",
      "mjs 7\n",
      'sh {"n":7} 65534\n',
    ]);
  });

  it("streams output as it comes", async () => {
    const snapshot = snapshotOf({
      "scripts/talk.py": "import sys\nprint('one', flush=True)\nprint('two', file=sys.stderr)\n",
    });
    const chunks: string[] = [];
    const result = await runScript(snapshot, "scripts/talk.py", {
      onOutput: (stream, chunk) => chunks.push(`${stream}:${chunk}`),
    });
    expectStatus(result, "ok");
    expect(chunks.join("")).toContain("stdout:one\n");
    expect(chunks.join("")).toContain("stderr:two\n");
  });

  it("an abort kills the sandbox (interrupted); an abort before the start runs nothing", async () => {
    const snapshot = snapshotOf({
      "scripts/wait.py": "import time\nprint('started', flush=True)\ntime.sleep(60)\n",
    });
    const before = hashOf(snapshot);
    const controller = new AbortController();
    const running = runScript(snapshot, "scripts/wait.py", {
      signal: controller.signal,
      onOutput: () => controller.abort(),
    });
    const result = await running;
    expectStatus(result, "interrupted");
    await expectContained(result, snapshot, before);
    const aborted = new AbortController();
    aborted.abort();
    const early = await runScript(snapshot, "scripts/wait.py", { signal: aborted.signal });
    expectStatus(early, "interrupted");
    expect(early.sandbox).toBeUndefined();
  });

  for (const prestart of [false, true])
    it(`puts the run's processes in its own cgroups and no other's (${prestart ? "a sandbox started ahead" : "started for the run"})`, async () => {
      const support = hostCgroupSupport();
      if (support.version === "none") return;
      const folders = support.version === "v2" ? [support.folder] : Object.values(support.folders);
      const snapshot = snapshotOf({
        "scripts/wait.py": "import time\nprint('ready', flush=True)\ntime.sleep(60)\n",
        "scripts/ok.py": "print('ok')\n",
      });
      if (prestart) {
        expectStatus(await runScript(snapshot, "scripts/ok.py"), "ok");
        await poolReady();
      }
      const controller = new AbortController();
      // Per hierarchy: which of this process's run cgroups hold the script, and what the others hold.
      const seen: { holding: string[]; others: { run: string; commands: string[] }[] }[] = [];
      const result = await runScript(snapshot, "scripts/wait.py", {
        signal: controller.signal,
        prestart,
        onOutput: () => {
          for (const folder of folders) {
            const runs = readdirSync(folder)
              .filter((name) => name.startsWith(`skillgate-${process.pid}-`))
              .map((run) => ({
                run,
                commands: readFileSync(join(folder, run, "cgroup.procs"), "utf8")
                  .split("\n")
                  .filter(Boolean)
                  .map((pid) => readCommand(Number(pid))),
              }));
            const holding = runs.filter(({ commands }) =>
              commands.some((command) => command.includes("/skill/scripts/wait.py")),
            );
            seen.push({
              holding: holding.map(({ run }) => run),
              others: runs.filter((entry) => !holding.includes(entry)),
            });
          }
          controller.abort();
        },
      });
      expectStatus(result, "interrupted");
      expect(result.sandbox?.prestarted).toBe(prestart);
      const runId = result.sandbox?.runId ?? "none";
      expect(seen).toHaveLength(folders.length);
      for (const { holding, others } of seen) {
        expect(holding).toEqual([`skillgate-${process.pid}-${runId}`]);
        // Any other is the sandbox kept ahead for the next run: only its own bubblewrap, waiting.
        for (const { run, commands } of others) {
          const id = run.slice(`skillgate-${process.pid}-`.length);
          for (const command of commands) expect(command).toContain(launcherName(id));
        }
      }
      expect(await cgroupsLeft(result)).toEqual([]);
    });

  it("limits with rlimits only when cgroups are off", async () => {
    const snapshot = snapshotOf({ "scripts/ok.py": "print('ok')\n" });
    const result = await runScript(snapshot, "scripts/ok.py", { cgroups: "off" });
    expectStatus(result, "ok");
    expect(result.sandbox?.cgroup).toBe("none");
  });

  it("says in its result which limits were enforced and how", async () => {
    const snapshot = snapshotOf({ "scripts/ok.py": "print('ok')\n" });
    const support = hostCgroupSupport();
    const result = await runScript(snapshot, "scripts/ok.py", {
      limits: { timeoutMs: 20_000, maxOutputBytes: 1000 },
    });
    expectStatus(result, "ok");
    const limits = result.limits;
    expect(limits?.cgroup.version).toBe(support.version);
    expect(limits?.cgroup.failed).toBeUndefined();
    const cgroup = support.version === "none" ? [] : [`cgroup-${support.version}`];
    const has = (controller: "pids" | "memory" | "cpu") =>
      (support.controllers as string[]).includes(controller);
    expect(limits?.processes).toEqual({ value: 256, by: [...(has("pids") ? cgroup : []), "rlimit"] });
    expect(limits?.memoryBytes.by).toEqual([...(has("memory") ? cgroup : []), "rlimit"]);
    expect(limits?.cpus).toEqual({ value: 2, by: has("cpu") ? cgroup : [] });
    expect(limits?.fileSizeBytes.by).toEqual(["rlimit"]);
    expect(limits?.tmpBytes).toEqual({ value: 128 * 1024 * 1024, by: ["tmpfs"] });
    expect(limits?.timeoutMs).toEqual({ value: 20_000, by: ["timer"] });
    expect(limits?.outputBytes).toEqual({ value: 1000, by: ["output-cap"] });
  });

  it("a cgroup that cannot be made is not a silent fallback: the result says it failed and why", async () => {
    const snapshot = snapshotOf({ "scripts/ok.py": "print('ok')\n" });
    // A regular file where the cgroup v2 group should be: enabling controllers fails (ENOTDIR).
    const notAFolder = join(temporaryFolder("skillgate-cgroup-"), "not-a-folder");
    writeFileSync(notAFolder, "");
    const support = {
      version: "v2",
      folder: notAFolder,
      controllers: ["pids", "memory", "cpu"],
      note: "",
    } as const;
    const result = await runScript(snapshot, "scripts/ok.py", { cgroupSupport: support, prestart: false });
    expectStatus(result, "ok");
    expect(result.sandbox?.cgroup).toBe("none");
    expect(result.limits?.cgroup).toEqual({
      version: "none",
      controllers: [],
      failed: true,
      reason: `the controllers could not be enabled in ${notAFolder} (ENOTDIR)`,
    });
    expect(result.limits?.processes.by).toEqual(["rlimit"]);
    expect(result.limits?.memoryBytes.by).toEqual(["rlimit"]);
    expect(result.limits?.cpus.by).toEqual([]);

    const required = await runScript(snapshot, "scripts/ok.py", {
      cgroupSupport: support,
      cgroups: "required",
      prestart: false,
    });
    expect(required.status).toBe("refused");
    expect(required.code).toBe("cgroup_unavailable");
    expect(required.message).toContain(`the controllers could not be enabled in ${notAFolder} (ENOTDIR)`);
    expect(required.stdout).toBe("");
  });

  it("cgroups off: the result says there is no cgroup because it was turned off", async () => {
    const snapshot = snapshotOf({ "scripts/ok.py": "print('ok')\n" });
    const result = await runScript(snapshot, "scripts/ok.py", { cgroups: "off" });
    expect(result.limits?.cgroup).toEqual({ version: "none", controllers: [], reason: "turned off" });
  });

  it("reaches a snapshot behind a folder closed to the sandbox user (through the portal, as root)", async () => {
    const snapshot = snapshotOf({ "scripts/echo.py": ECHO }, 0o700);
    const before = hashOf(snapshot);
    const result = await runScript(snapshot, "scripts/echo.py", { arguments: { x: 1 } });
    if (!isRoot) {
      expectStatus(result, "refused");
      expect(result.code).toBe("snapshot_unreachable");
      return;
    }
    expectStatus(result, "ok");
    expect(result.sandbox?.portal).toBe(true);
    expect(lastJson(result).stdin).toEqual({ x: 1 });
    await expectContained(result, snapshot, before);
    expect(leftoverPortals()).toEqual([]);
  });
});

function readCommand(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
  } catch {
    return "";
  }
}

function leftoverPortals(): string[] {
  return portalsLeft();
}

describe("refusals: nothing starts, nothing is written", () => {
  const files = {
    "scripts/ok.py": "print('ran')\n",
    "scripts/run.ts": "console.log('ran')\n",
    "scripts/run.cjs": "console.log('ran')\n",
    "scripts/run.bash": "echo ran\n",
    "scripts/Run.cs": "System.Console.WriteLine(1);\n",
    "scripts/run": "echo ran\n",
  };

  const cases: {
    name: string;
    script: string;
    code: string;
    text: RegExp;
    options?: Parameters<typeof runScript>[2];
    snapshot?: string;
    rootOnly?: boolean;
  }[] = [
    {
      name: "TypeScript",
      script: "scripts/run.ts",
      code: "language_not_sandboxable",
      text: /\.py\), JavaScript \(\.js, \.mjs\) and shell \(\.sh\)/,
    },
    {
      name: "CommonJS",
      script: "scripts/run.cjs",
      code: "language_not_sandboxable",
      text: /cannot run in the sandbox/,
    },
    {
      name: ".bash",
      script: "scripts/run.bash",
      code: "language_not_sandboxable",
      text: /cannot run in the sandbox/,
    },
    {
      name: "C#",
      script: "scripts/Run.cs",
      code: "language_not_sandboxable",
      text: /cannot run in the sandbox/,
    },
    {
      name: "no extension",
      script: "scripts/run",
      code: "language_not_sandboxable",
      text: /cannot run in the sandbox/,
    },
    { name: "parent folder", script: "../ok.py", code: "invalid_script", text: /has no script/ },
    { name: "absolute path", script: "/etc/ok.py", code: "invalid_script", text: /has no script/ },
    { name: "climbing out", script: "scripts/../../ok.py", code: "invalid_script", text: /has no script/ },
    { name: "missing script", script: "scripts/missing.py", code: "invalid_script", text: /has no script/ },
    {
      name: "relative interpreter",
      script: "scripts/ok.py",
      code: "invalid_command",
      text: /not a program under \/usr/,
      options: { command: ["python3"] },
    },
    {
      name: "an interpreter mount with a relative source",
      script: "scripts/ok.py",
      code: "invalid_command",
      text: /not a program under \/usr/,
      options: { interpreterMounts: [{ source: "venv", target: "/venv" }] },
    },
    ...["/", "/tmp", "/skill", "/usr/lib", "/etc", "/proc/self", "/a/../usr"].map((target) => ({
      name: `an interpreter mount over ${target}`,
      script: "scripts/ok.py",
      code: "invalid_command",
      text: /not a program under \/usr/,
      options: { interpreterMounts: [{ source: "/opt", target }] },
    })),
    {
      name: "an interpreter mount of a missing folder",
      script: "scripts/ok.py",
      code: "interpreter_unreachable",
      text: /its folder \/nonexistent\/venv does not exist/,
      options: { interpreterMounts: [{ source: "/nonexistent/venv", target: "/nonexistent/venv" }] },
    },
    {
      name: "a program outside /usr that no mount shows",
      script: "scripts/ok.py",
      code: "invalid_command",
      text: /not a program under \/usr/,
      options: { command: ["/etc/hostname"], interpreterMounts: [{ source: "/opt", target: "/opt" }] },
    },
    {
      name: "missing snapshot",
      script: "scripts/ok.py",
      code: "snapshot_unreachable",
      text: /does not exist/,
      snapshot: "/nonexistent/snapshot",
    },
    {
      name: "proxy socket missing",
      script: "scripts/ok.py",
      code: "proxy_unavailable",
      text: /socket does not exist/,
      options: {
        network: { mode: "proxy", socketPath: "/nonexistent/proxy.sock", allowedDomains: ["example.com"] },
      },
    },
    {
      name: "arguments too large",
      script: "scripts/ok.py",
      code: "arguments_too_large",
      text: /over 120 KiB/,
      options: { argumentsJson: JSON.stringify({ text: "x".repeat(130 * 1024) }) },
    },
  ];

  for (const row of cases) {
    it(`${row.name}: ${row.code}`, async () => {
      const snapshot = snapshotOf(files);
      const before = hashOf(snapshot);
      const portalsBefore = leftoverPortals();
      const result: SandboxRunResult = await runScript(
        row.snapshot ?? snapshot,
        row.script,
        row.options ?? {},
      );
      expectStatus(result, "refused");
      expect(result.code).toBe(row.code);
      expect(result.message).toMatch(/^HOST: /);
      expect(result.message).toMatch(row.text);
      expect(result.message?.endsWith(`[${row.code}]`)).toBe(true);
      expect(result.stdout).toBe("");
      expect(result.sandbox).toBeUndefined();
      expect(hashOf(snapshot)).toBe(before);
      // Nothing new: a folder of a run that ended before may still be going away meanwhile.
      expect(leftoverPortals().filter((name) => !portalsBefore.includes(name))).toEqual([]);
      expect(cgroupsOfRun(result)).toEqual([]);
    });
  }

  it("an interpreter outside /usr, which the sandbox cannot see", async () => {
    const fake = join(temporaryFolder("skillgate-interpreter-"), "python3");
    writeFileSync(fake, "#!/bin/sh\n", { mode: 0o755 });
    const result = await runScript(snapshotOf(files), "scripts/ok.py", { command: [fake] });
    expect(result.code).toBe("invalid_command");
  });

  it("a snapshot file other users cannot read (root only: the sandbox user is someone else)", async () => {
    if (!isRoot) return;
    const snapshot = snapshotOf(files);
    const { chmodSync } = await import("node:fs");
    chmodSync(snapshot, 0o755);
    chmodSync(join(snapshot, "scripts"), 0o755);
    chmodSync(join(snapshot, "scripts", "ok.py"), 0o400);
    const result = await runScript(snapshot, "scripts/ok.py");
    expect(result.code).toBe("snapshot_unreachable");
    expect(result.message).toContain("not readable by others");
  });

  it("without bubblewrap: refused with how to install it", () => {
    const refused = sandboxPrerequisites({ ...sandboxTools(), bwrap: undefined }, "scripts/ok.py", false);
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.refusal.status).toBe("refused");
    expect(refused.refusal.code).toBe("sandbox_unavailable");
    expect(refused.refusal.message).toBe(
      "HOST: this host cannot run sandboxed scripts because bubblewrap (bwrap) is not installed, so scripts/ok.py did not run. The host's owner installs them with scripts/install-test-deps.sh, or apt-get install bubblewrap socat. [sandbox_unavailable]",
    );
    const noSocat = sandboxPrerequisites({ ...sandboxTools(), socat: undefined }, "scripts/ok.py", true);
    expect(noSocat.ok ? undefined : noSocat.refusal.code).toBe("proxy_unavailable");
    const noPrlimit = sandboxPrerequisites({ ...sandboxTools(), prlimit: undefined }, "scripts/ok.py", false);
    expect(noPrlimit.ok ? undefined : noPrlimit.refusal.message).toContain("prlimit is not installed");
    const broken = sandboxPrerequisites(
      { ...sandboxTools(), bwrap: "/nonexistent/bwrap" },
      "scripts/ok.py",
      false,
    );
    expect(broken.ok ? undefined : broken.refusal.code).toBe("sandbox_unavailable");
  });
});
