import { spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { ARGUMENT_MESSAGES, MAX_ARGUMENT_DEPTH } from "../../../src/tools/arguments.js";
import { requireTools } from "../../helpers/required-tools.js";
import { type CliSandbox, cliSandbox, hasStackTrace } from "./harness.js";

const repository = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/** A project skill in the sandbox with the given execution mode and scripts. */
function writeRunSkill(
  sandbox: CliSandbox,
  name: string,
  execution: string,
  scripts: Record<string, string>,
): string {
  const folder = join(sandbox.skills, name);
  mkdirSync(join(folder, "scripts"), { recursive: true });
  writeFileSync(
    join(folder, "SKILL.md"),
    `---\nname: ${name}\ndescription: The ${name} skill for run tests.\nmetadata:\n  skillgate.execution: ${execution}\n---\nRun its scripts.\n`,
  );
  for (const [path, text] of Object.entries(scripts)) writeFileSync(join(folder, path), text);
  return folder;
}

/** A sandbox with a trusted local skill `demo` whose script echoes its arguments and exits with `code`. */
function demoSandbox(extraConfig = ""): CliSandbox & { folder: string } {
  const sandbox = cliSandbox();
  sandbox.writeConfig(`runners:\n  local:\n    trusted: [demo]\n${extraConfig}`);
  const folder = writeRunSkill(sandbox, "demo", "local", {
    "scripts/echo.py":
      "import json, sys\nargs = json.load(sys.stdin)\nprint('args', json.dumps(args, sort_keys=True))\nprint('note', file=sys.stderr)\nsys.exit(args.get('code', 0))\n",
    "scripts/sleep.sh": "echo started\nsleep 300\n",
  });
  return { ...sandbox, folder };
}

describe("skillgate run", () => {
  it("--yes runs the script through the whole path and prints its output; exit 0", async () => {
    const sandbox = demoSandbox();
    const result = await sandbox.run([
      "run",
      "demo",
      "scripts/echo.py",
      "--args",
      '{"b": 2, "a": 1}',
      "--yes",
    ]);
    expect(result.out).toBe('args {"a": 1, "b": 2}\n');
    expect(result.err).toBe("note\n");
    expect(result.code).toBe(0);
  });

  it("takes the script's name under scripts/ too", async () => {
    const sandbox = demoSandbox();
    const result = await sandbox.run(["run", "demo", "echo.py", "--yes"]);
    expect(result.out).toBe("args {}\n");
    expect(result.code).toBe(0);
  });

  it("a script that exits non-zero is failed: exit 1, with the script's exit code said on stderr", async () => {
    const sandbox = demoSandbox();
    const result = await sandbox.run(["run", "demo", "scripts/echo.py", "--args", '{"code": 3}', "--yes"]);
    expect(result.out).toBe('args {"code": 3}\n');
    expect(result.err).toBe("note\nskillgate: scripts/echo.py exited with code 3.\n");
    expect(result.code).toBe(1);
  });

  it("with no terminal and neither flag, the ask is declined: nothing runs, exit 1", async () => {
    const sandbox = demoSandbox();
    const result = await sandbox.run(["run", "demo", "scripts/echo.py"]);
    expect(result.out).toBe("");
    expect(result.err).toBe(
      "HOST: the person declined this call; it did not run. Do not retry it unless they ask.\n" +
        "skillgate: there is no terminal to ask on; pass --yes to approve once or --always to grant.\n",
    );
    expect(result.code).toBe(1);
    expect(existsSync(join(sandbox.data, "runs", "snapshots"))).toBe(false);
  });

  it("--always grants the skill at its hash to the chat cli: the next run does not ask, until the skill changes", async () => {
    const sandbox = demoSandbox();
    const first = await sandbox.run(["run", "demo", "scripts/echo.py", "--always"]);
    expect(first.code).toBe(0);
    const second = await sandbox.run(["run", "demo", "scripts/echo.py", "--args", '{"n": 2}']);
    expect(second.out).toBe('args {"n": 2}\n');
    expect(second.code).toBe(0);
    writeFileSync(join(sandbox.folder, "scripts/echo.py"), "print('changed')\n");
    const third = await sandbox.run(["run", "demo", "scripts/echo.py"]);
    expect(third.out).toBe("");
    expect(third.err).toContain("HOST: the person declined this call");
    expect(third.code).toBe(1);
  });

  it("--yes and --always together are a usage error", async () => {
    const sandbox = demoSandbox();
    const result = await sandbox.run(["run", "demo", "scripts/echo.py", "--yes", "--always"]);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/^skillgate: option '--yes' cannot be used with option '--always'/);
  });

  it("--json prints the status, the exit code, the model's text and the runner's result", async () => {
    const sandbox = demoSandbox();
    const result = await sandbox.run([
      "run",
      "demo",
      "scripts/echo.py",
      "--args",
      '{"a": 1}',
      "--yes",
      "--json",
    ]);
    expect(result.code).toBe(0);
    const printed = JSON.parse(result.out) as Record<string, unknown>;
    expect(printed).toMatchObject({
      status: "ok",
      exitCode: 0,
      run: {
        status: "ok",
        exitCode: 0,
        stdout: 'args {"a": 1}\n',
        stderr: "note\n",
        stdoutTruncated: false,
        stderrTruncated: false,
      },
    });
    expect(printed.text).toMatch(/^exit code 0 \(ok, \d+ ms\)\n--- stdout ---\nargs \{"a": 1\}\n/);
    expect(result.err).toBe("");
  });

  it("a script past runners.limits.timeout_seconds is timed_out: exit 124", async () => {
    const sandbox = demoSandbox("  limits:\n    timeout_seconds: 1\n");
    const result = await sandbox.run(["run", "demo", "scripts/sleep.sh", "--yes"]);
    expect(result.out).toBe("started\n");
    expect(result.err).toBe("HOST: the script ran past its time limit (1 s) and was stopped.\n");
    expect(result.code).toBe(124);
  });

  it("a denied call is exit 1 with the policy's HOST: text", async () => {
    const sandbox = demoSandbox(
      "policy:\n  rules:\n    - name: no-demo\n      priority: 100\n      effect: deny\n      skill: demo\n",
    );
    const result = await sandbox.run(["run", "demo", "scripts/echo.py", "--yes"]);
    expect(result.err).toMatch(/^HOST: not allowed: .*\(rule no-demo\)\.\n$/);
    expect(result.code).toBe(1);
  });

  it("an untrusted local skill is refused with the way to trust it: exit 1", async () => {
    const sandbox = cliSandbox();
    writeRunSkill(sandbox, "stranger", "local", { "scripts/run.sh": "echo hi\n" });
    const result = await sandbox.run(["run", "stranger", "scripts/run.sh", "--yes"]);
    expect(result.out).toBe("");
    expect(result.err).toContain("runners.local.trusted");
    expect(result.err).toMatch(/\[not_trusted\]\n$/);
    expect(result.code).toBe(1);
  });

  it("an unknown skill or script is refused with HOST: text and no stack trace", async () => {
    const sandbox = demoSandbox();
    const unknownSkill = await sandbox.run(["run", "nope", "scripts/echo.py", "--yes"]);
    expect(unknownSkill.err).toMatch(/^HOST: /);
    expect(unknownSkill.code).toBe(1);
    const unknownScript = await sandbox.run(["run", "demo", "scripts/none.py", "--yes"]);
    expect(unknownScript.err).toBe(
      'HOST: demo has no script "scripts/none.py". Scripts: scripts/echo.py, scripts/sleep.sh.\n',
    );
    expect(hasStackTrace(unknownSkill.err + unknownScript.err)).toBe(false);
  });

  const deep = `${'{"a":'.repeat(MAX_ARGUMENT_DEPTH + 1)}1${"}".repeat(MAX_ARGUMENT_DEPTH + 1)}`;
  const table: [string, string, string[], string][] = [
    ["an array", "demo", ["--args", "[1, 2]"], ARGUMENT_MESSAGES.array],
    ["a number", "demo", ["--args", "5"], ARGUMENT_MESSAGES.number],
    ["a boolean", "demo", ["--args", "true"], ARGUMENT_MESSAGES.boolean],
    ["text that isn't JSON", "demo", ["--args", "action=list"], ARGUMENT_MESSAGES.notJson],
    ["a quoted string", "demo", ["--args", '"list"'], ARGUMENT_MESSAGES.notJson],
    ["text over 32 KiB", "demo", ["--args", `{"t": "${"x".repeat(33 * 1024)}"}`], ARGUMENT_MESSAGES.tooLong],
    ["nesting too deep", "demo", ["--args", deep], ARGUMENT_MESSAGES.tooDeep],
    ["a node that isn't text", "remote", ["--args", '{"node": 5}'], ARGUMENT_MESSAGES.nodeNotText],
    ["no node for a node skill", "remote", ["--args", "{}"], ARGUMENT_MESSAGES.missingNode],
    ["null for a node skill", "remote", ["--args", "null"], ARGUMENT_MESSAGES.missingNode],
    [
      "two different nodes",
      "remote",
      ["--args", '{"node": "a"}', "--node", "b"],
      ARGUMENT_MESSAGES.disagree("a", "b"),
    ],
  ];

  it.each(table)(
    "--args with %s reproduces the model's HOST: message exactly; nothing runs",
    async (_name, skill, argv, message) => {
      const sandbox = demoSandbox();
      writeRunSkill(sandbox, "remote", "node", { "scripts/run.sh": "echo hi\n" });
      const result = await sandbox.run([
        "run",
        skill,
        skill === "demo" ? "scripts/echo.py" : "scripts/run.sh",
        ...argv,
        "--yes",
      ]);
      expect(result.out).toBe("");
      expect(result.err).toBe(`${message}\n`);
      expect(result.code).toBe(1);
      expect(existsSync(join(sandbox.data, "runs"))).toBe(false);
    },
  );

  it.each([
    ["text holding an object runs", ["--args", '{"a": 1}'], 'args {"a": 1}\n'],
    ["null is treated as {}", ["--args", "null"], "args {}\n"],
    ["no --args is {}", [], "args {}\n"],
  ])("%s", async (_name, argv, out) => {
    const sandbox = demoSandbox();
    const result = await sandbox.run(["run", "demo", "scripts/echo.py", ...argv, "--yes"]);
    expect(result.out).toBe(out);
    expect(result.code).toBe(0);
  });

  it("a node skill with the node given next to the arguments reaches the router, which says node runs go through skillgate serve", async () => {
    const sandbox = demoSandbox();
    writeRunSkill(sandbox, "remote", "node", { "scripts/run.sh": "echo hi\n" });
    const result = await sandbox.run(["run", "remote", "scripts/run.sh", "--node", "lab01", "--yes"]);
    expect(result.err).toMatch(
      /^HOST: remote runs on a named server .*`skillgate serve`.* \[runner_unavailable\]\n$/,
    );
    expect(result.code).toBe(1);
  });
});

