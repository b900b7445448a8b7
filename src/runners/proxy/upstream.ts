import { connect, type Socket } from "node:net";
import type { ResolvedAddress } from "./resolve.js";

/** At most this many of a name's checked addresses are tried, so a huge answer cannot stall a client. */
export const MAX_CONNECT_ATTEMPTS = 4;

/**
 * Opens a TCP connection to the first of the already checked `addresses` that answers, in
 * order, each attempt bounded by `timeoutMs`. Only IP addresses are passed to `net.connect`,
 * so nothing here resolves a name again. Rejects with the last error when none answers, or
 * when `signal` aborts (the client went away). The returned socket already has an error
 * listener that ignores errors: callers must clean up on `close`.
 */
export async function connectToChecked(
  addresses: readonly ResolvedAddress[],
  port: number,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<Socket> {
  let lastError: unknown = new Error("no address to connect to");
  for (const entry of addresses.slice(0, MAX_CONNECT_ATTEMPTS)) {
    if (signal.aborted) throw new Error("client went away");
    try {
      return await connectOnce(entry, port, timeoutMs, signal);
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}

function connectOnce(
  entry: ResolvedAddress,
  port: number,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: entry.address, port, family: entry.family, noDelay: true });
    const fail = (error: Error) => {
      cleanup();
      socket.destroy();
      reject(error);
    };
    const onAbort = () => fail(new Error("client went away"));
    const timer = setTimeout(() => fail(new Error(`connect to ${entry.address} timed out`)), timeoutMs);
    const cleanup = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      socket.removeListener("error", fail);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    socket.once("error", fail);
    socket.once("connect", () => {
      cleanup();
      // An error between here and the caller's own listener must not crash the process; the
      // caller learns of it through `close`, which always follows.
      socket.on("error", ignoreError);
      resolve(socket);
    });
  });
}

function ignoreError(): void {}
