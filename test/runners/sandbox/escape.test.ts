import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { arch } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SYSCALL_ARCHITECTURES } from "../../../src/runners/sandbox/syscalls.js";
import {
  expectStatus,
  lastJson,
  probe,
  requireBubblewrap,
  snapshotOf,
  PYTHON_ATTEMPT as TRY,
  temporaryFolder,
} from "./harness.js";

/**
 * The escape suite (resource bombs are in escape-resources.test.ts): hostile scripts against the real sandbox, each with the status and the
 * evidence expected, and after every one the same check (expectContained): no process of
 * the run left (everything in its PID namespace, or naming its run id; processes of uid
 * 65534 that belong to other tests' sandboxes running at the same time are not this run's),
 * no cgroup of it left, and the snapshot unchanged. Host paths a case tries to create are
 * checked on the host too.
 */

beforeAll(() => requireBubblewrap());

const marker = `skillgate-escape-${randomBytes(6).toString("hex")}`;

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, "latin1");
  } catch {
    return "";
  }
}

describe("writes outside /tmp fail and change nothing", () => {
  it("the skill, /usr, /etc, /, /dev, /root and /home refuse writes; /tmp takes them", async () => {
    const targets = {
      skillFile: "/skill/SKILL.md",
      skillNew: "/skill/new.txt",
      usr: `/usr/${marker}`,
      etc: `/etc/${marker}`,
      root: `/${marker}`,
      dev: `/dev/${marker}`,
      devShm: `/dev/shm/${marker}`,
      rootHome: `/root/${marker}`,
      home: `/home/${marker}`,
      tmp: `/tmp/${marker}`,
    };
    const result = await probe(
      `${TRY}
targets = json.load(sys.stdin)
def write(path):
    with open(path, "a") as handle:
        handle.write("escaped")
outcome = {name: attempt(lambda path=path: write(path)) for name, path in targets.items()}
outcome["chmod"] = attempt(lambda: os.chmod("/skill/SKILL.md", 0o777))
outcome["mkdir"] = attempt(lambda: os.mkdir("/usr/lib/${marker}"))
print(json.dumps(outcome))
`,
      { arguments: targets },
    );
    expectStatus(result, "ok");
    const outcome = lastJson(result);
    expect(outcome.tmp).toBe("ok");
    // A read-only mount refuses with EROFS; a 0444 file of the snapshot may refuse on its mode first.
    expect(["EROFS", "EACCES"]).toContain(outcome.skillFile);
    for (const name of ["skillNew", "usr", "etc", "root", "dev", "devShm", "chmod", "mkdir"])
      expect(outcome[name], name).toBe("EROFS");
    for (const name of ["rootHome", "home"]) expect(outcome[name], name).toBe("ENOENT");
    for (const path of [
      `/usr/${marker}`,
      `/etc/${marker}`,
      `/${marker}`,
      `/usr/lib/${marker}`,
      `/tmp/${marker}`,
    ])
      expect(existsSync(path), path).toBe(false);
  });
});