/** The CLI from source in a real process (node + tsx), for what needs a terminal or a signal. */
function spawnCli(sandbox: CliSandbox, argv: readonly string[], options: { tty?: boolean } = {}) {
  const command = [
    process.execPath,
    "--import",
    "tsx",
    join(repository, "src/surfaces/cli/main.ts"),
    ...sandbox.flags(),
    ...argv,
  ];
  const env = { PATH: process.env.PATH ?? "", HOME: sandbox.home, NO_COLOR: "1" };
  if (!options.tty) return spawn(command[0] as string, command.slice(1), { cwd: repository, env });
  // util-linux `script` gives the CLI a pseudo-terminal, so the y/N question is really asked.
  const quoted = command.map((part) => `'${part.replace(/'/g, "'\\''")}'`).join(" ");
  return spawn("script", ["-qfec", quoted, "/dev/null"], { cwd: repository, env });
}

function collect(child: ReturnType<typeof spawn>): Promise<{ code: number | null; out: string }> {
  let out = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, out })));
}

describe("skillgate run in a real process", () => {
  it("at a terminal, the ask is put as a y/N question and a yes runs the script", async () => {
    requireTools("script");
    const sandbox = demoSandbox();
    const child = spawnCli(sandbox, ["run", "demo", "scripts/echo.py", "--args", '{"t": 1}'], { tty: true });
    const done = collect(child);
    let asked = false;
    child.stdout?.on("data", (chunk: Buffer) => {
      if (!asked && chunk.toString().includes("Run it? [y/N]")) {
        asked = true;
        child.stdin?.write("y\n");
      }
    });
    const result = await done;
    expect(result.out).toContain("skillgate asks: run scripts/echo.py of demo (local)");
    expect(result.out).toContain('args {"t": 1}');
    expect(result.code).toBe(0);
  });

  it("at a terminal, anything but yes declines", async () => {
    requireTools("script");
    const sandbox = demoSandbox();
    const child = spawnCli(sandbox, ["run", "demo", "scripts/echo.py"], { tty: true });
    const done = collect(child);
    let asked = false;
    child.stdout?.on("data", (chunk: Buffer) => {
      if (!asked && chunk.toString().includes("Run it? [y/N]")) {
        asked = true;
        child.stdin?.write("\n");
      }
    });
    const result = await done;
    expect(result.out).toContain("HOST: the person declined this call");
    expect(result.out).not.toContain("args {}");
    expect(result.code).toBe(1);
  });

  it("Ctrl-C (SIGINT) interrupts the run, kills the script's group and exits 130", async () => {
    const sandbox = demoSandbox();
    const child = spawnCli(sandbox, ["run", "demo", "scripts/sleep.sh", "--yes"]);
    const done = collect(child);
    child.stdout?.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("started")) child.kill("SIGINT");
    });
    const result = await done;
    expect(result.out).toContain("HOST: the run was interrupted before it finished");
    expect(result.code).toBe(130);
  });
});

