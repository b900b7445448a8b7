import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import {
  type BwrapPlan,
  bwrapArguments,
  proxyBridgeScript,
} from "../../../src/runners/sandbox/bwrap-arguments.js";
import { parseBwrapFeatures } from "../../../src/runners/sandbox/host-tools.js";
import { LAUNCH_SCRIPT, launchCommand } from "../../../src/runners/sandbox/launcher.js";
import { DEFAULT_SANDBOX_RESOURCES, prlimitOptions } from "../../../src/runners/sandbox/limits.js";

const HELP = [
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
].join("\n");

function plan(overrides: Partial<BwrapPlan> = {}): BwrapPlan {
  return {
    features: parseBwrapFeatures("bubblewrap 0.8.0", HELP),
    skillSource: "/snapshots/abc",
    rootEntries: [
      { kind: "symlink", path: "/lib", target: "usr/lib" },
      { kind: "bind", path: "/lib64" },
    ],
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

/** The arguments before `--`: bubblewrap's own options. */
function options(args: readonly string[]): string[] {
  return args.slice(0, args.indexOf("--"));
}

describe("bwrapArguments", () => {
  it("unshares everything, drops to 65534, disables nested user namespaces and drops every capability", () => {
    const args = options(bwrapArguments(plan()));
    for (const flag of [
      "--unshare-all",
      "--unshare-user",
      "--disable-userns",
      "--die-with-parent",
      "--new-session",
    ])
      expect(args).toContain(flag);
    expect(args.join(" ")).toContain("--uid 65534 --gid 65534");
    expect(args.join(" ")).toContain("--cap-drop ALL");
    expect(args).not.toContain("--share-net");
  });

  it("binds only read-only: no --bind, --dev-bind or --bind-try anywhere", () => {
    const args = options(bwrapArguments(plan({ proxySocketSource: "/run/proxy.sock" })));
    for (const flag of ["--bind", "--bind-try", "--dev-bind", "--dev-bind-try", "--bind-fd"])
      expect(args, flag).not.toContain(flag);
  });

  it("shows /usr, the loader's links, a few /etc files, the snapshot at /skill; nothing of /home, /root or the rest of /etc", () => {
    const text = options(bwrapArguments(plan())).join(" ");
    expect(text).toContain("--ro-bind /usr /usr");
    expect(text).toContain("--symlink usr/lib /lib");
    expect(text).toContain("--ro-bind /lib64 /lib64");
    expect(text).toContain("--ro-bind /snapshots/abc /skill");
    expect(text).toContain("--ro-bind-data 5 /etc/passwd");
    expect(text).not.toMatch(/ \/(home|root|etc)( |$)/);
    expect(text).not.toContain("/etc/shadow");
    expect(text).not.toContain("/etc/alternatives");
    expect(options(bwrapArguments(plan({ alternatives: true }))).join(" ")).toContain(
      "--ro-bind /etc/alternatives /etc/alternatives",
    );
  });

  it("caps /tmp before mounting it, makes /dev read-only and the root read-only last", () => {
    const args = options(bwrapArguments(plan()));
    const tmpfs = args.indexOf("/tmp", args.indexOf("--tmpfs"));
    expect(args.slice(tmpfs - 3, tmpfs + 1)).toEqual([
      "--size",
      String(DEFAULT_SANDBOX_RESOURCES.tmpBytes),
      "--tmpfs",
      "/tmp",
    ]);
    expect(args.join(" ")).toContain("--dev /dev --remount-ro /dev");
    expect(args.slice(-2)).toEqual(["--remount-ro", "/"]);
    const lastMount = Math.max(
      ...args.flatMap((arg, index) =>
        /^--(ro-bind|ro-bind-try|ro-bind-data|tmpfs|symlink|proc|dev)$/.test(arg) ? [index] : [],
      ),
    );
    expect(lastMount).toBeLessThan(args.length - 2);
  });

  it("holds the sandbox at its start only when asked to (a run joining cgroups)", () => {
    expect(options(bwrapArguments(plan()))).not.toContain("--block-fd");
    expect(options(bwrapArguments(plan({ block: true }))).join(" ")).toContain("--block-fd 8");
  });

  it("leaves out what this bubblewrap cannot do rather than failing", () => {
    const old = parseBwrapFeatures(
      "bubblewrap 0.6.2",
      HELP.replace("--disable-userns", "").replace("--size BYTES", ""),
    );
    const args = options(bwrapArguments(plan({ features: old })));
    expect(args).not.toContain("--disable-userns");
    expect(args).not.toContain("--size");
    expect(args).toContain("--tmpfs");
  });

  it("runs the script through prlimit with every cap set hard, and Node with more address space", () => {
    const args = bwrapArguments(plan());
    const command = args.slice(args.indexOf("--") + 1);
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
  });

  it("with a proxy, binds the socket and starts the bridge before the script", () => {
    const args = bwrapArguments(plan({ proxySocketSource: "/run/skillgate/proxy.sock" }));
    expect(options(args).join(" ")).toContain("--ro-bind /run/skillgate/proxy.sock /proxy.sock");
    const command = args.slice(args.indexOf("--") + 1);
    const shell = command.indexOf("/usr/bin/sh");
    expect(command.slice(shell, shell + 2)).toEqual(["/usr/bin/sh", "-c"]);
    expect(command[shell + 2]).toContain(
      "/usr/bin/socat TCP-LISTEN:3128,bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:/proxy.sock",
    );
    expect(command.slice(-3)).toEqual(["/usr/bin/python3", "-B", "/skill/scripts/run.py"]);
  });

  it("the bridge script is valid POSIX shell", () => {
    const check = spawnSync("/bin/sh", ["-n", "-c", proxyBridgeScript("/usr/bin/socat")], {
      encoding: "utf8",
    });
    expect(check.stderr).toBe("");
    expect(check.status).toBe(0);
  });
});

describe("launchCommand", () => {
  const base = {
    bwrap: "/usr/bin/bwrap",
    bwrapArguments: ["--unshare-all", "--", "/usr/bin/true"],
    portal: [],
  };

  it("is bubblewrap alone when nothing is needed before it", () => {
    expect(launchCommand(base)).toEqual(["/usr/bin/bwrap", "--unshare-all", "--", "/usr/bin/true"]);
  });

  it("as root, drops to 65534 with no groups, capabilities or new privileges first", () => {
    expect(launchCommand({ ...base, setpriv: "/usr/bin/setpriv" }).slice(0, 9)).toEqual([
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
  });

  it("binds the portal in a private mount namespace", () => {
    const argv = launchCommand({
      ...base,
      portal: [{ source: "/root/data/snapshot", target: "/tmp/portal/skill" }],
      shell: "/usr/bin/sh",
      unshare: "/usr/bin/unshare",
      mount: "/usr/bin/mount",
    });
    expect(argv.slice(0, 5)).toEqual(["/usr/bin/unshare", "--mount", "--propagation", "private", "--"]);
    expect(argv.slice(5, 9)).toEqual(["/usr/bin/sh", "-c", LAUNCH_SCRIPT, "skillgate-sandbox-launch"]);
    expect(argv.slice(9)).toEqual([
      "bind",
      "/usr/bin/mount",
      "/root/data/snapshot",
      "/tmp/portal/skill",
      "--",
      "/usr/bin/bwrap",
      "--unshare-all",
      "--",
      "/usr/bin/true",
    ]);
  });

  it("the launch script runs each bind, then becomes the command; the first failure stops it (125)", () => {
    // echo and false stand in for mount: the script only passes the arguments through.
    const bound = spawnSync(
      "/bin/sh",
      ["-c", LAUNCH_SCRIPT, "launch", "bind", "/bin/echo", "/a", "/b", "--", "/bin/sh", "-c", "echo ran"],
      { encoding: "utf8" },
    );
    expect(bound.status).toBe(0);
    expect(bound.stdout).toBe("--bind /a /b\nran\n");
    const failed = spawnSync(
      "/bin/sh",
      ["-c", LAUNCH_SCRIPT, "launch", "bind", "/bin/false", "/a", "/b", "--", "/bin/echo", "ran"],
      { encoding: "utf8" },
    );
    expect(failed.status).toBe(125);
    expect(failed.stdout).toBe("");
    expect(spawnSync("/bin/sh", ["-c", LAUNCH_SCRIPT, "launch", "bogus"]).status).toBe(125);
    expect(spawnSync("/bin/sh", ["-c", LAUNCH_SCRIPT, "launch"]).status).toBe(125);
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
      missing: [],
    });
  });

  it("names the options an old bubblewrap lacks", () => {
    const features = parseBwrapFeatures(
      "bubblewrap 0.3.1",
      "--unshare-all\n--die-with-parent\n--cap-drop CAP\n",
    );
    expect(features.version).toBe("0.3.1");
    expect(features.missing).toEqual(["--new-session", "--seccomp", "--ro-bind-data", "--remount-ro"]);
  });
});
