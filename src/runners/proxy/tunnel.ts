import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import { admit } from "./admit.js";
import type { ProxyState } from "./proxy-state.js";
import type { ProxyRefusal } from "./refusals.js";
import { resolveChecked } from "./resolve.js";
import { rawResponse, refuseOnSocket, unreachableText } from "./respond.js";
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
  const admission = admit(state, request.url ?? "", "connect", request.rawHeaders);
  if (!admission.ok) return refuse(admission.refusal);
  const { target, release } = admission;
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
