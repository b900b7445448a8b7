import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeTree } from "../../src/core/remove-tree.js";
import { resolveInterpreter } from "../../src/runners/interpreters/resolve-interpreter.js";
import { LocalRunner } from "../../src/runners/local-runner.js";
import { RunnerRouter } from "../../src/runners/router.js";
import { interpreterHealth } from "../../src/runners/sandbox/interpreter-health.js";
import { SandboxRunner } from "../../src/runners/sandbox/sandbox-runner.js";
import { SnapshotStore } from "../../src/runners/snapshot.js";
import { requestFor, writeSkillFolder } from "./helpers.js";
import { expectStatus, requireBubblewrap, temporaryFolder } from "./sandbox/harness.js";

/**
 * Interpreters found as the user's shell finds them (docs/running-scripts.md, "Interpreters"):
 * a real venv made with Debian's python3, and fake shims on a private PATH that exec a real
 * interpreter, the way pyenv's and asdf's do.
 */

const SYSTEM_PATH = "/usr/bin:/bin";

/** A venv with --system-site-packages and one module of its own, in a folder the sandbox user may enter. */
let venv: string;
let venvRoot: string | undefined;

afterAll(() => {
  if (venvRoot !== undefined) removeTree(venvRoot);
});

beforeAll(() => {
  requireBubblewrap();
  // Kept for the whole file (the harness's folders go after each test), open to the sandbox user.
  const root = realpathSync(mkdtempSync(join(tmpdir(), "skillgate-venv-")));
  chmodSync(root, 0o755);
  venvRoot = root;
  venv = join(root, "venv");
  execFileSync("/usr/bin/python3", ["-m", "venv", "--system-site-packages", "--without-pip", venv]);
  const lib = join(venv, "lib");
  const site = join(lib, readdirSync(lib)[0] ?? "", "site-packages");
  writeFileSync(join(site, "venvonly.py"), "VALUE = 'from the venv'\n");
});

/** A shim in its own bin folder: counts each time it runs, then execs `target`. */
function writeShim(program: string, target: string): { bin: string; shim: string; calls: () => number } {
  const root = temporaryFolder("skillgate-shim-");
  const bin = join(root, "bin");
  mkdirSync(bin);
  const shim = join(bin, program);
  const counter = join(root, "calls");
  writeFileSync(shim, `#!/bin/sh\necho run >> ${counter}\nexec ${target} "$@"\n`);
  chmodSync(shim, 0o755);
  return {
    bin,
    shim,
    calls: () => (existsSync(counter) ? readFileSync(counter, "utf8").split("\n").length - 1 : 0),
  };
}

/** A fake interpreter that answers the question with `answer` (a line of its stdout, without single quotes). */
function fakeInterpreter(answer: string | ((bin: string) => string)): string {
  const bin = join(temporaryFolder("skillgate-fake-"), "bin");
  mkdirSync(bin);
  const text = typeof answer === "string" ? answer : answer(bin);
  writeFileSync(join(bin, "python3"), `#!/bin/sh\nprintf '%s\\n' '${text}'\n`);
  chmodSync(join(bin, "python3"), 0o755);
  return bin;
}

/** A router with a sandbox and a trusting local runner that find interpreters on `searchPath`. */
function runners(searchPath: string, configured: { python?: string } = {}) {
  const root = temporaryFolder("skillgate-interp-run-");
  const data = join(root, "data");
  const snapshots = new SnapshotStore({ dataFolder: data });
  const languages = { searchPath, configuredInterpreters: () => configured };
  const sandbox = new SandboxRunner({ snapshots, languages, prestart: false });
  const local = new LocalRunner({ dataFolder: data, snapshots, isTrusted: () => true, languages });
  return {
    root,
    data,
    skills: join(root, "skills"),
    router: new RunnerRouter({ snapshots, runners: { sandbox, local } }),
  };
}

const WHERE = `import json, shutil, sys
import venvonly, yaml
print(json.dumps({"executable": sys.executable, "prefix": sys.prefix, "base": sys.base_prefix, "value": venvonly.VALUE, "yaml": yaml.__name__, "python3": shutil.which("python3")}))
`;

