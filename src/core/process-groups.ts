/**
 * What skillgate must undo if this process exits while it is running: process groups it
 * started and has not seen end, sandboxes kept ahead of their runs. One `exit` listener runs
 * every registered action, in the order they were registered, so a crash or
 * `process.exit()` in the middle of a run or a hook leaves nothing behind.
 */
const exitActions = new Set<() => void>();
let exitHookInstalled = false;

/**
 * Runs `action` when this process exits (it must be synchronous: nothing else runs then).
 * Returns the function that drops it, for when what it would undo has ended on its own. An
 * action that throws does not stop the others.
 */
export function onProcessExit(action: () => void): () => void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once("exit", () => {
      for (const each of exitActions) {
        try {
          each();
        } catch {
          // The process is ending: the next action still gets its turn.
        }
      }
    });
  }
  // A wrapper of its own, so one function registered twice is two registrations.
  const entry = (): void => action();
  exitActions.add(entry);
  return () => {
    exitActions.delete(entry);
  };
}

/** Sends a signal to every process of a group; a group that is gone already is fine. */
export function killGroup(group: number, signal: NodeJS.Signals = "SIGKILL"): void {
  try {
    process.kill(-group, signal);
  } catch {
    // ESRCH: nobody left in the group.
  }
}

/**
 * Records a live group (its leader's pid) so it is killed if this process exits first.
 * Returns the function that forgets it once it has ended.
 */
export function holdGroup(group: number): () => void {
  return onProcessExit(() => killGroup(group, "SIGKILL"));
}

/**
 * True for a name `<prefix><pid>-…` that a process gave something it made (a cgroup, a
 * folder) when that process no longer exists, so what it left may be swept. False for any
 * other name, and while the process lives (one this process may not signal counts as alive).
 */
export function leftByEndedProcess(name: string, prefix: string): boolean {
  if (!name.startsWith(prefix)) return false;
  const owner = Number(name.slice(prefix.length).split("-")[0]);
  return Number.isInteger(owner) && owner > 0 && processHasEnded(owner);
}

/**
 * True when no process `pid` exists any more (a process this one may not signal counts as
 * alive). Only meaningful for a pid of this host and pid namespace.
 */
export function processHasEnded(pid: number): boolean {
  return !processExists(pid);
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