describe("reads of the host's secrets find nothing", () => {
  let dataFolder: string;
  let otherSkill: string;
  const secret = `secret-${randomBytes(8).toString("hex")}`;

  beforeAll(() => {
    dataFolder = temporaryFolder("skillgate-escape-data-");
    mkdirSync(join(dataFolder, "store"), { recursive: true });
    writeFileSync(join(dataFolder, "store", "index.json"), secret, { mode: 0o644 });
    otherSkill = snapshotOf({ "scripts/secret.txt": secret });
    process.env.SKILLGATE_ESCAPE_MARKER = secret;
  });

  afterAll(() => {
    delete process.env.SKILLGATE_ESCAPE_MARKER;
  });

  it("/etc/shadow, /root, the data folder, another skill, host /proc and the host environment are absent", async () => {
    const paths = {
      shadow: "/etc/shadow",
      root: "/root",
      data: join(dataFolder, "store", "index.json"),
      otherSkill: join(otherSkill, "scripts", "secret.txt"),
      hostProcess: `/proc/${process.pid}/environ`,
      init: "/proc/1/environ",
    };
    const result = await probe(
      `${TRY}
paths = json.load(sys.stdin)
def read(path):
    if os.path.isdir(path):
        os.listdir(path)
    else:
        open(path, "rb").read()
outcome = {name: attempt(lambda path=path: read(path)) for name, path in paths.items()}
outcome["initEnviron"] = open("/proc/1/environ", "rb").read().decode("latin1") if outcome["init"] == "ok" else ""
seen = []
for pid in os.listdir("/proc"):
    if pid.isdigit():
        try:
            seen.append(open(f"/proc/{pid}/environ", "rb").read().decode("latin1"))
        except OSError:
            pass
outcome["environs"] = "\\n".join(seen)
outcome["environ"] = "\\n".join(f"{key}={value}" for key, value in os.environ.items())
outcome["pids"] = sorted(int(pid) for pid in os.listdir("/proc") if pid.isdigit())
print(json.dumps(outcome))
`,
      { arguments: paths },
    );
    expectStatus(result, "ok");
    const outcome = lastJson(result);
    for (const name of ["shadow", "root", "data", "otherSkill", "hostProcess"])
      expect(outcome[name], name).toBe("ENOENT");
    expect(result.stdout).not.toContain(secret);
    expect(String(outcome.environ)).not.toContain("SKILLGATE_ESCAPE_MARKER");
    // /proc/1 is the sandbox's own init, not the host's.
    const hostInit = readOrEmpty("/proc/1/environ");
    if (hostInit !== "") expect(outcome.initEnviron).not.toBe(hostInit);
    expect(String(outcome.initEnviron)).not.toContain(secret);
    // The sandbox's /proc shows its own few processes only, none of the host's.
    expect((outcome.pids as number[]).every((pid) => pid < 100)).toBe(true);
    expect(readFileSync(join(dataFolder, "store", "index.json"), "utf8")).toBe(secret);
  });

  it("a symbolic link planted in /tmp resolves inside the sandbox, not on the host", async () => {
    const result = await probe(
      `${TRY}
targets = json.load(sys.stdin)
outcome = {}
for name, target in targets.items():
    link = f"/tmp/{name}"
    os.symlink(target, link)
    outcome[name] = attempt(lambda link=link: open(link, "rb").read())
print(json.dumps(outcome))
`,
      {
        arguments: {
          shadow: "/etc/shadow",
          data: join(dataFolder, "store", "index.json"),
          up: "/skill/../../../etc/shadow",
        },
      },
    );
    expectStatus(result, "ok");
    expect(lastJson(result)).toEqual({ shadow: "ENOENT", data: "ENOENT", up: "ENOENT" });
    expect(result.stdout).not.toContain(secret);
  });
});