describe("interpreter resolution", () => {
  it("a shim on PATH is asked once where its interpreter is, and again when the shim changes", () => {
    const { bin, shim, calls } = writeShim("python3", "/usr/bin/python3");
    const first = resolveInterpreter("python3", { searchPath: `${bin}:${SYSTEM_PATH}` });
    if (!first.ok) throw new Error(first.problem);
    expect(first.interpreter).toMatchObject({
      found: shim,
      source: "path",
      executable: "/usr/bin/python3",
      viaShim: true,
      prefix: "/usr",
      mounts: [],
    });
    expect(calls()).toBe(1);
    expect(resolveInterpreter("python3", { searchPath: `${bin}:${SYSTEM_PATH}` })).toEqual(first);
    expect(calls()).toBe(1);
    writeFileSync(shim, `${readFileSync(shim, "utf8")}# upgraded\n`);
    expect(resolveInterpreter("python3", { searchPath: `${bin}:${SYSTEM_PATH}` }).ok).toBe(true);
    expect(calls()).toBe(2);
  });

  it("is asked again when the program it named is gone, and a failure is not kept", () => {
    const root = temporaryFolder("skillgate-gone-");
    const bin = join(root, "bin");
    mkdirSync(bin);
    const real = join(bin, "python3.99");
    const counter = join(root, "calls");
    writeFileSync(
      join(bin, "python3"),
      `#!/bin/sh\necho run >> ${counter}\nprintf '%s\\n' '${JSON.stringify({ executable: real, prefix: root, base_prefix: root })}'\n`,
    );
    chmodSync(join(bin, "python3"), 0o755);
    writeFileSync(real, "");
    const calls = () => readFileSync(counter, "utf8").split("\n").length - 1;
    expect(resolveInterpreter("python3", { searchPath: bin }).ok).toBe(true);
    expect(resolveInterpreter("python3", { searchPath: bin }).ok).toBe(true);
    expect(calls()).toBe(1);
    rmSync(real);
    expect(resolveInterpreter("python3", { searchPath: bin })).toEqual({
      ok: false,
      problem: `${join(bin, "python3")} runs ${real}, which does not exist`,
    });
    expect(calls()).toBe(2);
    writeFileSync(real, "");
    expect(resolveInterpreter("python3", { searchPath: bin }).ok).toBe(true);
    expect(calls()).toBe(3);
  });

  it("package folders outside the prefix (as Homebrew keeps them) are bound too; missing ones are left out", () => {
    const prefix = temporaryFolder("skillgate-brew-prefix-");
    const packages = temporaryFolder("skillgate-brew-site-");
    const bin = join(prefix, "bin");
    mkdirSync(bin);
    writeFileSync(join(bin, "python3.99"), "");
    writeFileSync(
      join(bin, "python3"),
      `#!/bin/sh\nprintf '%s\\n' '${JSON.stringify({ executable: join(bin, "python3.99"), prefix, base_prefix: prefix, site: [join(prefix, "lib"), packages, join(packages, "never-made"), "/usr/lib/python3/dist-packages"] })}'\n`,
    );
    chmodSync(join(bin, "python3"), 0o755);
    const resolved = resolveInterpreter("python3", { searchPath: bin });
    if (!resolved.ok) throw new Error(resolved.problem);
    expect(resolved.interpreter.mounts).toEqual([
      { source: prefix, target: prefix },
      { source: packages, target: packages },
    ]);
  });

  it("node behind a shim is its process.execPath", () => {
    const { bin, shim } = writeShim("node", "/usr/bin/node");
    const resolved = resolveInterpreter("node", { searchPath: `${bin}:${SYSTEM_PATH}` });
    if (!resolved.ok) throw new Error(resolved.problem);
    expect(resolved.interpreter).toMatchObject({ found: shim, executable: "/usr/bin/node", viaShim: true });
    expect(resolved.interpreter.version).toMatch(/^v\d+\./);
  });

  it("a venv first on PATH runs as its own bin/python3, with the venv bound and its base prefix /usr", () => {
    const resolved = resolveInterpreter("python3", { searchPath: `${join(venv, "bin")}:${SYSTEM_PATH}` });
    if (!resolved.ok) throw new Error(resolved.problem);
    expect(resolved.interpreter).toMatchObject({
      executable: join(venv, "bin", "python3"),
      prefix: venv,
      basePrefix: "/usr",
      mounts: [{ source: venv, target: venv }],
    });
    expect(resolved.interpreter.mountProblem).toBeUndefined();
  });

  it("a configured path wins over PATH; one that is not an executable file is a problem", () => {
    const python = join(venv, "bin", "python");
    const configured = resolveInterpreter("python3", { searchPath: SYSTEM_PATH, configured: { python } });
    if (!configured.ok) throw new Error(configured.problem);
    expect(configured.interpreter).toMatchObject({ found: python, source: "config", prefix: venv });
    expect(
      resolveInterpreter("python3", {
        searchPath: SYSTEM_PATH,
        configured: { python: join(venv, "pyvenv.cfg") },
      }),
    ).toEqual({
      ok: false,
      problem: `runners.interpreters.python names ${join(venv, "pyvenv.cfg")}, which is not an executable file`,
    });
  });

  it("no interpreter on PATH is a problem that names the config key", () => {
    const empty = temporaryFolder("skillgate-empty-bin-");
    expect(resolveInterpreter("python3", { searchPath: empty })).toEqual({
      ok: false,
      problem: "python3 is not on this host's PATH (nor configured in runners.interpreters.python)",
    });
  });
});

