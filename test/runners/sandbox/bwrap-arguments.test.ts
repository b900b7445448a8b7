import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import {
  type BwrapRun,
  type BwrapShape,
  bwrapCommandLine,
  bwrapRunArguments,
  encodeArguments,
  LAUNCHER_SCRIPT,
  launcherName,
  proxyBridgeScript,
  runCommand,
} from "../../../src/runners/sandbox/bwrap-arguments.js";
import { parseBwrapFeatures, shellIsDash } from "../../../src/runners/sandbox/host-tools.js";
import {
  launchCommand,
  PORTAL_SCRIPT,
  portalSources,
  portalTargets,
} from "../../../src/runners/sandbox/launcher.js";
import {
  DEFAULT_SANDBOX_RESOURCES,
  dashUlimitPairs,
  prlimitOptions,
} from "../../../src/runners/sandbox/limits.js";

const HELP = [
  "--args FD",
  "--unshare-all",
  "--unshare-user",
  "--disable-userns",
  "--die-with-parent",
  "--new-session",
  "--cap-drop CAP",
  "--seccomp FD",
  "--ro-bind-data FD DEST",
  "--remount-ro DEST",
  "--size BYTES",
  "--json-status-fd FD",
  "--perms OCTAL",
  "--block-fd FD",
  "--clearenv",
  "--setenv VAR VALUE",
].join("\n");

const FEATURES = parseBwrapFeatures("bubblewrap 0.8.0", HELP);

function shape(overrides: Partial<BwrapShape> = {}): BwrapShape {
  return {
    features: FEATURES,
    rootEntries: [
      { kind: "symlink", path: "/lib", target: "usr/lib" },
      { kind: "bind", path: "/lib64" },
    ],
    tmpBytes: DEFAULT_SANDBOX_RESOURCES.tmpBytes,
    shell: "/usr/bin/sh",
    ...overrides,
  };
}

function run(overrides: Partial<BwrapRun> = {}): BwrapRun {
  return {
    env: { PATH: "/usr/bin", SKILLGATE_SKILL_ARGS: '{"a":1}' },
    skillSource: "/snapshots/abc",
    alternatives: false,
    resources: DEFAULT_SANDBOX_RESOURCES,
    prlimit: "/usr/bin/prlimit",
    shell: "/usr/bin/sh",
    socat: "/usr/bin/socat",
    command: ["/usr/bin/python3", "-B"],
    scriptInside: "/skill/scripts/run.py",
    interpreter: "other",
    ...overrides,
  };
}

/**
 * What bubblewrap parses: its command line with the run's arguments read at `--args 9`,
 * up to `--`; and the command the launcher rebuilds from the environment.
 */
function effective(
  shapeOverrides: Partial<BwrapShape> = {},
  runOverrides: Partial<BwrapRun> = {},
): { options: string[]; command: string[]; env: Map<string, string> } {
  const line = bwrapCommandLine(shape(shapeOverrides), "abc123");
  const at = line.indexOf("--args");
  const data = bwrapRunArguments(run(runOverrides), true);
  // The command line's own `--` ends the options (the data holds `--` only as values).
  const rest = line.slice(at + 2);
  const options = [...line.slice(0, at), ...data, ...rest.slice(0, rest.indexOf("--"))];
  const env = new Map<string, string>();
  for (let index = 0; index < data.length; index += 1)
    if (data[index] === "--setenv") env.set(data[index + 1] ?? "", data[index + 2] ?? "");
  const count = Number(env.get("SKILLGATE_ARGC"));
  const command = Array.from({ length: count }, (_, index) => env.get(`SKILLGATE_ARG_${index}`) ?? "");
  return { options, command, env };
}

