import { createHmac, timingSafeEqual } from "node:crypto";
import { canonicalJson } from "../../core/hashing.js";
import type { QueueRequest } from "../contract.js";

/**
 * The controller's mark on a request: an HMAC-SHA256 over the request's canonical JSON with a
 * secret the controller and its workers share. Anyone who can write to Redis can change a job;
 * only the holder of the secret can make the mark match, so a worker refuses a job edited to
 * name another skill, script, hash or arguments. The same seal serves both backends.
 */
export interface RequestSeal {
  /** The mark for `request` (hex). */
  sign(request: QueueRequest): string;
  /** True when `mark` is the mark of exactly this value (compared in constant time). */
  verify(request: unknown, mark: unknown): boolean;
}

/** A {@link RequestSeal} keyed by `secret` (at least 16 bytes). */
export function hmacRequestSeal(secret: string | Uint8Array): RequestSeal {
  const key = typeof secret === "string" ? Buffer.from(secret, "utf8") : Buffer.from(secret);
  if (key.length < 16) throw new Error("the queue secret must be at least 16 bytes");
  const markOf = (value: unknown): Buffer => createHmac("sha256", key).update(canonicalJson(value)).digest();
  return {
    sign: (request) => markOf(request).toString("hex"),
    verify(request, mark) {
      if (typeof mark !== "string" || !/^[0-9a-f]{64}$/.test(mark)) return false;
      return timingSafeEqual(markOf(request), Buffer.from(mark, "hex"));
    },
  };
}