describe("hostile interpreter answers", () => {
  /** A file outside the fake interpreter's prefix, made when the case runs. */
  const outsideFile = (): string => {
    const file = join(temporaryFolder("skillgate-outside-"), "python3");
    writeFileSync(file, "");
    return file;
  };
  const cases: Array<[string, (bin: string) => string, RegExp]> = [
    [
      "a prefix of /",
      (bin) => JSON.stringify({ executable: join(bin, "python3"), prefix: "/", base_prefix: "/" }),
      /lives in \/, which is not bound into the sandbox because a top-level folder is too broad/,
    ],
    [
      "a prefix in /etc",
      (bin) =>
        JSON.stringify({ executable: join(bin, "python3"), prefix: "/etc/ssl", base_prefix: "/etc/ssl" }),
      /lives in \/etc\/ssl, which is not bound into the sandbox because \/etc is the host's or the sandbox's own/,
    ],
    [
      "a prefix holding the home folder",
      (bin) =>
        JSON.stringify({
          executable: join(bin, "python3"),
          prefix: process.env.HOME,
          base_prefix: process.env.HOME,
        }),
      /which is not bound into the sandbox because it holds/,
    ],
    [
      "a package folder in /etc",
      (bin) =>
        JSON.stringify({
          executable: join(bin, "python3"),
          prefix: join(bin, ".."),
          base_prefix: join(bin, ".."),
          site: ["/etc/ssl"],
        }),
      /keeps packages in \/etc\/ssl, which is not bound into the sandbox because \/etc is the host's or the sandbox's own/,
    ],
    [
      "a program outside its prefix",
      (bin) =>
        JSON.stringify({ executable: outsideFile(), prefix: join(bin, ".."), base_prefix: join(bin, "..") }),
      /which is outside its prefix/,
    ],
  ];
  it.each(cases)(
    "%s: refused by the sandbox (interpreter_unreachable), nothing written",
    async (_name, answer, problem) => {
      const bin = fakeInterpreter(answer);
      const resolved = resolveInterpreter("python3", { searchPath: bin });
      if (!resolved.ok) throw new Error(resolved.problem);
      expect(resolved.interpreter.mountProblem).toMatch(problem);
      expect(resolved.interpreter.mounts).toEqual([]);
      const { router, skills, data } = runners(bin);
      const folder = writeSkillFolder(skills, "hostile", { "scripts/x.py": "print(1)\n" });
      const result = await router.run(requestFor(folder, "scripts/x.py", { execution: "sandbox" }));
      expect(result.code).toBe("interpreter_unreachable");
      expect(result.message).toMatch(
        /^HOST: scripts\/x\.py would run with .*, but the sandbox cannot show it: /,
      );
      expect(existsSync(join(data, "runs", "snapshots"))).toBe(false);
    },
  );

  it.each([
    ["not JSON", "hello", "gave an answer that is not the expected JSON"],
    [
      "a relative program",
      JSON.stringify({ executable: "python3", prefix: "/usr" }),
      'did not say where its program is (it answered "python3")',
    ],
    ["no program", JSON.stringify({ prefix: "/usr" }), 'did not say where its program is (it answered "")'],
    [
      "a missing program",
      JSON.stringify({ executable: "/nonexistent/python3", prefix: "/usr" }),
      "runs /nonexistent/python3, which does not exist",
    ],
  ])("an answer with %s is language_unavailable, nothing written", async (_name, answer, problem) => {
    const bin = fakeInterpreter(answer);
    const resolved = resolveInterpreter("python3", { searchPath: bin });
    expect(resolved).toEqual({ ok: false, problem: expect.stringContaining(problem) });
    const { router, skills, data } = runners(bin);
    const folder = writeSkillFolder(skills, "hostile", { "scripts/x.py": "print(1)\n" });
    for (const execution of ["sandbox", "local"] as const) {
      const result = await router.run(requestFor(folder, "scripts/x.py", { execution }));
      expect(result.code, execution).toBe("language_unavailable");
      expect(result.message, execution).toContain(problem);
    }
    expect(existsSync(join(data, "runs", "snapshots"))).toBe(false);
  });
});

