import { type ServerResponse, STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { ProxyState } from "./proxy-state.js";
import { type ProxyRefusal, printableHost, REFUSAL_STATUS, refusalText } from "./refusals.js";

/** The header that names the refusal reason, so a client (or a test) need not parse the body. */
export const REFUSAL_HEADER = "x-skillgate-refusal";

/** A whole HTTP/1.1 response as text, for sockets the HTTP server no longer manages (CONNECT, parse errors). */
export function rawResponse(status: number, body: string, reason?: string): string {
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Error"}`,
    "Content-Type: text/plain; charset=utf-8",
    `Content-Length: ${Buffer.byteLength(body)}`,
    "Connection: close",
  ];
  if (reason !== undefined) lines.push(`${REFUSAL_HEADER}: ${reason}`);
  return `${lines.join("\r\n")}\r\n\r\n${body}`;
}

/** Makes the refusal safe to record (printable host), counts and reports it. */
export function recordRefusal(state: ProxyState, refusal: ProxyRefusal): ProxyRefusal {
  const printable = { ...refusal, host: printableHost(refusal.host) };
  state.refuse(printable);
  return printable;
}

/** Refuses on a raw socket (a CONNECT, an upgrade, a request that did not parse) and closes it. */
export function refuseOnSocket(state: ProxyState, socket: Socket, refusal: ProxyRefusal): void {
  const recorded = recordRefusal(state, refusal);
  if (socket.writable)
    socket.end(rawResponse(REFUSAL_STATUS[recorded.reason], refusalText(recorded), recorded.reason));
  else socket.destroy();
}

/** Refuses a plain HTTP request with the reason's status and a `HOST:` body, closing the connection. */
export function refuseResponse(state: ProxyState, response: ServerResponse, refusal: ProxyRefusal): void {
  const recorded = recordRefusal(state, refusal);
  sendText(response, REFUSAL_STATUS[recorded.reason], refusalText(recorded), recorded.reason);
}

/** A short text answer that closes the connection; if headers already went out, the connection is cut instead. */
export function sendText(response: ServerResponse, status: number, body: string, reason?: string): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const headers: Record<string, string | number> = {
    "content-type": "text/plain; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    connection: "close",
  };
  if (reason !== undefined) headers[REFUSAL_HEADER] = reason;
  response.writeHead(status, headers);
  response.end(body);
}

/** The answer when an allowed host could not be reached: not a refusal, the host is down or slow. */
export function unreachableText(host: string, port: number): string {
  return `HOST: the skillgate network proxy could not connect to ${printableHost(host)}:${port}.\n`;
}
