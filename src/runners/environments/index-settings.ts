/**
 * Where a language's packages come from: an index reached over the network (through the
 * domain proxy, which lets the build reach only the index's hosts), or a folder on this host
 * (offline: pip's `--no-index --find-links`, an npm tarball folder), bound read-only into the
 * build's sandbox. See docs/running-scripts.md, "Packages".
 */
export type PackageSource =
  | {
      readonly kind: "url";
      /** pip's `--index-url` (a PEP 503 simple index) or npm's `--registry`. */
      readonly url: string;
      /** Every host the build may reach, `host` or `host:port` (the index's own, its file hosts). */
      readonly hosts: readonly string[];
    }
  | {
      readonly kind: "folder";
      /** An absolute folder: wheels (and any sdists) for pip, `npm pack` tarballs for npm. */
      readonly folder: string;
    };

/** The package sources of both languages. */
export interface PackageIndexes {
  readonly python: PackageSource;
  readonly node: PackageSource;
}

/** PyPI and the npm registry, each with the hosts its files are served from. */
export const DEFAULT_PACKAGE_INDEXES: PackageIndexes = {
  python: { kind: "url", url: "https://pypi.org/simple", hosts: ["pypi.org", "files.pythonhosted.org"] },
  node: { kind: "url", url: "https://registry.npmjs.org/", hosts: ["registry.npmjs.org"] },
};

/**
 * The proxy's allow-list entry for a URL's host: the host for the scheme's default port
 * (`https` 443, `http` 80), else `host:port`; `undefined` for anything that is not an
 * `http(s)` URL with a host name.
 */
export function allowedHostOf(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return undefined;
  if (parsed.username !== "" || parsed.password !== "" || parsed.hostname === "") return undefined;
  const defaultPort = parsed.protocol === "https:" ? "443" : "80";
  return parsed.port === "" || parsed.port === defaultPort
    ? parsed.hostname
    : `${parsed.hostname}:${parsed.port}`;
}

/** How a source is shown in an approval: the URL, or the folder marked offline. */
export function describeSource(source: PackageSource): string {
  return source.kind === "url" ? source.url : `the folder ${source.folder} (offline)`;
}
