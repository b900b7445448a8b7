import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { LocalRunner, MAX_ARGUMENTS_JSON_BYTES } from "../../src/runners/local-runner.js";
import { eventually } from "../helpers/eventually.js";
import { hashOf, isAlive, requestFor, runnerTree, writeSkillFolder } from "./helpers.js";

const strays: number[] = [];

afterEach(() => {
  for (const pid of strays.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
});

function trustedRunner(
  data: string,
  options: { environment?: NodeJS.ProcessEnv; killGraceMs?: number } = {},
) {
  return new LocalRunner({ dataFolder: data, isTrusted: (name) => name !== "untrusted", ...options });
}

/** Pids a script printed as `<label> <pid>` lines. */
function pidsIn(text: string, label: string): number[] {
  return [...text.matchAll(new RegExp(`^${label} (\\d+)$`, "gm"))].map((match) => Number(match[1]));
}

describe("LocalRunner", () => {
  it("gives the script only the allow-listed environment: a secret of the parent is not visible", async () => {
    const { data, skills } = runnerTree();
    const folder = writeSkillFolder(skills, "env", {
      "scripts/env.mjs": "console.log(JSON.stringify(process.env));\n",
    });
    const runner = trustedRunner(data, {
      environment: { PATH: "/usr/bin:/bin", LANG: "C.UTF-8", TZ: "UTC", SKILLGATE_TEST_SECRET: "s3cret" },
    });
    const result = await runner.run(requestFor(folder, "scripts/env.mjs", { arguments: { a: 1 } }));
    expect(result.status).toBe("ok");
    const seen = JSON.parse(result.stdout) as Record<string, string>;
    expect(Object.keys(seen).sort()).toEqual([
      "HOME",
      "LANG",
      "PATH",
      "SKILLGATE_SKILL_ARGS",
      "SKILLGATE_SKILL_DIR",
      "SKILLGATE_SKILL_NAME",
      "TZ",
    ]);
    expect(seen).toMatchObject({
      PATH: "/usr/bin:/bin",
      LANG: "C.UTF-8",
      TZ: "UTC",
      SKILLGATE_SKILL_ARGS: '{"a":1}',
      SKILLGATE_SKILL_NAME: "env",
      SKILLGATE_SKILL_DIR: join(data, "runs", "snapshots", hashOf(folder)),
    });
    expect(result.stdout).not.toContain("s3cret");
  });

  it("does not pass this process's own secrets either", async () => {
    const { data, skills } = runnerTree();
    const folder = writeSkillFolder(skills, "env", { "scripts/env.sh": "env\n" });
    process.env.SKILLGATE_TEST_PARENT_SECRET = "parent-s3cret";
    try {
      const result = await trustedRunner(data).run(requestFor(folder, "scripts/env.sh"));
      expect(result.status).toBe("ok");
      expect(result.stdout).toContain("SKILLGATE_SKILL_NAME=env");
      expect(result.stdout).not.toContain("parent-s3cret");
    } finally {
      delete process.env.SKILLGATE_TEST_PARENT_SECRET;
    }
  });

  it("stdin holds only the arguments JSON, then end of file", async () => {
    const { data, skills } = runnerTree();
    const folder = writeSkillFolder(skills, "stdin", {
      "scripts/stdin.py": "import sys\ndata = sys.stdin.read()\nprint(repr(data))\n",
    });
    const result = await trustedRunner(data).run(
      requestFor(folder, "scripts/stdin.py", { arguments: { text: "é\n", list: [1, 2] } }),
    );
    expect(result.stdout.trim()).toBe(`'{"text":"é\\\\n","list":[1,2]}'`);
  });

  it("runs in a fresh, empty work folder that is also HOME, and removes it afterwards", async () => {
    const { data, skills } = runnerTree();
    const folder = writeSkillFolder(skills, "work", {
      "scripts/work.sh": 'pwd; echo "$HOME"; ls -A; mkdir -p sub && chmod 500 sub; echo made > file\n',
    });
    const runner = trustedRunner(data);
    const first = await runner.run(requestFor(folder, "scripts/work.sh"));
    const second = await runner.run(requestFor(folder, "scripts/work.sh"));
    const [cwd, home, ...listed] = first.stdout.trim().split("\n");
    expect(cwd).toMatch(new RegExp(`^${join(data, "runs", "work")}/[0-9a-f-]{36}$`));
    expect(home).toBe(cwd);
    expect(listed).toEqual([]);
    expect(second.stdout.split("\n")[0]).not.toBe(cwd);
    expect(existsSync(cwd as string)).toBe(false);
    expect(readdirSync(join(data, "runs", "work"))).toEqual([]);
  });

  it("runs from the verified snapshot, never the live folder", async () => {
    const { data, skills } = runnerTree();
    const folder = writeSkillFolder(skills, "where", { "scripts/where.py": "print(__file__)\n" });
    const result = await trustedRunner(data).run(requestFor(folder, "scripts/where.py"));
    expect(result.stdout.trim()).toBe(join(data, "runs", "snapshots", hashOf(folder), "scripts/where.py"));
  });

  it("a file swapped in the live folder after approval does not run", async () => {
    const { data, skills, root } = runnerTree();
    const folder = writeSkillFolder(skills, "swap", { "scripts/run.sh": "echo approved\n" });
    const approved = hashOf(folder);
    const marker = join(root, "swapped-ran");
    writeFileSync(join(folder, "scripts/run.sh"), `echo swapped; touch ${marker}\n`);
    const result = await trustedRunner(data).run(requestFor(folder, "scripts/run.sh", { hash: approved }));
    expect(result.status).toBe("refused");
    expect(result.code).toBe("skill_changed");
    expect(existsSync(marker)).toBe(false);
  });

  it("a skill not trusted is refused with not_trusted, saying how the owner trusts it, and nothing is written", async () => {
    const { data, skills } = runnerTree();
    const folder = writeSkillFolder(skills, "untrusted", { "scripts/run.sh": "echo hi\n" });
    const result = await trustedRunner(data).run(requestFor(folder, "scripts/run.sh"));
    expect(result.status).toBe("refused");
    expect(result.code).toBe("not_trusted");
    expect(result.message).toMatch(/^HOST: untrusted asks to run on the host itself/);
    expect(result.message).toContain("runners.local.trusted in skillgate's config.yaml");
    expect(existsSync(data)).toBe(false);
  });

  it("a non-zero exit is failed with its exit code; output is kept", async () => {
    const { data, skills } = runnerTree();
    const folder = writeSkillFolder(skills, "fails", {
      "scripts/fail.sh": "echo out; echo err >&2; exit 3\n",
    });
    const result = await trustedRunner(data).run(requestFor(folder, "scripts/fail.sh"));
    expect(result).toMatchObject({ status: "failed", exitCode: 3, stdout: "out\n", stderr: "err\n" });
  });

  it("streams output through onOutput as the script writes it", async () => {
    const { data, skills } = runnerTree();
    const folder = writeSkillFolder(skills, "stream", {
      "scripts/s.sh": "echo one; echo two >&2; echo three\n",
    });
    const chunks: { stream: string; text: string }[] = [];
    const result = await trustedRunner(data).run(
      requestFor(folder, "scripts/s.sh", { onOutput: (stream, text) => chunks.push({ stream, text }) }),
    );
    const joined = (stream: string) =>
      chunks
        .filter((chunk) => chunk.stream === stream)
        .map((chunk) => chunk.text)
        .join("");
    expect(joined("stdout")).toBe(result.stdout);
    expect(joined("stdout")).toBe("one\nthree\n");
    expect(joined("stderr")).toBe("two\n");
  });

  it("caps a stdout and stderr flood at maxOutputBytes with the flags set, and keeps reading so the script finishes", async () => {
    const { data, skills } = runnerTree();
    const folder = writeSkillFolder(skills, "flood", {
      "scripts/flood.py":
        "import sys\nfor _ in range(200):\n    sys.stdout.write('x' * 65536)\n    sys.stderr.write('y' * 65536)\nprint('done', file=sys.stderr)\n",
    });
    const streamed: string[] = [];
    const result = await trustedRunner(data).run(
      requestFor(folder, "scripts/flood.py", {
        limits: { maxOutputBytes: 1024 },
        onOutput: (stream, text) => stream === "stdout" && streamed.push(text),
      }),
    );
    expect(result.status).toBe("ok");
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe("x".repeat(1024));
    expect(result.stderr).toBe("y".repeat(1024));
    expect(result.stdoutTruncated).toBe(true);
    expect(result.stderrTruncated).toBe(true);
    expect(streamed.join("")).toBe("x".repeat(1024));
  });

  it("the timeout kills the whole group: the script and the grandchild it started are both gone", async () => {
    const { data, skills } = runnerTree();
    const folder = writeSkillFolder(skills, "slow", {
      "scripts/slow.sh": 'sleep 300 &\necho "grandchild $!"\necho "child $$"\nsleep 300\n',
    });
    const result = await trustedRunner(data).run(
      requestFor(folder, "scripts/slow.sh", { limits: { timeoutMs: 700 } }),
    );
    const pids = [...pidsIn(result.stdout, "grandchild"), ...pidsIn(result.stdout, "child")];
    strays.push(...pids);
    expect(result.status).toBe("timed_out");
    expect(pids).toHaveLength(2);
    await eventually(`processes ${pids.join(", ")} ended`, () => pids.every((pid) => !isAlive(pid)));
  });

  it("a script that ignores SIGTERM is killed with SIGKILL after the grace", async () => {
    const { data, skills } = runnerTree();
    const folder = writeSkillFolder(skills, "stubborn", {
      "scripts/stubborn.sh": "trap '' TERM\necho \"child $$\"\nwhile true; do sleep 1; done\n",
    });
    const result = await trustedRunner(data, { killGraceMs: 300 }).run(
      requestFor(folder, "scripts/stubborn.sh", { limits: { timeoutMs: 500 } }),
    );
    const pids = pidsIn(result.stdout, "child");
    strays.push(...pids);
    expect(result.status).toBe("timed_out");
    expect(pids).toHaveLength(1);
    await eventually(`processes ${pids.join(", ")} ended`, () => pids.every((pid) => !isAlive(pid)));
  });

  it("a background child left by a script that exited is killed with the group", async () => {
    const { data, skills } = runnerTree();
    const folder = writeSkillFolder(skills, "leaves", {
      "scripts/leave.sh": 'sleep 300 &\necho "grandchild $!"\nexit 0\n',
    });
    const result = await trustedRunner(data).run(requestFor(folder, "scripts/leave.sh"));
    const pids = pidsIn(result.stdout, "grandchild");
    strays.push(...pids);
    expect(result.status).toBe("ok");
    expect(pids).toHaveLength(1);
    await eventually(`processes ${pids.join(", ")} ended`, () => pids.every((pid) => !isAlive(pid)));
  });

  it("a setsid daemon leaves the process group: the run still ends, and the daemon is not contained (documented)", async () => {
    const { data, skills } = runnerTree();
    const folder = writeSkillFolder(skills, "daemon", {
      "scripts/daemon.sh": "setsid -f sh -c 'echo \"daemon $$\"; exec sleep 300'\nsleep 0.3\n",
    });
    const result = await trustedRunner(data).run(requestFor(folder, "scripts/daemon.sh"));
    const pids = pidsIn(result.stdout, "daemon");
    strays.push(...pids);
    expect(result.status).toBe("ok");
    expect(pids).toHaveLength(1);
    // The local runner is for trusted skills: a process that calls setsid escapes its group.
    // Only the sandbox's PID namespace contains it (docs/running-scripts.md says so).
    expect(isAlive(pids[0] as number)).toBe(true);
  });

  it("an abort stops the run as interrupted and kills the group", async () => {
    const { data, skills } = runnerTree();
    const folder = writeSkillFolder(skills, "abort", {
      "scripts/wait.sh": 'echo "child $$"\nsleep 300\n',
    });
    const controller = new AbortController();
    const result = await trustedRunner(data).run(
      requestFor(folder, "scripts/wait.sh", {
        signal: controller.signal,
        onOutput: (_stream, text) => text.includes("child") && controller.abort(),
      }),
    );
    const pids = pidsIn(result.stdout, "child");
    strays.push(...pids);
    expect(result.status).toBe("interrupted");
    await eventually(`processes ${pids.join(", ")} ended`, () => pids.every((pid) => !isAlive(pid)));
  });

  it("an abort before the start runs nothing", async () => {
    const { data, skills, root } = runnerTree();
    const marker = join(root, "ran");
    const folder = writeSkillFolder(skills, "never", { "scripts/run.sh": `touch ${marker}\n` });
    const controller = new AbortController();
    controller.abort();
    const result = await trustedRunner(data).run(
      requestFor(folder, "scripts/run.sh", { signal: controller.signal }),
    );
    expect(result.status).toBe("interrupted");
    expect(existsSync(marker)).toBe(false);
  });

  it("arguments too large for the environment are refused with arguments_too_large", async () => {
    const { data, skills } = runnerTree();
    const folder = writeSkillFolder(skills, "big", { "scripts/run.sh": "echo hi\n" });
    const result = await trustedRunner(data).run(
      requestFor(folder, "scripts/run.sh", { arguments: { text: "x".repeat(MAX_ARGUMENTS_JSON_BYTES) } }),
    );
    expect(result.code).toBe("arguments_too_large");
    expect(result.message).toMatch(/^HOST: /);
  });

  it.each([["../outside.sh"], ["scripts/../../outside.sh"], ["scripts/missing.sh"]])(
    "a script path %s that is not a file of the skill is refused with invalid_script",
    async (script) => {
      const { data, skills } = runnerTree();
      const folder = writeSkillFolder(skills, "paths", { "scripts/run.sh": "echo hi\n" });
      const result = await trustedRunner(data).run({ ...requestFor(folder, "scripts/run.sh"), script });
      expect(result.code).toBe("invalid_script");
    },
  );
});