describe("bubblewrap's arguments", () => {
  it("unshares everything, drops to 65534, disables nested user namespaces and drops every capability", () => {
    const { options } = effective();
    for (const flag of [
      "--unshare-all",
      "--unshare-user",
      "--disable-userns",
      "--die-with-parent",
      "--new-session",
    ])
      expect(options).toContain(flag);
    expect(options.join(" ")).toContain("--uid 65534 --gid 65534");
    expect(options.join(" ")).toContain("--cap-drop ALL");
    expect(options).not.toContain("--share-net");
  });

  it("keeps every hardening option on the command line, fixed before the run is known", () => {
    const line = bwrapCommandLine(shape(), "abc123");
    const before = line.slice(0, line.indexOf("--args"));
    for (const flag of [
      "--unshare-all",
      "--disable-userns",
      "--die-with-parent",
      "--new-session",
      "--seccomp",
    ])
      expect(before).toContain(flag);
    expect(before.join(" ")).toContain("--cap-drop ALL");
    expect(line.slice(line.indexOf("--args"))).toEqual([
      "--args",
      "9",
      "--setenv",
      "SKILLGATE_RUN_ID",
      "abc123",
      "--remount-ro",
      "/",
      "--",
      "/usr/bin/sh",
      "-c",
      LAUNCHER_SCRIPT,
      launcherName("abc123"),
    ]);
  });

  it("lets a launcher that is dash set the limits: no prlimit in its command", () => {
    const data = bwrapRunArguments(run({ shellLimits: true }), true);
    const env = new Map<string, string>();
    for (let index = 0; index < data.length; index += 1)
      if (data[index] === "--setenv") env.set(data[index + 1] ?? "", data[index + 2] ?? "");
    expect(env.get("SKILLGATE_LIMITS")).toBe("p 256 v 1048576 f 131072 c 0");
    expect(env.get("SKILLGATE_ARGC")).toBe("3");
    expect([0, 1, 2].map((index) => env.get(`SKILLGATE_ARG_${index}`))).toEqual([
      "/usr/bin/python3",
      "-B",
      "/skill/scripts/run.py",
    ]);
    // A chain for a known run has no launcher: prlimit stays.
    expect(runCommand(run({ shellLimits: true }))[0]).toBe("/usr/bin/prlimit");
    expect(bwrapRunArguments(run({ shellLimits: true }), false)).not.toContain("SKILLGATE_LIMITS");
  });

  it("for a known run, puts its command on the command line and leaves the launcher out", () => {
    const command = runCommand(run());
    const line = bwrapCommandLine(shape(), "abc123", command);
    expect(line.slice(line.indexOf("--") + 1)).toEqual(command);
    expect(line).not.toContain(LAUNCHER_SCRIPT);
    const data = bwrapRunArguments(run(), false);
    expect(data.filter((arg) => arg.startsWith("SKILLGATE_ARG") || arg === "SKILLGATE_LAUNCH")).toEqual([]);
    expect(data.slice(-5)).toEqual(["--chdir", "/tmp", "--ro-bind", "/snapshots/abc", "/skill"]);
  });

  it("binds a workspace at its own path, read-only unless writable, and starts the script in it", () => {
    const readOnly = bwrapRunArguments(
      run({ workspace: { source: "/real/proj", path: "/home/u/proj", writable: false, readOnlyFiles: [] } }),
      false,
    );
    expect(readOnly.slice(-8, -3)).toEqual([
      "--ro-bind",
      "/real/proj",
      "/home/u/proj",
      "--chdir",
      "/home/u/proj",
    ]);
    expect(readOnly).not.toContain("--bind");
    const writable = bwrapRunArguments(
      run({
        workspace: {
          source: "/real/proj",
          path: "/home/u/proj",
          writable: true,
          readOnlyFiles: ["a/linked.txt"],
        },
      }),
      false,
    );
    expect(writable.slice(-11, -3)).toEqual([
      "--bind",
      "/real/proj",
      "/home/u/proj",
      "--ro-bind",
      "/real/proj/a/linked.txt",
      "/home/u/proj/a/linked.txt",
      "--chdir",
      "/home/u/proj",
    ]);
    // One working folder only: bubblewrap warns on a second --chdir.
    expect(writable.filter((arg) => arg === "--chdir")).toHaveLength(1);
    expect(bwrapCommandLine(shape(), "abc123")).not.toContain("--chdir");
  });

  it("binds an interpreter's folders read-only, at their real path and at the path it was reported with", () => {
    const data = bwrapRunArguments(
      run({
        interpreterMounts: [
          { source: "/opt/pythons/3.12", target: "/opt/pythons/3.12" },
          { source: "/opt/pythons/3.12", target: "/opt/python" },
        ],
      }),
      false,
    );
    const text = data.join(" ");
    expect(text).toContain(
      "--ro-bind /opt/pythons/3.12 /opt/pythons/3.12 --ro-bind /opt/pythons/3.12 /opt/python",
    );
    expect(data.indexOf("/opt/python")).toBeLessThan(data.indexOf("/skill"));
  });

  it("binds only read-only: no --bind, --dev-bind or --bind-try anywhere", () => {
    const { options } = effective(
      {},
      { proxySocketSource: "/run/proxy.sock", interpreterMounts: [{ source: "/opt/x", target: "/opt/x" }] },
    );
    for (const flag of ["--bind", "--bind-try", "--dev-bind", "--dev-bind-try", "--bind-fd"])
      expect(options, flag).not.toContain(flag);
  });

  it("shows /usr, the loader's links, a few /etc files, the snapshot at /skill; nothing of /home, /root or the rest of /etc", () => {
    const text = effective().options.join(" ");
    expect(text).toContain("--ro-bind /usr /usr");
    expect(text).toContain("--symlink usr/lib /lib");
    expect(text).toContain("--ro-bind /lib64 /lib64");
    expect(text).toContain("--ro-bind /snapshots/abc /skill");
    expect(text).toContain("--ro-bind-data 5 /etc/passwd");
    const mounts = text.replace(/--setenv \S+ \S+/g, "");
    expect(mounts).not.toMatch(/ \/(home|root|etc)( |$)/);
    expect(mounts).not.toContain("/etc/shadow");
    expect(mounts).not.toContain("/etc/alternatives");
    expect(effective({}, { alternatives: true }).options.join(" ")).toContain(
      "--ro-bind /etc/alternatives /etc/alternatives",
    );
  });

  it("caps /tmp before mounting it, makes /dev read-only and the root read-only after every mount", () => {
    const { options } = effective();
    const tmpfs = options.indexOf("/tmp", options.indexOf("--tmpfs"));
    expect(options.slice(tmpfs - 3, tmpfs + 1)).toEqual([
      "--size",
      String(DEFAULT_SANDBOX_RESOURCES.tmpBytes),
      "--tmpfs",
      "/tmp",
    ]);
    expect(options.join(" ")).toContain("--dev /dev --remount-ro /dev");
    expect(options.slice(-2)).toEqual(["--remount-ro", "/"]);
    const lastMount = Math.max(
      ...options.flatMap((arg, index) =>
        /^--(ro-bind|ro-bind-try|ro-bind-data|tmpfs|symlink|proc|dev)$/.test(arg) ? [index] : [],
      ),
    );
    expect(lastMount).toBeLessThan(options.length - 2);
  });

  it("holds the sandbox at its start only when asked to (a run joining cgroups)", () => {
    expect(effective().options).not.toContain("--block-fd");
    expect(effective({}, { block: true }).options.join(" ")).toContain("--block-fd 10");
  });

  it("leaves out what this bubblewrap cannot do rather than failing", () => {
    const old = parseBwrapFeatures(
      "bubblewrap 0.6.2",
      HELP.replace("--disable-userns", "").replace("--size BYTES", ""),
    );
    const { options } = effective({ features: old });
    expect(options).not.toContain("--disable-userns");
    expect(options).not.toContain("--size");
    expect(options).toContain("--tmpfs");
  });

  it("sets the script's whole environment after clearing bubblewrap's, or leaves it to the spawn", () => {
    const data = bwrapRunArguments(run(), true);
    expect(data.slice(0, 7)).toEqual([
      "--clearenv",
      "--setenv",
      "PATH",
      "/usr/bin",
      "--setenv",
      "SKILLGATE_SKILL_ARGS",
      '{"a":1}',
    ]);
    // The run id is set after the run's --clearenv, on the command line.
    const { options } = effective();
    expect(options.join(" ")).toMatch(/--setenv SKILLGATE_RUN_ID abc123 --remount-ro \/$/);
    expect(options.indexOf("SKILLGATE_RUN_ID")).toBeGreaterThan(options.indexOf("--clearenv"));
    const { env, ...withoutEnv } = run();
    expect(bwrapRunArguments(withoutEnv, true)).not.toContain("--clearenv");
  });

  it("gives the launcher the command through prlimit with every cap set hard, Node with more address space, and its mark last", () => {
    const { command } = effective();
    expect(command).toEqual([
      "/usr/bin/prlimit",
      ...prlimitOptions(DEFAULT_SANDBOX_RESOURCES, "other"),
      "--",
      "/usr/bin/python3",
      "-B",
      "/skill/scripts/run.py",
    ]);
    expect(prlimitOptions(DEFAULT_SANDBOX_RESOURCES, "other")).toEqual([
      "--nproc=256:256",
      "--as=1073741824:1073741824",
      "--fsize=67108864:67108864",
      "--core=0:0",
    ]);
    expect(prlimitOptions(DEFAULT_SANDBOX_RESOURCES, "node")).toContain("--as=2147483648:2147483648");
    expect(bwrapRunArguments(run(), true).slice(-3)).toEqual(["--setenv", "SKILLGATE_LAUNCH", "complete"]);
  });

  it("with a proxy, binds the socket and starts the bridge before the script", () => {
    const { options, command } = effective({}, { proxySocketSource: "/run/skillgate/proxy.sock" });
    expect(options.join(" ")).toContain("--ro-bind /run/skillgate/proxy.sock /proxy.sock");
    const shell = command.indexOf("/usr/bin/sh");
    expect(command.slice(shell, shell + 2)).toEqual(["/usr/bin/sh", "-c"]);
    expect(command[shell + 2]).toContain(
      "/usr/bin/socat TCP-LISTEN:3128,bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:/proxy.sock",
    );
    expect(command.slice(-3)).toEqual(["/usr/bin/python3", "-B", "/skill/scripts/run.py"]);
  });

  it("the bridge and launcher scripts are valid POSIX shell", () => {
    for (const script of [proxyBridgeScript("/usr/bin/socat"), LAUNCHER_SCRIPT]) {
      const check = spawnSync("/bin/sh", ["-n", "-c", script], { encoding: "utf8" });
      expect(check.stderr).toBe("");
      expect(check.status).toBe(0);
    }
  });

  it("encodes each argument ended by a NUL, and refuses an argument holding one (it would inject options)", () => {
    expect(encodeArguments(["--setenv", "A", ""]).toString("utf8")).toBe("--setenv\0A\0\0");
    expect(() => encodeArguments(["--setenv", "A", "x\0--bind\0/\0/host"])).toThrow(/NUL/);
  });
});