describe("the network namespace is empty", () => {
  let server: Server;
  let port = 0;
  let connections = 0;

  beforeAll(async () => {
    server = createServer((socket) => {
      connections += 1;
      socket.end("host service\n");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    port = typeof address === "object" && address !== null ? address.port : 0;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("TCP to the host's loopback, TCP and UDP outside, and name lookups all fail; only lo exists", async () => {
    const result = await probe(
      `${TRY}
import socket
port = json.load(sys.stdin)["port"]
def tcp(host, port):
    with socket.create_connection((host, port), timeout=3) as connection:
        connection.recv(100)
def udp():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp_socket:
        udp_socket.sendto(b"\\0" * 12, ("8.8.8.8", 53))
def lookup():
    try:
        socket.getaddrinfo("example.com", 80)
    except socket.gaierror as error:
        raise OSError(errno.EHOSTUNREACH, str(error))
interfaces = [line.split(":")[0].strip() for line in open("/proc/net/dev").read().splitlines()[2:]]
print(json.dumps({
    "hostLoopback": attempt(lambda: tcp("127.0.0.1", port)),
    "outside": attempt(lambda: tcp("1.1.1.1", 80)),
    "udp53": attempt(udp),
    "lookup": attempt(lookup),
    "interfaces": interfaces,
}))
`,
      { arguments: { port } },
    );
    expectStatus(result, "ok");
    const outcome = lastJson(result);
    expect(outcome.hostLoopback).toBe("ECONNREFUSED");
    expect(outcome.outside).toBe("ENETUNREACH");
    expect(outcome.udp53).toBe("ENETUNREACH");
    expect(outcome.lookup).toBe("EHOSTUNREACH");
    expect(outcome.interfaces).toEqual(["lo"]);
    expect(connections).toBe(0);
  });

  it("bash /dev/tcp to the host's loopback is refused", async () => {
    const result = await probe(
      `port=$(cat)\nif exec 3<>"/dev/tcp/127.0.0.1/\${port}"; then echo connected; else echo refused; fi\n`,
      { script: "scripts/probe.sh", argumentsJson: String(port) },
    );
    expectStatus(result, "ok");
    expect(result.stdout.trim()).toBe("refused");
    expect(result.stderr).toContain("Connection refused");
    expect(connections).toBe(0);
  });
});

describe("privilege is gone", () => {
  it("unshare -r is refused", async () => {
    const result = await probe('unshare -r id\necho "exit $?"\n', { script: "scripts/probe.sh" });
    expectStatus(result, "ok");
    expect(result.stderr).toContain("Operation not permitted");
    expect(result.stdout).toContain("exit 1");
    expect(result.stdout).not.toContain("uid=0");
  });

  const numbers = SYSCALL_ARCHITECTURES.find(
    (architecture) => architecture.name === (arch() === "arm64" ? "aarch64" : "x86_64"),
  )?.numbers;
  const SYSCALLS = `${TRY}
import ctypes, socket
numbers = json.load(sys.stdin)
libc = ctypes.CDLL(None, use_errno=True)
def call(name, *args):
    def run():
        if libc.syscall(numbers[name], *[ctypes.c_long(arg) for arg in args]) == -1:
            code = ctypes.get_errno()
            raise OSError(code, os.strerror(code))
    return attempt(run)
`;

  // pidfd_getfd copies another process's descriptor without ptrace; inside the sandbox pid 1 is
  // bubblewrap's own init and the parent is its monitor. Each is asked for every low descriptor.
  const PIDFD = `
def raw(name, *args):
    result = libc.syscall(numbers[name], *[ctypes.c_long(arg) for arg in args])
    if result == -1:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))
    return result
def pidfd_open(pid):
    return attempt(lambda: os.close(raw("pidfd_open", pid, 0)))
def copy_descriptor(pid, target):
    pidfd = raw("pidfd_open", pid, 0)
    try:
        os.close(raw("pidfd_getfd", pidfd, target, 0))
    finally:
        os.close(pidfd)
`;

  it("control: outside the sandbox the same probe opens a netlink socket and reads a keyring", () => {
    // Only harmless calls here: this runs on the host, as whoever runs the tests.
    const control = spawnSync(
      "/usr/bin/python3",
      [
        "-c",
        `${SYSCALLS}${PIDFD}print(json.dumps({"netlink": attempt(lambda: socket.socket(16, socket.SOCK_RAW, 0).close()), "keyctl": call("keyctl", 0, -3, 0), "pidfdOpenSelf": pidfd_open(os.getpid()), "pidfdGetfdSelf": attempt(lambda: copy_descriptor(os.getpid(), 1))}))`,
      ],
      { input: JSON.stringify(numbers), encoding: "utf8" },
    );
    expect(JSON.parse(control.stdout)).toEqual({
      netlink: "ok",
      keyctl: "ok",
      pidfdOpenSelf: "ok",
      pidfdGetfdSelf: "ok",
    });
  });

  it("pidfd_open on pid 1 and the parent, pidfd_getfd and process_madvise are refused with EPERM", async () => {
    const result = await probe(
      `${SYSCALLS}${PIDFD}
outcome = {
    "pidfdOpenInit": pidfd_open(1),
    "pidfdOpenParent": pidfd_open(os.getppid()),
    "pidfdOpenSelf": pidfd_open(os.getpid()),
    # Refused by the filter before the kernel looks at the arguments: without the filter these
    # would be EBADF, not EPERM.
    "pidfdGetfd": call("pidfd_getfd", 0, 0, 0),
    "processMadvise": call("process_madvise", 0, 0, 0, 0, 0),
    "copied": [],
}
for pid in (1, os.getppid()):
    for target in range(0, 12):
        if attempt(lambda: copy_descriptor(pid, target)) == "ok":
            outcome["copied"].append([pid, target])
print(json.dumps(outcome))
`,
      { arguments: numbers },
    );
    expectStatus(result, "ok");
    const outcome = lastJson(result);
    for (const name of ["pidfdOpenInit", "pidfdOpenParent", "pidfdOpenSelf", "pidfdGetfd", "processMadvise"])
      expect(outcome[name], name).toBe("EPERM");
    expect(outcome.copied).toEqual([]);
  });

  it("ptrace, netlink, keyrings, io_uring, userfaultfd and new namespaces are refused; capabilities are none", async () => {
    const result = await probe(
      `${SYSCALLS}
fds = {}
for fd in os.listdir("/proc/self/fd"):
    try:
        fds[fd] = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        pass
status = dict(line.split(":\\t", 1) for line in open("/proc/self/status").read().splitlines() if ":\\t" in line)
print(json.dumps({
    "ptraceTraceme": call("ptrace", 0, 0, 0, 0),
    "ptraceAttach": call("ptrace", 16, 1, 0, 0),
    "netlink": attempt(lambda: socket.socket(16, socket.SOCK_RAW, 0)),
    "keyctl": call("keyctl", 0, -3, 0),
    "ioUring": call("io_uring_setup", 1, ctypes.addressof(ctypes.create_string_buffer(120))),
    "userfaultfd": call("userfaultfd", 1),
    "unshareUser": call("unshare", 0x10000000),
    "unshareNet": call("unshare", 0x40000000),
    "clone3": call("clone3", 0, 0),
    "inet": attempt(lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM).close()),
    "capabilities": [status[key].strip() for key in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")],
    "noNewPrivs": status["NoNewPrivs"].strip(),
    "seccomp": status["Seccomp"].strip(),
    "uid": os.getuid(), "gid": os.getgid(), "groups": os.getgroups(),
    "fds": fds,
}))
`,
      { arguments: numbers },
    );
    expectStatus(result, "ok");
    const outcome = lastJson(result);
    for (const name of [
      "ptraceTraceme",
      "ptraceAttach",
      "netlink",
      "keyctl",
      "ioUring",
      "userfaultfd",
      "unshareUser",
      "unshareNet",
    ])
      expect(outcome[name], name).toBe("EPERM");
    expect(outcome.clone3).toBe("ENOSYS");
    expect(outcome.inet).toBe("ok");
    expect(outcome.capabilities).toEqual(Array(5).fill("0000000000000000"));
    expect(outcome.noNewPrivs).toBe("1");
    expect(outcome.seccomp).toBe("2");
    expect([outcome.uid, outcome.gid]).toEqual([65534, 65534]);
    // stdin, stdout and stderr; anything else the test runner's process inherited without
    // close-on-exec arrives as /dev/null, never as the host's file; none of bubblewrap's pipes.
    const fds = outcome.fds as Record<string, string>;
    expect(
      Object.keys(fds)
        .map(Number)
        .filter((fd) => fd <= 2)
        .sort(),
    ).toEqual([0, 1, 2]);
    for (const [fd, target] of Object.entries(fds))
      if (Number(fd) > 2) expect(target, `fd ${fd}`).toBe("/dev/null");
  });
});
