import { type FSWatcher, watch } from "node:fs";
import type { ApprovalQueue } from "../../policy/approval-queue.js";
import { ensureFolder } from "../../policy/approval-queue-files.js";
import type { ApprovalRequest } from "../../policy/approvals.js";

/** How the waiting requests changed since the last look. */
export interface ApprovalChange {
  /** Requests that now wait for the owner. */
  readonly added: readonly ApprovalRequest[];
  /** Ids that no longer wait: answered (here or by another process), settled, used or expired. */
  readonly removed: readonly string[];
}

/** Options of {@link watchApprovals}. */
export interface ApprovalWatchOptions {
  /** Changes within this many milliseconds are told as one (default 25). */
  readonly settleMs?: number;
}

/**
 * Tells `onChange` whenever the requests waiting in the approval queue change, whoever
 * changed them: an ask queued by this process or another (an MCP server, a library), an
 * answer from the CLI or the API. It watches `<data>/approvals` (created if missing, as
 * the queue would create it) with the file system's notifications, never by polling, and
 * compares the waiting ids. The watch does not keep the process alive; the returned
 * function stops it. A watch that fails (the folder removed) stops quietly.
 */
export function watchApprovals(
  queue: ApprovalQueue,
  onChange: (change: ApprovalChange) => void,
  options: ApprovalWatchOptions = {},
): () => void {
  ensureFolder(queue.folder);
  let known = new Set(queue.pending().map((request) => request.id));
  let timer: NodeJS.Timeout | undefined;
  let watcher: FSWatcher | undefined;
  const look = (): void => {
    timer = undefined;
    let pending: ApprovalRequest[];
    try {
      pending = queue.pending();
    } catch {
      return;
    }
    const now = new Set(pending.map((request) => request.id));
    const added = pending.filter((request) => !known.has(request.id));
    const removed = [...known].filter((id) => !now.has(id));
    known = now;
    if (added.length > 0 || removed.length > 0) onChange({ added, removed });
  };
  const stop = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    watcher?.close();
    watcher = undefined;
  };
  watcher = watch(queue.folder, { persistent: false }, () => {
    if (timer !== undefined) return;
    timer = setTimeout(look, options.settleMs ?? 25);
    timer.unref();
  });
  watcher.on("error", stop);
  return stop;
}
