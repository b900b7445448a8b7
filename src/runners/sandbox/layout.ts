import { lstatSync, readlinkSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";

/** The sandbox user: `nobody` on Debian, inside the sandbox and (as root) on the host. */
export const SANDBOX_UID = 65534;
/** The sandbox user's group. */
export const SANDBOX_GID = 65534;

/**
 * setpriv's options that turn host root into the sandbox user before bubblewrap starts: its
 * uid and gid, no supplementary groups, and no capability inherited or left in the bounding set.
 */
export const SETPRIV_DROP_ROOT: readonly string[] = [
  `--reuid=${SANDBOX_UID}`,
  `--regid=${SANDBOX_GID}`,
  "--clear-groups",
  "--inh-caps=-all",
  "--bounding-set=-all",
];
/** Where the skill's snapshot appears inside the sandbox, read-only. */
export const SKILL_MOUNT = "/skill";
/** Where the proxy's Unix socket appears inside the sandbox. */
export const PROXY_SOCKET_MOUNT = "/proxy.sock";
/** The port the proxy bridge listens on, on the sandbox's own loopback. */
export const PROXY_BRIDGE_PORT = 3128;
/** The sandbox's host name. */
export const SANDBOX_HOSTNAME = "sandbox";

/** How one top-level path of the host appears in the sandbox. */
export type RootEntry =
  | { readonly kind: "symlink"; readonly path: string; readonly target: string }
  | { readonly kind: "bind"; readonly path: string };

/**
 * The loader's and shells' paths outside `/usr`: on a merged-/usr host (Debian 12) they are
 * symbolic links into `/usr` and are recreated as such; on an older layout they are bound
 * read-only. Absent ones are left out.
 */
const ROOT_PATHS = ["/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32"] as const;

/**
 * Files of `/etc` an interpreter may read, bound read-only when the host has them:
 * certificates (TLS through the proxy), the loader's cache (speed), the time zone and
 * OpenSSL's configuration. Nothing else of `/etc` is visible: no shadow, no host names,
 * no resolver, no users but the generated two.
 */
export const ETC_FILES = [
  "/etc/ssl/certs",
  "/etc/ssl/openssl.cnf",
  "/etc/ld.so.cache",
  "/etc/localtime",
] as const;

let cachedRoot: readonly RootEntry[] | undefined;

/** The host's top-level loader and shell paths, read once. */
export function hostRootEntries(): readonly RootEntry[] {
  cachedRoot ??= ROOT_PATHS.flatMap((path): RootEntry[] => {
    const stats = lstatSync(path, { throwIfNoEntry: false });
    if (stats === undefined) return [];
    if (stats.isSymbolicLink()) return [{ kind: "symlink", path, target: readlinkSync(path) }];
    return stats.isDirectory() ? [{ kind: "bind", path }] : [];
  });
  return cachedRoot;
}

/**
 * Whether resolving `path` goes through `/etc/alternatives` (Debian's switchable programs,
 * e.g. `/usr/bin/nodejs`): the sandbox then needs that folder too, read-only.
 */
export function resolvesThroughAlternatives(path: string): boolean {
  let current = path;
  for (let hop = 0; hop < 40; hop += 1) {
    let target: string;
    try {
      if (!lstatSync(current).isSymbolicLink()) return false;
      target = readlinkSync(current);
    } catch {
      return false;
    }
    current = isAbsolute(target) ? target : resolve(dirname(current), target);
    if (current.startsWith("/etc/alternatives/")) return true;
  }
  return false;
}

/** `/etc/passwd` of the sandbox: root (so files of unmapped owners have a name) and the sandbox user. */
export function sandboxPasswd(): string {
  return [
    "root:x:0:0:root:/nonexistent:/usr/sbin/nologin",
    `sandbox:x:${SANDBOX_UID}:${SANDBOX_GID}:skillgate sandbox:/tmp:/usr/sbin/nologin`,
    "",
  ].join("\n");
}

/** `/etc/group` of the sandbox. */
export function sandboxGroup(): string {
  return ["root:x:0:", `sandbox:x:${SANDBOX_GID}:`, ""].join("\n");
}

/** `/etc/hosts` of the sandbox: only the loopback names. */
export function sandboxHosts(): string {
  return `127.0.0.1\tlocalhost ${SANDBOX_HOSTNAME}\n::1\tlocalhost ip6-localhost\n`;
}
