import { headerValues } from "./headers.js";
import type { ProxyState } from "./proxy-state.js";
import type { ProxyRefusal, ProxyRefusalReason } from "./refusals.js";
import { checkTarget, hostHeaderAgrees, type ProxyRequestKind, type ProxyTarget } from "./target.js";

/** A request let through to name resolution, with the connection slot it now holds; or why not. */
export type Admission =
  | { readonly ok: true; readonly target: ProxyTarget; readonly release: () => void }
  | { readonly ok: false; readonly refusal: Omit<ProxyRefusal, "kind"> };

/**
 * The checks every proxy request (a CONNECT or a plain HTTP request) passes before any name
 * is resolved, in this order: the target's name and port against every name rule and the
 * skill's allow-list; at most one Host header, and one that agrees with the target; then a
 * free connection slot (`too_many_tunnels` when the cap is reached). The caller releases the
 * slot when its connection ends.
 */
export function admit(
  state: ProxyState,
  authority: string,
  kind: ProxyRequestKind,
  rawHeaders: readonly string[],
): Admission {
  const check = checkTarget(authority, kind, state.allowList);
  if (!check.ok) return { ok: false, refusal: { host: check.host, port: check.port, reason: check.reason } };
  const { target } = check;
  const refused = (reason: ProxyRefusalReason): Admission => ({
    ok: false,
    refusal: { host: target.host, port: target.port, reason },
  });
  const hostHeaders = headerValues(rawHeaders, "host");
  if (hostHeaders.length > 1) return refused("bad_request");
  const [hostHeader] = hostHeaders;
  if (hostHeader !== undefined && !hostHeaderAgrees(hostHeader, target, kind))
    return refused("host_mismatch");
  const release = state.acquireSlot();
  if (release === undefined) return refused("too_many_tunnels");
  return { ok: true, target, release };
}
