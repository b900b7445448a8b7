import { createHash } from "node:crypto";

/** SHA-256 of bytes or text (UTF-8), as lower-case hex. */
export function sha256Hex(content: string | Uint8Array): string {
  return createHash("sha256").update(content).digest("hex");
}