describe("interpreters in the sandbox and the local runner", () => {
  it("a venv's own and system packages import in the sandbox, as they do in the local runner", async () => {
    const { router, skills } = runners(`${join(venv, "bin")}:${SYSTEM_PATH}`);
    const folder = writeSkillFolder(skills, "venv-skill", { "scripts/where.py": WHERE });
    const sandboxed = await router.run(requestFor(folder, "scripts/where.py", { execution: "sandbox" }));
    expectStatus(sandboxed, "ok");
    const expected = {
      executable: join(venv, "bin", "python3"),
      prefix: venv,
      base: "/usr",
      value: "from the venv",
      yaml: "yaml",
      python3: join(venv, "bin", "python3"),
    };
    expect(JSON.parse(sandboxed.stdout)).toEqual(expected);
    const local = await router.run(requestFor(folder, "scripts/where.py", { execution: "local" }));
    expectStatus(local, "ok");
    expect(JSON.parse(local.stdout)).toEqual(expected);
  });

  it("the venv is read-only in the sandbox, and nothing else of its folder is visible", async () => {
    const { router, skills } = runners(`${join(venv, "bin")}:${SYSTEM_PATH}`);
    writeFileSync(join(venv, "..", "beside-the-venv.txt"), "secret\n");
    const folder = writeSkillFolder(skills, "venv-write", {
      "scripts/write.py": [
        "import os, sys",
        "try:",
        "    open(os.path.join(sys.prefix, 'planted.txt'), 'w')",
        "    print('written')",
        "except OSError as error:",
        "    print(error.errno == 30)",
        "print(os.path.exists(os.path.join(sys.prefix, '..', 'beside-the-venv.txt')))",
        "",
      ].join("\n"),
    });
    const result = await router.run(requestFor(folder, "scripts/write.py", { execution: "sandbox" }));
    expectStatus(result, "ok");
    expect(result.stdout).toBe("True\nFalse\n");
    expect(existsSync(join(venv, "planted.txt"))).toBe(false);
  });

  it("a shim on a private PATH runs the real interpreter in the sandbox; the shim itself is not there", async () => {
    const { bin, shim } = writeShim("python3", "/usr/bin/python3");
    const { router, skills } = runners(`${bin}:${SYSTEM_PATH}`);
    const folder = writeSkillFolder(skills, "shimmed", {
      "scripts/who.py": `import os, sys\nprint(sys.executable, os.path.exists(${JSON.stringify(shim)}))\n`,
    });
    const result = await router.run(requestFor(folder, "scripts/who.py", { execution: "sandbox" }));
    expectStatus(result, "ok");
    expect(result.stdout).toBe("/usr/bin/python3 False\n");
  });

  it("the configured interpreter runs instead of the one on PATH", async () => {
    const { router, skills } = runners(SYSTEM_PATH, { python: join(venv, "bin", "python3") });
    const folder = writeSkillFolder(skills, "configured", { "scripts/where.py": WHERE });
    const result = await router.run(requestFor(folder, "scripts/where.py", { execution: "sandbox" }));
    expectStatus(result, "ok");
    expect(JSON.parse(result.stdout)).toMatchObject({ prefix: venv, value: "from the venv" });
  });

  it.runIf(process.getuid?.() === 0)(
    "as root, a venv inside a 0700 folder is bound through the portal, read-only, and nothing beside it is visible",
    async () => {
      // Outside /tmp, as root's own home is: the sandbox's /tmp is its own.
      const closed = mkdtempSync(join("/var/tmp", "skillgate-closed-"));
      chmodSync(closed, 0o700);
      const hidden = join(closed, "venv");
      execFileSync("/usr/bin/python3", ["-m", "venv", "--without-pip", hidden]);
      writeFileSync(join(closed, "beside.txt"), "private\n");
      const { router, skills } = runners(`${join(hidden, "bin")}:${SYSTEM_PATH}`);
      const folder = writeSkillFolder(skills, "closed", {
        "scripts/x.py": [
          "import os, sys",
          `beside = os.path.exists(${JSON.stringify(join(closed, "beside.txt"))})`,
          "try:",
          `    open(${JSON.stringify(join(hidden, "written"))}, "w")`,
          "    wrote = True",
          "except OSError:",
          "    wrote = False",
          "print(sys.prefix, beside, wrote)",
        ].join("\n"),
      });
      try {
        const result = await router.run(requestFor(folder, "scripts/x.py", { execution: "sandbox" }));
        expectStatus(result, "ok");
        expect(result.stdout).toBe(`${hidden} False False\n`);
        const health = interpreterHealth({ searchPath: `${join(hidden, "bin")}:${SYSTEM_PATH}` });
        expect(health[0]).toMatchObject({
          program: "python3",
          ok: true,
          mounts: [{ source: hidden, target: hidden, reachable: true, throughPortal: true }],
        });
      } finally {
        removeTree(closed);
      }
    },
  );

  it.runIf(process.getuid?.() === 0)(
    "as root, a venv in a 0700 folder under /tmp (the sandbox's own) is refused with interpreter_unreachable, not a bubblewrap error",
    async () => {
      const closed = temporaryFolder("skillgate-closed-", 0o700);
      const hidden = join(closed, "venv");
      execFileSync("/usr/bin/python3", ["-m", "venv", "--without-pip", hidden]);
      const { router, skills, data } = runners(`${join(hidden, "bin")}:${SYSTEM_PATH}`);
      const folder = writeSkillFolder(skills, "closed", { "scripts/x.py": "print(1)\n" });
      const result = await router.run(requestFor(folder, "scripts/x.py", { execution: "sandbox" }));
      expect(result.code).toBe("interpreter_unreachable");
      expect(result.message).toBe(
        `HOST: scripts/x.py would run with ${join(hidden, "bin", "python3")}, but the sandbox cannot show it: its folder ${hidden} is inside a folder the sandbox user (uid 65534) cannot enter, so it did not run. ` +
          "The host's owner makes that folder readable by others (o+rx on it, o+x on the folders above), installs the interpreter where others can read it (/usr/local, /opt), or sets runners.interpreters in config.yaml to one that is (e.g. /usr/bin/python3); skillgate doctor shows each interpreter and its mounts. [interpreter_unreachable]",
      );
      expect(readdirSync(join(data, "runs", "snapshots")).length).toBeLessThanOrEqual(1);
      const health = interpreterHealth({ searchPath: `${join(hidden, "bin")}:${SYSTEM_PATH}` });
      expect(health[0]).toMatchObject({
        program: "python3",
        ok: false,
        mounts: [{ source: hidden, target: hidden, reachable: false }],
      });
      expect(health[0]?.problem).toContain("cannot enter");
    },
  );

  it("interpreterHealth shows the venv's mount as reachable", () => {
    const health = interpreterHealth({ searchPath: `${join(venv, "bin")}:${SYSTEM_PATH}` });
    expect(health.map((entry) => entry.languages)).toEqual([["python"], ["node", "typescript"], ["bash"]]);
    expect(health[0]).toMatchObject({
      ok: true,
      executable: join(venv, "bin", "python3"),
      basePrefix: "/usr",
      mounts: [{ source: venv, target: venv, reachable: true }],
    });
  });
});
