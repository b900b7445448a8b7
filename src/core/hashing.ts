import { createHash } from "node:crypto";

/** SHA-256 of bytes or text (UTF-8), as lower-case hex. */
export function sha256Hex(content: string | Uint8Array): string {
  return createHash("sha256").update(content).digest("hex");
}

/**
 * JSON with object keys sorted at every depth, so two equal values give the same text
 * whatever order their keys were written in (for digests of tool inputs).
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => {
    if (inner === null || typeof inner !== "object" || Array.isArray(inner)) return inner;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(inner).sort()) sorted[key] = (inner as Record<string, unknown>)[key];
    return sorted;
  });
}
