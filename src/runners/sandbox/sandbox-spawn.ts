import { type ChildProcess, type StdioOptions, spawn } from "node:child_process";
import { closeSync, openSync, readdirSync, readFileSync } from "node:fs";
import type { Readable, Writable } from "node:stream";
import { onProcessExit } from "../../core/process-groups.js";
import { SANDBOX_FDS } from "./bwrap-arguments.js";

/** What to spawn: the launch chain, its environment and the files bubblewrap reads. */
export interface LaunchSpec {
  readonly argv: readonly string[];
  /** The spawn's whole environment (bubblewrap and setpriv pass it on, until `--clearenv`). */
  readonly env: Readonly<Record<string, string>>;
  /** Files opened read-only for this chain and given to bubblewrap at these descriptor numbers. */
  readonly files: Readonly<Record<number, string>>;
  /** Give bubblewrap a pipe at {@link SANDBOX_FDS.block} (`--block-fd`). */
  readonly block: boolean;
  /** Give the portal's shell a pipe at {@link SANDBOX_FDS.portal} for its bind sources. */
  readonly portal: boolean;
}

/** How a spawned chain ended. */
export interface ChainExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/**
 * A spawned launch chain: bubblewrap (after setpriv, or the portal, exec'd into it) waiting
 * to read its run's arguments on {@link SANDBOX_FDS.args}. It serves one run only.
 */
export interface LaunchedChain {
  /** The spawned pid: bubblewrap's own once the chain has exec'd. */
  readonly pid: number;
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** bubblewrap's JSON status. */
  readonly status: Readable;
  /** Where the run's arguments are written, once, then closed. */
  readonly args: Writable;
  readonly block?: Writable;
  /** Where the portal's bind sources are written, once, then closed (a chain with a portal). */
  readonly portal?: Writable;
  /** Every pipe of the chain, to destroy once the run is over. */
  readonly pipes: readonly (Readable | Writable)[];
  /** Resolves when the chain's first process exited (or could not be spawned: `error`). */
  readonly exited: Promise<ChainExit & { readonly error?: string }>;
  /** Resolves when the chain exited and all its pipes closed. */
  readonly closed: Promise<void>;
  /** True until the chain exits or is killed. */
  alive(): boolean;
  /** SIGKILLs the chain (see {@link killChain}); the sandbox goes with it. */
  kill(): void;
  /** Whether this process may exit while the chain waits: `false` for a chain kept ahead of its run. */
  hold(held: boolean): void;
}

/**
 * SIGKILLs the launch chain: its process group (it was spawned as a group leader) and
 * bubblewrap itself. bubblewrap's --die-with-parent then SIGKILLs the sandbox's init, and
 * the kernel kills every other process of that PID namespace: the whole tree, `setsid`
 * daemons included, with nothing for the script to catch.
 */
export function killChain(child: ChildProcess): void {
  if (child.pid === undefined) return;
  for (const target of [-child.pid, child.pid]) {
    try {
      process.kill(target, "SIGKILL");
    } catch {
      // gone already
    }
  }
}

/**
 * Spawns the chain with pipes for stdin, stdout, stderr, bubblewrap's status, its arguments
 * (and its block descriptor), the given files at their numbers and /dev/null over leaked
 * descriptors. Returns the error's code when the spawn fails. Never throws.
 */
