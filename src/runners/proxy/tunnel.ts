import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import { headerValues } from "./headers.js";
import type { ProxyState } from "./proxy-state.js";
import type { ProxyRefusal } from "./refusals.js";
import { resolveChecked } from "./resolve.js";
import { rawResponse, refuseOnSocket, unreachableText } from "./respond.js";
import { checkTarget, hostHeaderAgrees } from "./target.js";
import { connectToChecked } from "./upstream.js";

/**
 * Handles `CONNECT host:port`: the target must pass every name check and the allow-list,
 * a Host header on the CONNECT request (if any) must agree with it, the name is resolved
 * once and every address checked, and the tunnel goes to a checked address. What flows
 * inside the tunnel (TLS, and any Host header within it) is not inspected: the peer is
 * fixed by the checked address, whatever the bytes say.
 */
export function handleConnect(
  state: ProxyState,
  request: IncomingMessage,
  client: Socket,
  head: Buffer,
): void {
  client.on("error", () => client.destroy());
  client.setTimeout(state.limits.idleTimeoutMs, () => client.destroy());
  openTunnel(state, request, client, head).catch(() => client.destroy());
}

async function openTunnel(state: ProxyState, request: IncomingMessage, client: Socket, head: Buffer) {
  const refuse = (refusal: Omit<ProxyRefusal, "kind">) =>
    refuseOnSocket(state, client, { ...refusal, kind: "connect" });
  const check = checkTarget(request.url ?? "", "connect", state.allowList);
  if (!check.ok) return refuse({ host: check.host, port: check.port, reason: check.reason });
  const { target } = check;
  const hostHeaders = headerValues(request.rawHeaders, "host");
  if (hostHeaders.length > 1) return refuse({ host: target.host, port: target.port, reason: "bad_request" });
  const [hostHeader] = hostHeaders;
  if (hostHeader !== undefined && !hostHeaderAgrees(hostHeader, target, "connect"))
    return refuse({ host: target.host, port: target.port, reason: "host_mismatch" });

  const release = state.acquireSlot();
  if (release === undefined)
    return refuse({ host: target.host, port: target.port, reason: "too_many_tunnels" });
  const abort = new AbortController();
  client.once("close", () => {
    release();
    abort.abort();
  });
  const resolved = await resolveChecked(
    target.host,
    state.resolve,
    state.block,
    state.limits.resolveTimeoutMs,
  );
  if (client.destroyed) return;
  if (!resolved.ok) {
    release();
    return refuse({ host: target.host, port: target.port, reason: resolved.reason });
  }
  let upstream: Socket;
  try {
    upstream = await connectToChecked(
      resolved.addresses,
      target.port,
      state.limits.connectTimeoutMs,
      abort.signal,
    );
  } catch {
    release();
    if (client.destroyed) return;
    state.countUpstreamFailure();
    client.end(rawResponse(502, unreachableText(target.host, target.port)));
    return;
  }
  if (client.destroyed) {
    upstream.destroy();
    return;
  }
  state.track(upstream);
  state.countTunnel();
  const closeBoth = () => {
    client.destroy();
    upstream.destroy();
  };
  upstream.once("close", closeBoth);
  client.once("close", closeBoth);
  upstream.setTimeout(state.limits.idleTimeoutMs, closeBoth);
  client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
  if (head.length > 0) upstream.write(head);
  upstream.pipe(client);
  client.pipe(upstream);
}
