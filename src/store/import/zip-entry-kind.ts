import { ImportRefusedError } from "./import-errors.js";

/** What a zip entry is, judged from its name and its external attributes. */
export interface ZipEntryKind {
  readonly kind: "file" | "folder";
  /** The owner-execute bit of a Unix mode, so scripts stay runnable. */
  readonly executable: boolean;
}

/** "Version made by" hosts whose upper external attribute bytes hold a Unix `st_mode`. */
const UNIX_HOSTS = new Set([3 /* Unix */, 19 /* OS X */]);
const FILE_TYPE_MASK = 0o170000;
const REGULAR_FILE = 0o100000;
const FOLDER = 0o040000;
const SYMLINK = 0o120000;
const SPECIAL_BITS = 0o7000;
/** MS-DOS attribute bits kept in the low byte by every common zip tool. */
const DOS_FOLDER = 0x10;
const DOS_REPARSE_POINT = 0x400;

/**
 * Classifies an entry and refuses what a skill folder may not hold: symbolic links (Unix
 * `S_IFLNK`, or a Windows reparse point), any other non-regular file type (devices, FIFOs,
 * sockets, and anything a tool might use for a hard link), setuid/setgid/sticky bits, and
 * an entry whose name and attributes disagree about being a folder.
 *
 * @throws ImportRefusedError `symlink_not_allowed`, `unsupported_entry`
 */
export function classifyZipEntry(
  path: string,
  nameIsFolder: boolean,
  versionMadeBy: number,
  externalAttributes: number,
): ZipEntryKind {
  const unsupported = (why: string): never => {
    throw new ImportRefusedError("unsupported_entry", `${path} is not allowed: ${why}`, { path });
  };
  if ((externalAttributes & DOS_REPARSE_POINT) !== 0) {
    throw new ImportRefusedError("symlink_not_allowed", `${path} is a link; skills may not hold links`, {
      path,
    });
  }
  const dosFolder = (externalAttributes & DOS_FOLDER) !== 0;
  let executable = false;
  let modeSaysFolder: boolean | undefined;
  if (UNIX_HOSTS.has(versionMadeBy >>> 8)) {
    const mode = externalAttributes >>> 16;
    const type = mode & FILE_TYPE_MASK;
    if (type === SYMLINK) {
      throw new ImportRefusedError(
        "symlink_not_allowed",
        `${path} is a symbolic link; skills may not hold links`,
        {
          path,
        },
      );
    }
    if (type !== 0 && type !== REGULAR_FILE && type !== FOLDER) {
      unsupported(`file type ${type.toString(8).padStart(6, "0")} is not a regular file or folder`);
    }
    if ((mode & SPECIAL_BITS) !== 0) unsupported("setuid, setgid and sticky bits are refused");
    if (type !== 0) modeSaysFolder = type === FOLDER;
    executable = (mode & 0o100) !== 0 && type !== FOLDER;
  }
  if (modeSaysFolder !== undefined && modeSaysFolder !== nameIsFolder) {
    unsupported(
      nameIsFolder
        ? "the name is a folder but the mode is a file"
        : "the mode is a folder but the name is a file",
    );
  }
  if (dosFolder && !nameIsFolder) unsupported("the attributes say folder but the name is a file");
  return { kind: nameIsFolder ? "folder" : "file", executable };
}