export function spawnLaunch(spec: LaunchSpec): LaunchedChain | { readonly error: string } {
  const program = spec.argv[0];
  if (program === undefined) return { error: "empty command" };
  let child: ChildProcess;
  const opened: number[] = [];
  try {
    const files: Record<number, number> = {};
    for (const [fd, path] of Object.entries(spec.files)) {
      const descriptor = openSync(path, "r");
      opened.push(descriptor);
      files[Number(fd)] = descriptor;
    }
    child = spawn(program, spec.argv.slice(1), {
      env: { ...spec.env },
      detached: true,
      stdio: sandboxStdio(files, spec.block, spec.portal),
    });
  } catch (error) {
    return { error: (error as NodeJS.ErrnoException).code ?? String(error) };
  } finally {
    // The child has its own copies now (or never started).
    for (const descriptor of opened) closeSync(descriptor);
  }
  let exit: (ChainExit & { error?: string }) | undefined;
  const exited = new Promise<ChainExit & { error?: string }>((resolve) => {
    child.once("exit", (code, signal) => {
      exit ??= { code, signal };
      resolve(exit);
    });
    child.once("error", (error) => {
      // Only a failed spawn emits `error` before `exit`; later ones (a kill of a dead pid) are ignored.
      if (exit !== undefined) return;
      exit = { code: null, signal: null, error: (error as NodeJS.ErrnoException).code ?? String(error) };
      resolve(exit);
    });
  });
  const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
  const chainExited = (): boolean => exit !== undefined;
  // A chain still alive is killed when this process exits, so a crash or process.exit() in the
  // middle of a run tears its sandbox down (bubblewrap's --die-with-parent does the rest), and
  // a chain kept ahead of a run never outlives the process.
  if (child.pid !== undefined) void exited.then(onProcessExit(() => killChain(child)));
  const stdio = child.stdio as readonly (Readable | Writable | null | undefined)[];
  const pipes = stdio.filter((stream): stream is Readable | Writable => stream != null);
  // A pipe closed by the other end (a script that never reads stdin) is not an error.
  for (const pipe of pipes) pipe.on("error", () => undefined);
  const pipe = <T>(fd: number): T => stdio[fd] as T;
  let killed = false;
  return {
    pid: child.pid ?? -1,
    stdin: pipe<Writable>(0),
    stdout: pipe<Readable>(1),
    stderr: pipe<Readable>(2),
    status: pipe<Readable>(SANDBOX_FDS.status),
    args: pipe<Writable>(SANDBOX_FDS.args),
    ...(spec.block ? { block: pipe<Writable>(SANDBOX_FDS.block) } : {}),
    ...(spec.portal ? { portal: pipe<Writable>(SANDBOX_FDS.portal) } : {}),
    pipes,
    exited,
    closed,
    alive: () => !killed && !chainExited() && child.pid !== undefined,
    kill() {
      killed = true;
      // Once bubblewrap has exited the kernel has torn the sandbox down; its pid may even be reused.
      if (!chainExited()) killChain(child);
    },
    hold(held) {
      for (const handle of [child, ...pipes] as unknown as { ref?: () => void; unref?: () => void }[])
        held ? handle.ref?.() : handle.unref?.();
    },
  };
}

/** O_CLOEXEC as `/proc/self/fdinfo` prints flags (octal). */
const O_CLOEXEC = 0o2000000;
let devNull: number | undefined;

/**
 * The spawn's stdio: pipes for stdin, stdout, stderr, bubblewrap's status and arguments (and
 * its block descriptor when the run waits for cgroups, the portal's sources), the given files at their numbers, and
 * /dev/null over every other descriptor this process holds without close-on-exec. Such
 * descriptors (inherited from whoever started skillgate: a shell's or a supervisor's pipe)
 * would otherwise pass through bubblewrap into the sandbox, a channel to the host that no
 * namespace closes. libuv cannot close a child's descriptor, but it can put another file in
 * its place; /proc/self/fdinfo says which ones need it.
 */
export function sandboxStdio(
  files: Readonly<Record<number, number>>,
  block: boolean,
  portal = false,
): StdioOptions {
  const stdio: (number | "pipe" | "ignore")[] = ["pipe", "pipe", "pipe"];
  const set = (fd: number, value: number | "pipe"): void => {
    while (stdio.length <= fd) stdio.push("ignore");
    stdio[fd] = value;
  };
  set(SANDBOX_FDS.status, "pipe");
  set(SANDBOX_FDS.args, "pipe");
  if (block) set(SANDBOX_FDS.block, "pipe");
  if (portal) set(SANDBOX_FDS.portal, "pipe");
  for (const [fd, descriptor] of Object.entries(files)) set(Number(fd), descriptor);
  for (const fd of inheritableDescriptors()) {
    if (fd <= 2 || (fd < stdio.length && stdio[fd] !== "ignore")) continue;
    devNull ??= openSync("/dev/null", "r");
    set(fd, devNull);
  }
  return stdio;
}

/** Descriptors of this process without close-on-exec, from /proc/self/fdinfo (empty where /proc is missing). */
export function inheritableDescriptors(): number[] {
  let entries: string[];
  try {
    entries = readdirSync("/proc/self/fd");
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const entry of entries) {
    const fd = Number(entry);
    if (!Number.isInteger(fd)) continue;
    try {
      const flags = /^flags:\s+([0-7]+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, "utf8"))?.[1];
      if (flags !== undefined && (Number.parseInt(flags, 8) & O_CLOEXEC) === 0) found.push(fd);
    } catch {
      // closed while listing (the descriptor readdir itself used, for one)
    }
  }
  return found.sort((left, right) => left - right);
}