describe("the launcher", () => {
  const launch = (env: Record<string, string>) =>
    spawnSync("/bin/sh", ["-c", LAUNCHER_SCRIPT, launcherName("abc123")], { env, encoding: "utf8" });
  const commandEnv = (command: string[]): Record<string, string> => ({
    SKILLGATE_ARGC: String(command.length),
    ...Object.fromEntries(command.map((part, index) => [`SKILLGATE_ARG_${index}`, part])),
    SKILLGATE_LAUNCH: "complete",
  });

  it("becomes the command with its arguments exactly, and leaves none of its variables behind", () => {
    const awkward = ["", " two  spaces ", "$(id) `id` \"quoted\" \\ 'single'", "line\nbreak", "*"];
    const result = launch({ KEEP: "kept", ...commandEnv(["/usr/bin/printf", "[%s]\n", ...awkward]) });
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(awkward.map((part) => `[${part}]\n`).join(""));
    const env = launch({ KEEP: "kept", SKILLGATE_LIMITS: "c 0", ...commandEnv(["/usr/bin/env"]) });
    expect(env.stdout.split("\n").filter((line) => line.startsWith("SKILLGATE_"))).toEqual([]);
    expect(env.stdout).toContain("KEEP=kept\n");
  });

  it("sets the limits it is given with dash's ulimit, soft and hard alike, and refuses anything but letters and numbers", () => {
    if (!shellIsDash("/bin/sh")) return;
    const limits = dashUlimitPairs(DEFAULT_SANDBOX_RESOURCES, "node");
    expect(limits).toBe("p 256 v 2097152 f 131072 c 0");
    const result = launch({ SKILLGATE_LIMITS: limits, ...commandEnv(["/usr/bin/cat", "/proc/self/limits"]) });
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/Max processes\s+256\s+256 /);
    expect(result.stdout).toMatch(/Max address space\s+2147483648\s+2147483648 /);
    expect(result.stdout).toMatch(/Max file size\s+67108864\s+67108864 /);
    expect(result.stdout).toMatch(/Max core file size\s+0\s+0 /);
    for (const bad of ["p 256; id", "p $(id)", "x 1", "v 1e+30"]) {
      const refused = launch({ SKILLGATE_LIMITS: bad, ...commandEnv(["/usr/bin/echo", "ran"]) });
      expect(refused.status, bad).toBe(125);
      expect(refused.stdout).toBe("");
    }
  });

  it("runs nothing unless its arguments arrived whole (125)", () => {
    const whole = commandEnv(["/usr/bin/echo", "ran"]);
    const { SKILLGATE_LAUNCH, ...unmarked } = whole;
    const { SKILLGATE_ARG_1, ...gap } = whole;
    for (const env of [
      {},
      unmarked,
      { ...whole, SKILLGATE_LAUNCH: "complet" },
      gap,
      { ...whole, SKILLGATE_ARGC: "2x" },
    ]) {
      const result = launch(env);
      expect(result.status).toBe(125);
      expect(result.stdout).toBe("");
    }
    expect(launch(unmarked).stderr).toContain("HOST: the sandbox's launch arguments were incomplete");
    expect(launch({ ...whole, SKILLGATE_ARGC: "0" }).status).toBe(125);
  });
});

