import { hostname, networkInterfaces } from "node:os";
import { isLoopbackHost } from "../../mcp/http.js";

/** The names a request's `Host` may carry: bound authorities exactly, and names on any port. */
export interface AllowedHosts {
  /** `name:port` pairs of the bound address (lower case, IPv6 in brackets). */
  readonly authorities: ReadonlySet<string>;
  /** Names allowed on any port: the ones the owner added (a reverse proxy's name). */
  readonly names: ReadonlySet<string>;
}

const LOOPBACK_NAMES = ["127.0.0.1", "localhost", "[::1]"];

/**
 * The authorities a server bound to `bindHost:port` answers to. A loopback bind answers to
 * every loopback name; a wildcard bind (`0.0.0.0`, `::`) to those and to this machine's
 * interface addresses and host name; any other address to itself. `extraNames` are allowed
 * on any port, so a TLS reverse proxy that passes its own Host through is answered.
 * Anything else is a DNS-rebinding attempt or a mistake, and is refused (docs/server.md).
 */
export function allowedHosts(
  bindHost: string,
  port: number,
  extraNames: readonly string[] = [],
): AllowedHosts {
  const names = new Set<string>();
  const bare = bindHost.replace(/^\[|\]$/g, "").toLowerCase();
  if (isLoopbackHost(bare)) for (const name of LOOPBACK_NAMES) names.add(name);
  else if (bare === "0.0.0.0" || bare === "::") {
    for (const name of LOOPBACK_NAMES) names.add(name);
    for (const addresses of Object.values(networkInterfaces()))
      for (const address of addresses ?? [])
        names.add(address.family === "IPv6" ? `[${address.address.toLowerCase()}]` : address.address);
    const machine = hostname().toLowerCase();
    names.add(machine);
    names.add(`${machine}.local`);
  } else names.add(bare.includes(":") ? `[${bare}]` : bare);
  return {
    authorities: new Set([...names].map((name) => `${name}:${port}`)),
    names: new Set(extraNames.map((name) => name.toLowerCase())),
  };
}

/** Splits a Host header (or an Origin's host) into name and port; the port is 80 when left out. */
export function parseAuthority(authority: string): { name: string; port: number } | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[^\s:[\]/@]+)(?::(\d{1,5}))?$/i.exec(authority.trim());
  if (match === null) return undefined;
  return { name: (match[1] as string).toLowerCase(), port: match[2] === undefined ? 80 : Number(match[2]) };
}

/** True when `authority` (a Host header's value) names this server. */
export function isAllowedAuthority(allowed: AllowedHosts, authority: string): boolean {
  const parsed = parseAuthority(authority);
  if (parsed === undefined) return false;
  return allowed.names.has(parsed.name) || allowed.authorities.has(`${parsed.name}:${parsed.port}`);
}
