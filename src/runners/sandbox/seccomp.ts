import {
  REFUSED_SYSCALLS,
  SYSCALL_ARCHITECTURES,
  type SyscallArchitecture,
  type SyscallName,
} from "./syscalls.js";

/**
 * The sandbox's seccomp filter as a classic BPF program (`struct sock_filter[]`), the form
 * bubblewrap's `--seccomp FD` reads: 8 bytes an instruction, little-endian, read to EOF.
 *
 * What it decides, per architecture (x86_64 and aarch64; any other ABI is killed, so a
 * 32-bit entry point cannot dodge the numbers below):
 * - the calls in {@link REFUSED_SYSCALLS}: EPERM;
 * - `socket(AF_NETLINK | AF_PACKET, …)`: EPERM (routing tables, raw frames);
 * - `clone` with any namespace flag: EPERM (no new namespaces, whatever the user namespace says);
 * - `clone3`: ENOSYS, because its flags sit in memory the filter cannot read; C libraries then
 *   fall back to `clone`, which is checked;
 * - `ioctl(TIOCSTI | TIOCLINUX)`: EPERM (typing into a terminal);
 * - on x86_64, x32 numbers (bit 30 set): EPERM;
 * - everything else: allowed.
 */

/** One BPF instruction. */
export interface BpfInstruction {
  readonly code: number;
  readonly jt: number;
  readonly jf: number;
  readonly k: number;
}

/** `seccomp_data` field offsets (include/uapi/linux/seccomp.h). Arguments are 64-bit; the low word comes first on both little-endian architectures. */
export const SECCOMP_DATA = { nr: 0, arch: 4, argumentLow: (index: number) => 16 + 8 * index } as const;

/** Filter return values (include/uapi/linux/seccomp.h). */
export const SECCOMP_RET = {
  killProcess: 0x80000000,
  errno: 0x00050000,
  allow: 0x7fff0000,
} as const;

/** errno values the filter returns. */
export const ERRNO = { EPERM: 1, ENOSYS: 38 } as const;

/** Address families and flags the argument checks refuse. */
export const REFUSED_SOCKET_DOMAINS = { AF_NETLINK: 16, AF_PACKET: 17 } as const;
/** CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET. */
export const CLONE_NAMESPACE_FLAGS = 0x7e020000;
/** TIOCSTI and TIOCLINUX. */
export const REFUSED_IOCTLS = { TIOCSTI: 0x5412, TIOCLINUX: 0x541c } as const;

const BPF = {
  loadWordAbsolute: 0x20,
  jumpAlways: 0x05,
  jumpEqual: 0x15,
  jumpGreaterOrEqual: 0x35,
  jumpSet: 0x45,
  returnConstant: 0x06,
} as const;

/** A jump target by name, resolved when the program is assembled. */
type Step =
  | { readonly kind: "instruction"; readonly code: number; readonly k: number }
  | {
      readonly kind: "jump";
      readonly code: number;
      readonly k: number;
      readonly whenTrue: string;
      readonly whenFalse: string;
    }
  | { readonly kind: "always"; readonly to: string }
  | { readonly kind: "label"; readonly name: string };

const NEXT = "";

/** Builds the filter for every supported architecture. */
export function sandboxSeccompProgram(): BpfInstruction[] {
  const steps: Step[] = [load(SECCOMP_DATA.arch)];
  for (const architecture of SYSCALL_ARCHITECTURES)
    steps.push(jump(BPF.jumpEqual, architecture.auditArch, `arch:${architecture.name}`, NEXT));
  steps.push(ret(SECCOMP_RET.killProcess));
  for (const architecture of SYSCALL_ARCHITECTURES) steps.push(...architectureSteps(architecture));
  steps.push(label("deny"), ret(SECCOMP_RET.errno | ERRNO.EPERM));
  steps.push(label("enosys"), ret(SECCOMP_RET.errno | ERRNO.ENOSYS));
  steps.push(label("allow"), ret(SECCOMP_RET.allow));
  return assemble(steps);
}

/** The program as the bytes bubblewrap reads. */
export function encodeSeccompProgram(program: readonly BpfInstruction[]): Buffer {
  const bytes = Buffer.alloc(program.length * 8);
  program.forEach((instruction, index) => {
    bytes.writeUInt16LE(instruction.code, index * 8);
    bytes.writeUInt8(instruction.jt, index * 8 + 2);
    bytes.writeUInt8(instruction.jf, index * 8 + 3);
    bytes.writeUInt32LE(instruction.k >>> 0, index * 8 + 4);
  });
  return bytes;
}

