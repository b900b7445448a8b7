import { request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { admit } from "./admit.js";
import { endToEndHeaders, type HeaderMap, headerValues } from "./headers.js";
import type { ProxyState } from "./proxy-state.js";
import type { ProxyRefusal } from "./refusals.js";
import { resolveChecked } from "./resolve.js";
import { refuseResponse, sendText, unreachableText } from "./respond.js";
import { DEFAULT_PORTS, parseAbsoluteUrl } from "./target.js";
import { connectToChecked } from "./upstream.js";

/**
 * Handles a plain HTTP request in absolute form (`GET http://host[:port]/path`): the URL's
 * host must pass every name check and the allow-list, the Host header (if any) must agree
 * with it, the name is resolved once and every address checked, and the request goes to a
 * checked address with hop-by-hop headers removed and `Host` set from the URL. Origin-form
 * requests (`GET /path`) and other schemes are `bad_request`: this is a proxy, not a server.
 */
export function handleRequest(state: ProxyState, request: IncomingMessage, response: ServerResponse): void {
  forward(state, request, response).catch(() => {
    state.countUpstreamFailure();
    sendText(response, 502, "HOST: the skillgate network proxy failed to forward the request.\n");
  });
}

async function forward(state: ProxyState, request: IncomingMessage, response: ServerResponse) {
  const refuse = (refusal: Omit<ProxyRefusal, "kind">) =>
    refuseResponse(state, response, { ...refusal, kind: "http" });
  const url = parseAbsoluteUrl(request.url ?? "");
  if (!url.ok) return refuse({ host: "", port: null, reason: "bad_request" });
  const admission = admit(state, url.authority, "http", request.rawHeaders);
  if (!admission.ok) return refuse(admission.refusal);
  const { target, release } = admission;
  const abort = new AbortController();
  let upstream: Socket | undefined;
  response.once("close", () => {
    release();
    abort.abort();
    upstream?.destroy();
  });
  const resolved = await resolveChecked(
    target.host,
    state.resolve,
    state.block,
    state.limits.resolveTimeoutMs,
  );
  if (abort.signal.aborted) return;
  if (!resolved.ok) return refuse({ host: target.host, port: target.port, reason: resolved.reason });
  try {
    upstream = await connectToChecked(
      resolved.addresses,
      target.port,
      state.limits.connectTimeoutMs,
      abort.signal,
    );
  } catch {
    if (abort.signal.aborted) return;
    state.countUpstreamFailure();
    return sendText(response, 502, unreachableText(target.host, target.port));
  }
  const socket = upstream;
  if (abort.signal.aborted) {
    socket.destroy();
    return;
  }
  state.track(socket);
  state.countForwarded();

  const headers: HeaderMap = endToEndHeaders(request.rawHeaders);
  headers.host = target.port === DEFAULT_PORTS.http ? target.host : `${target.host}:${target.port}`;
  // One request per upstream connection: nothing is pooled across requests or skills.
  headers.connection = "close";
  // Node decoded a chunked body; it is sent on chunked again, never with a guessed length.
  if (headerValues(request.rawHeaders, "transfer-encoding").length > 0)
    headers["transfer-encoding"] = "chunked";

  const outgoing = httpRequest({
    createConnection: () => socket,
    method: request.method ?? "GET",
    path: url.path,
    headers,
    setHost: false,
  });
  outgoing.setTimeout(state.limits.idleTimeoutMs, () => outgoing.destroy(new Error("upstream idle")));
  outgoing.on("error", () => {
    if (!response.headersSent) sendText(response, 502, unreachableText(target.host, target.port));
    else response.destroy();
  });
  outgoing.on("response", (incoming) => {
    incoming.on("error", () => response.destroy());
    response.writeHead(
      incoming.statusCode ?? 502,
      incoming.statusMessage,
      endToEndHeaders(incoming.rawHeaders),
    );
    incoming.pipe(response);
  });
  request.on("error", () => outgoing.destroy());
  request.pipe(outgoing);
}
