import { createHash } from "node:crypto";
import { lstatSync, mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeFileAtomicallySync } from "../../core/durable-fs.js";
import { removeTree } from "../../core/remove-tree.js";
import { sandboxGroup, sandboxHosts, sandboxPasswd } from "./layout.js";
import { sandboxSeccompBytes } from "./seccomp.js";

/** The files every run hands bubblewrap: the same bytes each time. */
export interface SandboxStaticFiles {
  readonly seccomp: string;
  readonly passwd: string;
  readonly group: string;
  readonly hosts: string;
}

let files: SandboxStaticFiles | undefined;

/**
 * The seccomp program and the sandbox's `/etc/passwd`, `/etc/group` and `/etc/hosts` as
 * files. Each run opens them afresh and passes the descriptors to bubblewrap (`--seccomp FD`,
 * `--ro-bind-data FD`): a file description of its own per run, so no two runs share a read
 * offset, and no pipe is needed for bytes that never change. bubblewrap reads only the
 * descriptors, so the folder's mode does not matter to the sandbox user.
 *
 * They live in `<tmp>/skillgate-sandbox-files-<uid>`, shared by every skillgate process of
 * this user, named by their content's hash and checked once per process (the folder must be
 * this user's own, 0700, not a link; each file this user's, regular, with the expected
 * bytes). A folder that fails the check (someone else made it first) is not used: the
 * process then writes its own private folder and removes it when it exits.
 */
export function sandboxStaticFiles(): SandboxStaticFiles {
  if (files !== undefined) return files;
  const contents = {
    seccomp: sandboxSeccompBytes(),
    passwd: Buffer.from(sandboxPasswd()),
    group: Buffer.from(sandboxGroup()),
    hosts: Buffer.from(sandboxHosts()),
  };
  const uid = process.getuid?.() ?? 0;
  const shared = join(tmpdir(), `skillgate-sandbox-files-${uid}`);
  try {
    mkdirSync(shared, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  if (ownPrivateFolder(shared, uid)) {
    const placed = placeAll(shared, contents, uid);
    if (placed !== undefined) {
      files = placed;
      return files;
    }
  }
  const own = mkdtempSync(join(tmpdir(), "skillgate-sandbox-files-"));
  process.once("exit", () => removeTree(own));
  files = placeAll(own, contents, uid);
  if (files === undefined) throw new Error(`cannot write the sandbox's files in ${own}`);
  return files;
}

function placeAll(
  folder: string,
  contents: Record<keyof SandboxStaticFiles, Buffer>,
  uid: number,
): SandboxStaticFiles | undefined {
  const place = (kind: string, bytes: Buffer): string | undefined => {
    const path = join(folder, `${kind}-${createHash("sha256").update(bytes).digest("hex").slice(0, 16)}`);
    const stats = lstatSync(path, { throwIfNoEntry: false });
    if (stats === undefined) {
      // The one atomic write, so another process never opens a half-written file.
      writeFileAtomicallySync(path, bytes, { mode: 0o400 });
      return path;
    }
    if (!stats.isFile() || stats.uid !== uid || !readFileSync(path).equals(bytes)) return undefined;
    return path;
  };
  const seccomp = place("seccomp", contents.seccomp);
  const passwd = place("passwd", contents.passwd);
  const group = place("group", contents.group);
  const hosts = place("hosts", contents.hosts);
  if (seccomp === undefined || passwd === undefined || group === undefined || hosts === undefined)
    return undefined;
  return { seccomp, passwd, group, hosts };
}

function ownPrivateFolder(path: string, uid: number): boolean {
  const stats = lstatSync(path, { throwIfNoEntry: false });
  if (stats === undefined) return false;
  return stats.isDirectory() && stats.uid === uid && (stats.mode & 0o077) === 0;
}
