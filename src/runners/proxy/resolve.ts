import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import type { AddressBlock, BlockedCategory } from "./address-block.js";

/** One address a name resolved to. */
export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/** Turns a canonical host name into every address it has. Injectable so tests stay on loopback. */
export type Resolve = (host: string) => Promise<readonly ResolvedAddress[]>;

/** The system resolver (`getaddrinfo` through `dns.lookup`), all addresses, in the system's order. */
export const systemResolve: Resolve = async (host) => {
  const found = await lookup(host, { all: true, verbatim: true });
  return found.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));
};

/** The outcome of resolving a name once and judging every address. */
export type ResolveCheck =
  | { readonly ok: true; readonly addresses: readonly ResolvedAddress[] }
  | {
      readonly ok: false;
      readonly reason: "resolve_failed" | "blocked_address";
      /** The first blocked address and why, for `blocked_address`. */
      readonly blocked?: { readonly address: string; readonly category: BlockedCategory };
    };

/**
 * Resolves `host` once and refuses if ANY address is blocked: a name with one public and
 * one private address is refused, not half-allowed, because the client cannot tell which
 * one it will get. The caller connects to the returned addresses themselves and never
 * resolves the name again, so there is no window for DNS rebinding. A resolver that throws,
 * returns nothing or exceeds `timeoutMs` is `resolve_failed`.
 */
export async function resolveChecked(
  host: string,
  resolve: Resolve,
  block: AddressBlock,
  timeoutMs: number,
): Promise<ResolveCheck> {
  let addresses: readonly ResolvedAddress[];
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("resolve timed out")), timeoutMs);
    });
    addresses = await Promise.race([resolve(host), timeout]);
  } catch {
    return { ok: false, reason: "resolve_failed" };
  } finally {
    clearTimeout(timer);
  }
  if (!Array.isArray(addresses) || addresses.length === 0) return { ok: false, reason: "resolve_failed" };
  const checked: ResolvedAddress[] = [];
  for (const entry of addresses) {
    const address = typeof entry?.address === "string" ? entry.address : "";
    const category = block.blockedCategory(address);
    if (category !== undefined)
      return { ok: false, reason: "blocked_address", blocked: { address, category } };
    // The family comes from the address itself, not from what the resolver claimed.
    checked.push({ address, family: isIP(address) === 6 ? 6 : 4 });
  }
  return { ok: true, addresses: checked };
}
