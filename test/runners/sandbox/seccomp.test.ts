import { describe, expect, it } from "vitest";
import {
  type BpfInstruction,
  CLONE_NAMESPACE_FLAGS,
  ERRNO,
  encodeSeccompProgram,
  SECCOMP_RET,
  sandboxSeccompBytes,
  sandboxSeccompProgram,
} from "../../../src/runners/sandbox/seccomp.js";
import { REFUSED_SYSCALLS, SYSCALL_ARCHITECTURES } from "../../../src/runners/sandbox/syscalls.js";

/**
 * The filter is run here by a small classic-BPF interpreter written from the kernel's
 * semantics (load word, jeq/jge/jset/ja, ret), over `seccomp_data` as the kernel lays it out,
 * so each decision is checked without trusting the generator's own labels.
 */
function evaluate(
  program: readonly BpfInstruction[],
  data: { arch: number; nr: number; args?: readonly number[] },
): number {
  const bytes = Buffer.alloc(64);
  bytes.writeInt32LE(data.nr, 0);
  bytes.writeUInt32LE(data.arch >>> 0, 4);
  (data.args ?? []).forEach((value, index) => {
    bytes.writeUInt32LE(value >>> 0, 16 + index * 8);
  });
  let accumulator = 0;
  let pc = 0;
  for (let steps = 0; steps < 10_000; steps += 1) {
    const instruction = program[pc];
    if (instruction === undefined) throw new Error(`ran off the program at ${pc}`);
    const { code, jt, jf, k } = instruction;
    if (code === 0x20) {
      accumulator = bytes.readUInt32LE(k);
      pc += 1;
    } else if (code === 0x06) return k >>> 0;
    else if (code === 0x05) pc += 1 + k;
    else if (code === 0x15) pc += 1 + (accumulator === k >>> 0 ? jt : jf);
    else if (code === 0x35) pc += 1 + (accumulator >= k >>> 0 ? jt : jf);
    else if (code === 0x45) pc += 1 + ((accumulator & k) !== 0 ? jt : jf);
    else throw new Error(`unknown instruction ${code.toString(16)}`);
  }
  throw new Error("the program did not return");
}

const program = sandboxSeccompProgram();
const EPERM = SECCOMP_RET.errno | ERRNO.EPERM;
const ENOSYS = SECCOMP_RET.errno | ERRNO.ENOSYS;

describe("the seccomp filter", () => {
  for (const architecture of SYSCALL_ARCHITECTURES) {
    const run = (name: keyof typeof architecture.numbers, args: number[] = []): number => {
      const nr = architecture.numbers[name];
      if (nr === undefined) throw new Error(`${name} has no number on ${architecture.name}`);
      return evaluate(program, { arch: architecture.auditArch, nr, args });
    };

    it(`${architecture.name}: refuses every listed call with EPERM`, () => {
      for (const name of REFUSED_SYSCALLS) {
        if (architecture.numbers[name] === undefined) continue;
        expect(run(name), name).toBe(EPERM);
      }
    });

    it(`${architecture.name}: netlink and packet sockets are refused, inet and unix sockets allowed`, () => {
      expect(run("socket", [16, 3, 0])).toBe(EPERM);
      expect(run("socket", [17, 3, 0])).toBe(EPERM);
      expect(run("socket", [2, 1, 0])).toBe(SECCOMP_RET.allow);
      expect(run("socket", [10, 1, 0])).toBe(SECCOMP_RET.allow);
      expect(run("socket", [1, 1, 0])).toBe(SECCOMP_RET.allow);
    });

    it(`${architecture.name}: clone with a namespace flag is refused, threads and forks allowed`, () => {
      const threadFlags = 0x3d0f00; // CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | ...
      expect(run("clone", [threadFlags])).toBe(SECCOMP_RET.allow);
      expect(run("clone", [0x11])).toBe(SECCOMP_RET.allow); // SIGCHLD: fork
      for (const flag of [0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000])
        expect(run("clone", [0x11 | flag]), flag.toString(16)).toBe(EPERM);
      expect(CLONE_NAMESPACE_FLAGS).toBe(0x7e020000);
      expect(run("clone3", [0, 88])).toBe(ENOSYS);
    });

    it(`${architecture.name}: TIOCSTI and TIOCLINUX are refused, other ioctls allowed`, () => {
      expect(run("ioctl", [0, 0x5412])).toBe(EPERM);
      expect(run("ioctl", [0, 0x541c])).toBe(EPERM);
      expect(run("ioctl", [0, 0x5401])).toBe(SECCOMP_RET.allow); // TCGETS
    });

    it(`${architecture.name}: pidfd_open, pidfd_getfd and process_madvise (kernel numbers 434, 438, 440) are refused`, () => {
      // The numbers are written out here, not read from the table, so a wrong table fails too.
      for (const nr of [434, 438, 440])
        expect(evaluate(program, { arch: architecture.auditArch, nr }), String(nr)).toBe(EPERM);
      // pidfd_send_signal (424) stays allowed: it only signals processes the script can see.
      expect(evaluate(program, { arch: architecture.auditArch, nr: 424 })).toBe(SECCOMP_RET.allow);
    });

    it(`${architecture.name}: ordinary calls are allowed`, () => {
      // x86_64: read, write, open, close, getpid, fork, execve, exit; aarch64: openat, close, read, write, exit, exit_group, getpid, execve.
      const ordinary =
        architecture.name === "x86_64" ? [0, 1, 2, 3, 39, 57, 59, 60] : [56, 57, 63, 64, 93, 94, 172, 221];
      for (const nr of ordinary)
        expect(evaluate(program, { arch: architecture.auditArch, nr }), String(nr)).toBe(SECCOMP_RET.allow);
    });
  }

  it("kills a process calling through any other ABI (i386, arm32)", () => {
    for (const auditArch of [0x40000003, 0x40000028, 0]) {
      expect(evaluate(program, { arch: auditArch, nr: 0 })).toBe(SECCOMP_RET.killProcess);
      expect(evaluate(program, { arch: auditArch, nr: 26 })).toBe(SECCOMP_RET.killProcess);
    }
  });

  it("refuses x32 system calls on x86_64", () => {
    const x86 = SYSCALL_ARCHITECTURES.find((architecture) => architecture.name === "x86_64");
    expect(evaluate(program, { arch: x86?.auditArch ?? 0, nr: 0x40000000 + 101 })).toBe(EPERM);
    expect(evaluate(program, { arch: x86?.auditArch ?? 0, nr: 0x40000000 })).toBe(EPERM);
  });

  it("encodes 8 little-endian bytes an instruction, as bubblewrap reads them", () => {
    const bytes = encodeSeccompProgram([{ code: 0x15, jt: 3, jf: 250, k: 0xc000003e }]);
    expect([...bytes]).toEqual([0x15, 0x00, 3, 250, 0x3e, 0x00, 0x00, 0xc0]);
    expect(sandboxSeccompBytes().length).toBe(program.length * 8);
    expect(program.length).toBeLessThan(4096);
  });
});
