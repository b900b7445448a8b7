import { statSync } from "node:fs";
import { isAbsolute } from "node:path";
import { bounded, mapping, unknownKeys } from "./config-fields.js";

/**
 * Where one language's packages come from (docs/running-scripts.md, "Packages"): an index
 * URL with the hosts the build may reach, or a folder on this host for offline builds.
 */
export type PackageSourceConfig =
  | { readonly kind: "url"; readonly url: string; readonly hosts: readonly string[] }
  | { readonly kind: "folder"; readonly folder: string };

/** The `packages` section of config.yaml. */
export interface PackagesConfig {
  readonly python: PackageSourceConfig;
  readonly node: PackageSourceConfig;
  /** Environments kept; the least recently used beyond this are removed. */
  readonly keep: number;
  /** A build is stopped after this long. */
  readonly buildTimeoutSeconds: number;
}

/** PyPI and the npm registry; 20 environments; 10 minutes a build. */
export const DEFAULT_PACKAGES_CONFIG: PackagesConfig = {
  python: { kind: "url", url: "https://pypi.org/simple", hosts: ["pypi.org", "files.pythonhosted.org"] },
  node: { kind: "url", url: "https://registry.npmjs.org/", hosts: ["registry.npmjs.org"] },
  keep: 20,
  buildTimeoutSeconds: 600,
};

const BOUNDS = { keep: { min: 1, max: 1000 }, buildTimeoutSeconds: { min: 10, max: 24 * 3600 } } as const;

/** Reads the `packages` section, adding every problem to `problems`. */
export function readPackagesConfig(section: Record<string, unknown>, problems: string[]): PackagesConfig {
  unknownKeys(section, "packages", ["python", "node", "keep", "build_timeout_seconds"], problems);
  const defaults = DEFAULT_PACKAGES_CONFIG;
  return {
    python: readSource(
      mapping(section, "python", "packages", problems),
      "packages.python",
      ["index_url", "find_links"],
      defaults.python,
      problems,
    ),
    node: readSource(
      mapping(section, "node", "packages", problems),
      "packages.node",
      ["registry", "tarballs"],
      defaults.node,
      problems,
    ),
    keep: bounded(section.keep, "packages.keep", BOUNDS.keep, defaults.keep, problems),
    buildTimeoutSeconds: bounded(
      section.build_timeout_seconds,
      "packages.build_timeout_seconds",
      BOUNDS.buildTimeoutSeconds,
      defaults.buildTimeoutSeconds,
      problems,
    ),
  };
}

/**
 * One language's source: `[url key]` (an http(s) URL naming a host, not an address: the
 * proxy allows host names only) with optional extra `hosts`, or `[folder key]` (an absolute
 * path to an existing folder). Both, or a bad value, is a problem; neither is the default.
 */
function readSource(
  value: Record<string, unknown>,
  where: string,
  [urlKey, folderKey]: readonly [string, string],
  fallback: PackageSourceConfig,
  problems: string[],
): PackageSourceConfig {
  unknownKeys(value, where, [urlKey, folderKey, "hosts"], problems);
  const url = value[urlKey];
  const folder = value[folderKey];
  if (url !== undefined && folder !== undefined) {
    problems.push(`"${where}" takes ${urlKey} or ${folderKey}, not both`);
    return fallback;
  }
  if (folder !== undefined) {
    if (
      typeof folder !== "string" ||
      !isAbsolute(folder) ||
      statSync(folder, { throwIfNoEntry: false })?.isDirectory() !== true
    ) {
      problems.push(`"${where}.${folderKey}" must be the absolute path of an existing folder`);
      return fallback;
    }
    return { kind: "folder", folder };
  }
  const extra = hostsOf(value.hosts, `${where}.hosts`, problems);
  if (url === undefined)
    return extra.length > 0 && fallback.kind === "url"
      ? { ...fallback, hosts: [...fallback.hosts, ...extra] }
      : fallback;
  const host = typeof url === "string" ? urlHost(url) : undefined;
  if (host === undefined) {
    problems.push(
      `"${where}.${urlKey}" must be an http or https URL naming a host (not an address, no user name)`,
    );
    return fallback;
  }
  return { kind: "url", url: url as string, hosts: [host, ...extra.filter((item) => item !== host)] };
}

const HOST =
  /^(?=.{1,253}(:\d{1,5})?$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,62}(:\d{1,5})?$/;

function hostsOf(value: unknown, where: string, problems: string[]): string[] {
  if (value === undefined || value === null) return [];
  if (
    Array.isArray(value) &&
    value.every((item) => typeof item === "string" && HOST.test(item.toLowerCase()))
  )
    return value.map((item) => (item as string).toLowerCase());
  problems.push(`"${where}" must be a list of host names (host or host:port)`);
  return [];
}

/** The allow-list entry of an index URL: its host (with a port other than the scheme's). */
function urlHost(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return undefined;
  if (parsed.username !== "" || parsed.password !== "") return undefined;
  const name = parsed.hostname.toLowerCase();
  if (!HOST.test(name) || /^[0-9.]+$/.test(name)) return undefined;
  const defaultPort = parsed.protocol === "https:" ? "443" : "80";
  return parsed.port === "" || parsed.port === defaultPort ? name : `${name}:${parsed.port}`;
}
