/**
 * System call numbers the sandbox's seccomp filter refers to, for the two architectures it
 * supports. Numbers come from the kernel's tables (arch/x86/entry/syscalls/syscall_64.tbl and
 * include/uapi/asm-generic/unistd.h, which arm64 uses); they never change once assigned.
 */

/** An architecture the filter knows: its `AUDIT_ARCH_*` value and its system call numbers. */
export interface SyscallArchitecture {
  readonly name: "x86_64" | "aarch64";
  /** `seccomp_data.arch` for this ABI. */
  readonly auditArch: number;
  /**
   * Numbers at or above this belong to another ABI sharing the architecture value (x32 on
   * x86_64, which sets bit 30); they are refused as a whole. `undefined` when there is none.
   */
  readonly foreignAbiBit?: number;
  readonly numbers: Readonly<Record<SyscallName, number | undefined>>;
}

/**
 * Refused outright (EPERM): ways out of the namespaces, kernel attack surface a script never
 * needs, and ways to watch or change other processes. `pidfd_open` and `pidfd_getfd` are here
 * because `pidfd_getfd` copies another process's descriptors without `ptrace` (bubblewrap's
 * own pid 1 inside the sandbox runs as the same uid, so the kernel's ptrace-mode check passes);
 * `process_madvise` acts on another process's memory the same way. `undefined` in a table means the
 * architecture has no such call.
 */
export const REFUSED_SYSCALLS = [
  "ptrace",
  "process_vm_readv",
  "process_vm_writev",
  "process_madvise",
  "pidfd_open",
  "pidfd_getfd",
  "kcmp",
  "unshare",
  "setns",
  "mount",
  "umount2",
  "pivot_root",
  "chroot",
  "open_tree",
  "move_mount",
  "fsopen",
  "fsconfig",
  "fsmount",
  "fspick",
  "mount_setattr",
  "name_to_handle_at",
  "open_by_handle_at",
  "keyctl",
  "add_key",
  "request_key",
  "bpf",
  "perf_event_open",
  "userfaultfd",
  "io_uring_setup",
  "io_uring_enter",
  "io_uring_register",
  "kexec_load",
  "kexec_file_load",
  "init_module",
  "finit_module",
  "delete_module",
  "reboot",
  "swapon",
  "swapoff",
  "acct",
  "quotactl",
  "syslog",
  "lookup_dcookie",
  "uselib",
  "modify_ldt",
  "iopl",
  "ioperm",
] as const;

/** Calls the filter looks at more closely (by argument) rather than refusing outright. */
export const CHECKED_SYSCALLS = ["socket", "clone", "clone3", "ioctl"] as const;

/** Every system call name the tables below give a number for. */
export type SyscallName = (typeof REFUSED_SYSCALLS)[number] | (typeof CHECKED_SYSCALLS)[number];

const X86_64: Readonly<Record<SyscallName, number | undefined>> = {
  ptrace: 101,
  process_vm_readv: 310,
  process_vm_writev: 311,
  process_madvise: 440,
  pidfd_open: 434,
  pidfd_getfd: 438,
  kcmp: 312,
  unshare: 272,
  setns: 308,
  mount: 165,
  umount2: 166,
  pivot_root: 155,
  chroot: 161,
  open_tree: 428,
  move_mount: 429,
  fsopen: 430,
  fsconfig: 431,
  fsmount: 432,
  fspick: 433,
  mount_setattr: 442,
  name_to_handle_at: 303,
  open_by_handle_at: 304,
  keyctl: 250,
  add_key: 248,
  request_key: 249,
  bpf: 321,
  perf_event_open: 298,
  userfaultfd: 323,
  io_uring_setup: 425,
  io_uring_enter: 426,
  io_uring_register: 427,
  kexec_load: 246,
  kexec_file_load: 320,
  init_module: 175,
  finit_module: 313,
  delete_module: 176,
  reboot: 169,
  swapon: 167,
  swapoff: 168,
  acct: 163,
  quotactl: 179,
  syslog: 103,
  lookup_dcookie: 212,
  uselib: 134,
  modify_ldt: 154,
  iopl: 172,
  ioperm: 173,
  socket: 41,
  clone: 56,
  clone3: 435,
  ioctl: 16,
};

const AARCH64: Readonly<Record<SyscallName, number | undefined>> = {
  ptrace: 117,
  process_vm_readv: 270,
  process_vm_writev: 271,
  process_madvise: 440,
  pidfd_open: 434,
  pidfd_getfd: 438,
  kcmp: 272,
  unshare: 97,
  setns: 268,
  mount: 40,
  umount2: 39,
  pivot_root: 41,
  chroot: 51,
  open_tree: 428,
  move_mount: 429,
  fsopen: 430,
  fsconfig: 431,
  fsmount: 432,
  fspick: 433,
  mount_setattr: 442,
  name_to_handle_at: 264,
  open_by_handle_at: 265,
  keyctl: 219,
  add_key: 217,
  request_key: 218,
  bpf: 280,
  perf_event_open: 241,
  userfaultfd: 282,
  io_uring_setup: 425,
  io_uring_enter: 426,
  io_uring_register: 427,
  kexec_load: 104,
  kexec_file_load: 294,
  init_module: 105,
  finit_module: 273,
  delete_module: 106,
  reboot: 142,
  swapon: 224,
  swapoff: 225,
  acct: 89,
  quotactl: 60,
  syslog: 116,
  lookup_dcookie: 18,
  uselib: undefined,
  modify_ldt: undefined,
  iopl: undefined,
  ioperm: undefined,
  socket: 198,
  clone: 220,
  clone3: 435,
  ioctl: 29,
};

/** The architectures the filter allows; any other `seccomp_data.arch` kills the process. */
export const SYSCALL_ARCHITECTURES: readonly SyscallArchitecture[] = [
  { name: "x86_64", auditArch: 0xc000003e, foreignAbiBit: 0x40000000, numbers: X86_64 },
  { name: "aarch64", auditArch: 0xc00000b7, numbers: AARCH64 },
];