let cachedBytes: Buffer | undefined;

/** The encoded filter, built once per process (it depends on nothing but the tables). */
export function sandboxSeccompBytes(): Buffer {
  cachedBytes ??= encodeSeccompProgram(sandboxSeccompProgram());
  return cachedBytes;
}

function architectureSteps(architecture: SyscallArchitecture): Step[] {
  const prefix = architecture.name;
  const number = (name: SyscallName): number | undefined => architecture.numbers[name];
  const steps: Step[] = [label(`arch:${prefix}`), load(SECCOMP_DATA.nr)];
  if (architecture.foreignAbiBit !== undefined)
    steps.push(jump(BPF.jumpGreaterOrEqual, architecture.foreignAbiBit, "deny", NEXT));
  for (const name of REFUSED_SYSCALLS) {
    const value = number(name);
    if (value !== undefined) steps.push(jump(BPF.jumpEqual, value, "deny", NEXT));
  }
  const checked = (name: SyscallName, target: string): void => {
    const value = number(name);
    if (value !== undefined) steps.push(jump(BPF.jumpEqual, value, target, NEXT));
  };
  checked("socket", `${prefix}:socket`);
  checked("clone", `${prefix}:clone`);
  checked("ioctl", `${prefix}:ioctl`);
  checked("clone3", "enosys");
  steps.push(always("allow"));

  steps.push(label(`${prefix}:socket`), load(SECCOMP_DATA.argumentLow(0)));
  for (const domain of Object.values(REFUSED_SOCKET_DOMAINS))
    steps.push(jump(BPF.jumpEqual, domain, "deny", NEXT));
  steps.push(always("allow"));

  steps.push(label(`${prefix}:clone`), load(SECCOMP_DATA.argumentLow(0)));
  steps.push(jump(BPF.jumpSet, CLONE_NAMESPACE_FLAGS, "deny", "allow"));

  steps.push(label(`${prefix}:ioctl`), load(SECCOMP_DATA.argumentLow(1)));
  for (const request of Object.values(REFUSED_IOCTLS)) steps.push(jump(BPF.jumpEqual, request, "deny", NEXT));
  steps.push(always("allow"));
  return steps;
}

function load(offset: number): Step {
  return { kind: "instruction", code: BPF.loadWordAbsolute, k: offset };
}

function ret(value: number): Step {
  return { kind: "instruction", code: BPF.returnConstant, k: value };
}

function jump(code: number, k: number, whenTrue: string, whenFalse: string): Step {
  return { kind: "jump", code, k, whenTrue, whenFalse };
}

function always(to: string): Step {
  return { kind: "always", to };
}

function label(name: string): Step {
  return { kind: "label", name };
}

/**
 * Resolves labels into relative offsets. Conditional jumps reach at most 255 instructions
 * ahead (an 8-bit field); the program keeps every conditional target within one
 * architecture's block or the three shared returns at the end, far below that, and the
 * assembler checks it rather than trusting it.
 */
function assemble(steps: readonly Step[]): BpfInstruction[] {
  const positions = new Map<string, number>();
  let count = 0;
  for (const step of steps) {
    if (step.kind === "label") positions.set(step.name, count);
    else count += 1;
  }
  const program: BpfInstruction[] = [];
  const offset = (target: string, from: number): number => {
    if (target === NEXT) return 0;
    const position = positions.get(target);
    if (position === undefined) throw new Error(`seccomp program: unknown label ${target}`);
    const distance = position - from - 1;
    if (distance < 0) throw new Error(`seccomp program: backward jump to ${target}`);
    return distance;
  };
  for (const step of steps) {
    const index = program.length;
    if (step.kind === "label") continue;
    if (step.kind === "instruction") program.push({ code: step.code, jt: 0, jf: 0, k: step.k });
    else if (step.kind === "always")
      program.push({ code: BPF.jumpAlways, jt: 0, jf: 0, k: offset(step.to, index) });
    else {
      const jt = offset(step.whenTrue, index);
      const jf = offset(step.whenFalse, index);
      if (jt > 255 || jf > 255) throw new Error("seccomp program: conditional jump out of range");
      program.push({ code: step.code, jt, jf, k: step.k });
    }
  }
  return program;
}