describe("skillgate run shows a script's terminal controls escaped on a terminal only", () => {
  // A window title (OSC 0), a clipboard write (OSC 52), a screen clear (CSI 2J), a lone
  // carriage return and a C1 CSI, on stdout and on stderr.
  const HOSTILE =
    "import sys\n" +
    "sys.stdout.write('T\\x1b]0;pwned\\x07 C\\x1b]52;c;ZXZpbA==\\x07 X\\x1b[2J\\x1b[H R\\rS \\u009b2J end\\n')\n" +
    "sys.stdout.flush()\n" +
    "sys.stderr.write('E\\x1b]2;title\\x1b\\\\ done\\n')\n";

  function hostileSandbox(): CliSandbox {
    const sandbox = demoSandbox();
    writeFileSync(join(sandbox.folder, "scripts", "hostile.py"), HOSTILE);
    return sandbox;
  }

  it("at a terminal (a real pseudo-terminal from util-linux script), every control is shown escaped", async () => {
    const sandbox = hostileSandbox();
    const result = await collect(
      spawnCli(sandbox, ["run", "demo", "scripts/hostile.py", "--yes"], { tty: true }),
    );
    expect(result.code).toBe(0);
    // The pseudo-terminal turns each newline into CR LF on its way out; those are its own.
    const seen = result.out.replace(/\r\n/g, "\n");
    expect(seen).toContain(
      "T\\x1b]0;pwned\\x07 C\\x1b]52;c;ZXZpbA==\\x07 X\\x1b[2J\\x1b[H R\\x0dS \\x9b2J end\n",
    );
    expect(seen).toContain("E\\x1b]2;title\\x1b\\ done\n");
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for control characters.
    expect(seen).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  });

  it("into a pipe, the bytes arrive exactly as the script wrote them", async () => {
    const sandbox = hostileSandbox();
    const child = spawnCli(sandbox, ["run", "demo", "scripts/hostile.py", "--yes"]);
    let out = "";
    let err = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      err += chunk.toString();
    });
    const code = await new Promise((resolve) => child.on("close", resolve));
    expect(code).toBe(0);
    expect(out).toBe(
      "T\u001b]0;pwned\u0007 C\u001b]52;c;ZXZpbA==\u0007 X\u001b[2J\u001b[H R\rS \u009b2J end\n",
    );
    expect(err).toBe("E\u001b]2;title\u001b\\ done\n");
  });

  it("--json at a terminal carries the same text, its controls JSON-escaped, never raw", async () => {
    const sandbox = hostileSandbox();
    const result = await collect(
      spawnCli(sandbox, ["run", "demo", "scripts/hostile.py", "--yes", "--json"], { tty: true }),
    );
    expect(result.code).toBe(0);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for control characters.
    expect(result.out.replace(/\r\n/g, "\n")).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    const printed = JSON.parse(result.out.slice(result.out.indexOf("{"))) as { text: string };
    expect(printed.text).toContain("T\u001b]0;pwned\u0007 C\u001b]52;c;ZXZpbA==\u0007");
  });
});

