/**
 * Process groups skillgate started and has not yet seen end. Each is killed when this
 * process exits, so a crash or `process.exit()` in the middle of a run or a hook leaves
 * nothing behind. One registry for every place that starts a group (runners, shell hooks).
 */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

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
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once("exit", () => {
      for (const live of liveGroups) killGroup(live, "SIGKILL");
    });
  }
  liveGroups.add(group);
  return () => {
    liveGroups.delete(group);
  };
}
