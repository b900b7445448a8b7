import { statSync } from "node:fs";
import { dirname } from "node:path";

/** The host identity bubblewrap runs as: its real uid and gid, with no supplementary groups. */
export interface HostIdentity {
  readonly uid: number;
  readonly gid: number;
}

/** What the identity must be able to do with the last component. */
export type Access = "list" | "read" | "connect";

const READ = 4;
const WRITE = 2;
const EXECUTE = 1;

/** {@link reach}'s answer: `ok`; a folder above is closed to the identity; or the path's own mode refuses. */
export type Reach = "ok" | "folder_closed" | "denied" | "missing";

/**
 * Whether `identity` could open `path` by name: search permission on every folder above it,
 * and on the path itself read and search (a folder to bind), read (a file) or write (a Unix
 * socket to connect to). bubblewrap resolves bind sources by name as the unprivileged
 * sandbox user, so a snapshot under a 0700 folder of root's (the default data folder when
 * skillgate runs as root) is out of its reach even though root can open it; a bind made
 * elsewhere fixes `folder_closed`, nothing fixes `denied`. POSIX mode bits only: an ACL
 * granting more is not seen, which errs toward the portal (still correct). `path` must be
 * absolute and already resolved (no symbolic links in it).
 */
export function reach(path: string, identity: HostIdentity, access: Access): Reach {
  const last = statOrUndefined(path);
  if (last === undefined) return "missing";
  if (identity.uid === 0) return "ok";
  const wanted = access === "list" ? READ | EXECUTE : access === "read" ? READ : WRITE;
  if (!allows(last, identity, wanted)) return "denied";
  let folder = dirname(path);
  for (;;) {
    const stats = statOrUndefined(folder);
    if (stats === undefined || !allows(stats, identity, EXECUTE)) return "folder_closed";
    const parent = dirname(folder);
    if (parent === folder) return "ok";
    folder = parent;
  }
}

function allows(
  stats: { mode: number; uid: number; gid: number },
  identity: HostIdentity,
  wanted: number,
): boolean {
  const shift = stats.uid === identity.uid ? 6 : stats.gid === identity.gid ? 3 : 0;
  return ((stats.mode >> shift) & wanted) === wanted;
}

function statOrUndefined(path: string): { mode: number; uid: number; gid: number } | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}
