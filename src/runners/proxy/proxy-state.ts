import type { Socket } from "node:net";
import type { AddressBlock } from "./address-block.js";
import type { ProxyRefusal, ProxyRefusalReason } from "./refusals.js";
import type { Resolve } from "./resolve.js";
import type { AllowList } from "./target.js";

/** The bounds of one proxy. Every one is finite: a hostile script cannot make the proxy hold resources forever. */
export interface ProxyLimits {
  /** Request line plus headers, in bytes; larger is `header_too_large` (431). */
  readonly maxHeaderBytes: number;
  /** Time a client has to send a complete request head. */
  readonly headersTimeoutMs: number;
  /** A client connection or tunnel with no traffic either way for this long is closed. */
  readonly idleTimeoutMs: number;
  /** Per upstream connection attempt. */
  readonly connectTimeoutMs: number;
  readonly resolveTimeoutMs: number;
  /** Concurrent upstream connections (CONNECT tunnels and forwarded plain requests, resolving ones included). */
  readonly maxTunnels: number;
  /** Concurrent client connections to the socket; more are closed on accept. */
  readonly maxClientConnections: number;
}

/** The default bounds: 16 KiB of head, 10 s to send it, 60 s idle, 64 tunnels, 256 clients. */
export const DEFAULT_PROXY_LIMITS: ProxyLimits = {
  maxHeaderBytes: 16 * 1024,
  headersTimeoutMs: 10_000,
  idleTimeoutMs: 60_000,
  connectTimeoutMs: 10_000,
  resolveTimeoutMs: 5_000,
  maxTunnels: 64,
  maxClientConnections: 256,
};

/** Counters of one proxy, as a snapshot. */
export interface ProxyStats {
  /** CONNECT tunnels established. */
  readonly tunnelsOpened: number;
  /** Plain HTTP requests forwarded upstream. */
  readonly requestsForwarded: number;
  /** Upstream connections open or being set up right now. */
  readonly activeTunnels: number;
  /** Allowed requests whose upstream could not be reached (answered 502). */
  readonly upstreamFailures: number;
  readonly refused: number;
  readonly refusedByReason: Readonly<Partial<Record<ProxyRefusalReason, number>>>;
}

/** What the request handlers share: the checks' inputs, the counters, the slots and the open sockets. */
export class ProxyState {
  readonly allowList: AllowList;
  readonly resolve: Resolve;
  readonly block: AddressBlock;
  readonly limits: ProxyLimits;
  private readonly onRefusal: ((refusal: ProxyRefusal) => void) | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly refusedByReason: Partial<Record<ProxyRefusalReason, number>> = {};
  private refused = 0;
  private active = 0;
  private tunnelsOpened = 0;
  private requestsForwarded = 0;
  private upstreamFailures = 0;

  constructor(parts: {
    allowList: AllowList;
    resolve: Resolve;
    block: AddressBlock;
    limits: ProxyLimits;
    onRefusal: ((refusal: ProxyRefusal) => void) | undefined;
  }) {
    this.allowList = parts.allowList;
    this.resolve = parts.resolve;
    this.block = parts.block;
    this.limits = parts.limits;
    this.onRefusal = parts.onRefusal;
  }

  /** Counts a refusal and reports it. A throwing callback is ignored: reporting must not break the proxy. */
  refuse(refusal: ProxyRefusal): void {
    this.refused += 1;
    this.refusedByReason[refusal.reason] = (this.refusedByReason[refusal.reason] ?? 0) + 1;
    try {
      this.onRefusal?.(refusal);
    } catch {
      // The runner's audit sink reports its own failures.
    }
  }

  /** Takes an upstream slot; returns its release function (safe to call twice), or `undefined` at the cap. */
  acquireSlot(): (() => void) | undefined {
    if (this.active >= this.limits.maxTunnels) return undefined;
    this.active += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active -= 1;
    };
  }

  /** Remembers a socket until it closes, so `close()` can end every connection. */
  track(socket: Socket): void {
    this.sockets.add(socket);
    socket.once("close", () => this.sockets.delete(socket));
  }

  /** Ends every tracked connection at once (used when the proxy closes). */
  destroyAll(): void {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  countTunnel(): void {
    this.tunnelsOpened += 1;
  }

  countForwarded(): void {
    this.requestsForwarded += 1;
  }

  countUpstreamFailure(): void {
    this.upstreamFailures += 1;
  }

  /** A snapshot of the counters. */
  stats(): ProxyStats {
    return {
      tunnelsOpened: this.tunnelsOpened,
      requestsForwarded: this.requestsForwarded,
      activeTunnels: this.active,
      upstreamFailures: this.upstreamFailures,
      refused: this.refused,
      refusedByReason: { ...this.refusedByReason },
    };
  }
}