describe("launchCommand", () => {
  const base = {
    bwrap: "/usr/bin/bwrap",
    bwrapArguments: ["--unshare-all", "--", "/usr/bin/true"],
  };

  it("is bubblewrap alone when nothing is needed before it", () => {
    expect(launchCommand(base)).toEqual(["/usr/bin/bwrap", "--unshare-all", "--", "/usr/bin/true"]);
  });

  it("as root, drops to 65534 with no groups, capabilities or new privileges first", () => {
    expect(launchCommand({ ...base, setpriv: "/usr/bin/setpriv", dropRoot: true }).slice(0, 9)).toEqual([
      "/usr/bin/setpriv",
      "--reuid=65534",
      "--regid=65534",
      "--clear-groups",
      "--inh-caps=-all",
      "--bounding-set=-all",
      "--no-new-privs",
      "--",
      "/usr/bin/bwrap",
    ]);
    expect(launchCommand({ ...base, setpriv: "/usr/bin/setpriv" })[0]).toBe("/usr/bin/bwrap");
  });

  it("dies with this process when asked, as root or not", () => {
    const root = launchCommand({ ...base, setpriv: "/usr/bin/setpriv", dropRoot: true, deathSignal: true });
    expect(root.slice(6, 10)).toEqual(["--no-new-privs", "--pdeathsig", "SIGKILL", "--"]);
    expect(launchCommand({ ...base, setpriv: "/usr/bin/setpriv", deathSignal: true }).slice(0, 5)).toEqual([
      "/usr/bin/setpriv",
      "--pdeathsig",
      "SIGKILL",
      "--",
      "/usr/bin/bwrap",
    ]);
  });

  const portal = {
    unshare: "/usr/bin/unshare",
    mount: "/usr/bin/mount",
    shell: "/usr/bin/sh",
    folder: "/tmp/portal",
  };

  it("binds the portal in a private mount namespace, dying with this process from the start", () => {
    const argv = launchCommand({
      ...base,
      setpriv: "/usr/bin/setpriv",
      dropRoot: true,
      deathSignal: true,
      portal,
    });
    expect(argv.slice(0, 4)).toEqual(["/usr/bin/setpriv", "--pdeathsig", "SIGKILL", "--"]);
    expect(argv.slice(4, 9)).toEqual(["/usr/bin/unshare", "--mount", "--propagation", "private", "--"]);
    expect(argv.slice(9, 16)).toEqual([
      "/usr/bin/sh",
      "-c",
      PORTAL_SCRIPT,
      "skillgate-sandbox-portal",
      "/usr/bin/mount",
      "/tmp/portal",
      "--",
    ]);
    expect(argv.slice(16, 18)).toEqual(["/usr/bin/setpriv", "--reuid=65534"]);
    expect(argv.slice(-4)).toEqual(["/usr/bin/bwrap", "--unshare-all", "--", "/usr/bin/true"]);
    expect(portalTargets("/tmp/portal")).toEqual({
      skill: "/tmp/portal/skill",
      socket: "/tmp/portal/proxy.sock",
      workspace: "/tmp/portal/workspace",
    });
  });

  /** Runs the portal script with echo (or false) standing in for mount, its sources on descriptor 8. */
  const portalRun = (sources: Buffer | string, mount = "/bin/echo") =>
    spawnSync(
      "/bin/sh",
      [
        "-c",
        `exec 8<&0; exec /bin/sh -c "$0" portal "$@"`,
        PORTAL_SCRIPT,
        mount,
        "/F",
        "--",
        "/bin/echo",
        "ran",
      ],
      {
        input: sources,
        encoding: "utf8",
      },
    );

  it("the portal script binds what it read, then becomes the command", () => {
    const both = portalRun(portalSources("/root/data/snap shot", "/run/proxy.sock"));
    expect(both.status).toBe(0);
    expect(both.stdout).toBe(
      "--bind /root/data/snap shot /F/skill\n--bind /run/proxy.sock /F/proxy.sock\nran\n",
    );
    expect(portalRun(portalSources(undefined, "/run/p.sock")).stdout).toBe(
      "--bind /run/p.sock /F/proxy.sock\nran\n",
    );
    expect(portalRun(portalSources(undefined, undefined, "/root/proj")).stdout).toBe(
      "--rbind /root/proj /F/workspace\nran\n",
    );
    // A path with a line break and backslashes arrives whole.
    const awkward = portalRun(portalSources("/a\\b\nc\\n", undefined));
    expect(awkward.stdout).toBe("--bind /a\\b\nc\\n /F/skill\nran\n");
  });

  it("the portal script runs nothing unless its sources arrived whole, or when a bind fails (125)", () => {
    const whole = portalSources("/snap", undefined);
    for (const cut of [
      Buffer.alloc(0),
      whole.subarray(0, whole.length - 1),
      whole.subarray(0, 6),
      Buffer.from("/snap\n\nlater\n"),
      Buffer.from("/snap\n\ncomplete\n"),
    ]) {
      const result = portalRun(cut);
      expect(result.status).toBe(125);
      expect(result.stdout).toBe("");
    }
    const failed = portalRun(whole, "/bin/false");
    expect(failed.status).toBe(125);
    expect(failed.stdout).toBe("");
  });
});

describe("parseBwrapFeatures", () => {
  it("reads the version and the options from --version and --help", () => {
    const features = parseBwrapFeatures("bubblewrap 0.8.0\n", HELP);
    expect(features).toEqual({
      version: "0.8.0",
      disableUserns: true,
      tmpfsSize: true,
      jsonStatus: true,
      perms: true,
      blockFd: true,
      clearEnv: true,
      missing: [],
    });
  });

  it("names the options an old bubblewrap lacks", () => {
    const features = parseBwrapFeatures(
      "bubblewrap 0.3.1",
      "--unshare-all\n--die-with-parent\n--cap-drop CAP\n",
    );
    expect(features.version).toBe("0.3.1");
    expect(features.missing).toEqual([
      "--new-session",
      "--seccomp",
      "--ro-bind-data",
      "--remount-ro",
      "--args",
      "--setenv",
    ]);
    expect(features.clearEnv).toBe(false);
  });
});
