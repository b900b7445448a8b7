import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomicallySync } from "../../../core/durable-fs.js";

/** Where the owner token's digest is kept, under the data folder. */
export const OWNER_TOKEN_FILE = join("server", "owner-token.json");

/** The owner's token as the server checks it: its digest only, never the token itself. */
export interface OwnerToken {
  /** SHA-256 of the token. Also the key the session cookies are signed with (session-cookie.ts). */
  readonly digest: Buffer;
  /** Where the token came from: given (`--token`, the environment), made now, or stored earlier. */
  readonly origin: "given" | "made" | "stored";
  /** The token itself, only when it was made now: it is shown once, as the login URL. */
  readonly madeToken?: string;
}

/** What {@link resolveOwnerToken} is given. */
export interface OwnerTokenOptions {
  readonly dataFolder: string;
  /** A token the owner chose; nothing is read or written when given. */
  readonly token?: string;
  /** Replace the stored token with a new one. */
  readonly renew?: boolean;
}

/** SHA-256 of a token. */
export function tokenDigest(token: string): Buffer {
  return createHash("sha256").update(token).digest();
}

/** True when `given` is the owner's token; compares digests in constant time. */
export function isOwnerToken(owner: OwnerToken, given: string): boolean {
  return timingSafeEqual(tokenDigest(given), owner.digest);
}

/**
 * The owner's token: the one given, or the one stored (its digest in
 * `<data>/server/owner-token.json`, mode 0600), or a new random one (32 bytes, base64url) whose
 * digest is stored now and which is returned once so it can be printed. docs/server.md, "Tokens".
 */
export async function resolveOwnerToken(options: OwnerTokenOptions): Promise<OwnerToken> {
  if (options.token !== undefined && options.token !== "")
    return { digest: tokenDigest(options.token), origin: "given" };
  const file = join(options.dataFolder, OWNER_TOKEN_FILE);
  if (options.renew !== true) {
    const stored = await readStoredDigest(file);
    if (stored !== undefined) return { digest: stored, origin: "stored" };
  }
  const token = randomBytes(32).toString("base64url");
  const digest = tokenDigest(token);
  await mkdir(join(options.dataFolder, "server"), { recursive: true, mode: 0o700 });
  writeFileAtomicallySync(
    file,
    `${JSON.stringify({ sha256: digest.toString("hex"), created: new Date().toISOString() }, null, 2)}\n`,
    { mode: 0o600 },
  );
  return { digest, origin: "made", madeToken: token };
}

/** The stored digest, or undefined when there is none or it is not one (a new token replaces it). */
async function readStoredDigest(file: string): Promise<Buffer | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    return undefined;
  }
  try {
    const parsed = JSON.parse(text) as { sha256?: unknown };
    if (typeof parsed.sha256 === "string" && /^[0-9a-f]{64}$/.test(parsed.sha256))
      return Buffer.from(parsed.sha256, "hex");
  } catch {
    // A damaged file is replaced by a new token, printed as a login URL.
  }
  return undefined;
}