describe("skillgate run says how a sandboxed run was limited", () => {
  const variable = "SKILLGATE_CGROUP_V2_PARENT";
  const saved = process.env[variable];
  afterEach(() => {
    if (saved === undefined) delete process.env[variable];
    else process.env[variable] = saved;
  });

  it("warns on stderr, even into a pipe, when the run's cgroup could not be made; --json carries the limits", async () => {
    const sandbox = cliSandbox();
    writeRunSkill(sandbox, "boxed", "sandbox", { "scripts/ok.py": "print('ok')\n" });
    const notAFolder = join(sandbox.tree, "not-a-folder");
    writeFileSync(notAFolder, "");
    process.env[variable] = notAFolder;
    const result = await sandbox.run(["run", "boxed", "scripts/ok.py", "--yes"]);
    expect(result.out).toBe("ok\n");
    expect(result.err).toContain(
      `skillgate: warning: this run's cgroup could not be made (the controllers could not be enabled in ${notAFolder} (ENOTDIR)), so it was limited by rlimits only. Limits: processes 256 (rlimit); memory 1073741824 (rlimit); cpus 2 (not enforced);`,
    );
    expect(result.code).toBe(0);
    const json = await sandbox.run(["run", "boxed", "scripts/ok.py", "--yes", "--json"]);
    const printed = JSON.parse(json.out) as { run: { limits: { cgroup: { failed: boolean } } } };
    expect(printed.run.limits.cgroup.failed).toBe(true);
  });

  it("on a terminal (a real pseudo-terminal), prints what enforced each limit after the run", async () => {
    delete process.env[variable];
    const sandbox = cliSandbox();
    writeRunSkill(sandbox, "boxed", "sandbox", { "scripts/ok.py": "print('ok')\n" });
    const result = await collect(
      spawnCli(sandbox, ["run", "boxed", "scripts/ok.py", "--yes"], { tty: true }),
    );
    expect(result.code).toBe(0);
    expect(result.out).toMatch(
      /skillgate: limits: processes 256 \((cgroup-v[12], )?rlimit\); memory 1073741824 \((cgroup-v[12], )?rlimit\); cpus 2 \(.*\); file 67108864 \(rlimit\); tmp 134217728 \(tmpfs\); time-ms \d+ \(timer\); output \d+ \(output-cap\); (cgroup v[12] \(|no cgroup)/,
    );
  });

  it("says nothing more into a pipe when the cgroup was made (or the host has none)", async () => {
    delete process.env[variable];
    const sandbox = cliSandbox();
    writeRunSkill(sandbox, "boxed", "sandbox", { "scripts/ok.py": "print('ok')\n" });
    const result = await sandbox.run(["run", "boxed", "scripts/ok.py", "--yes"]);
    expect(result.out).toBe("ok\n");
    expect(result.err).toBe("");
  });
});
