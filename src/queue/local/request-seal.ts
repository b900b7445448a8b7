import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { FOLDER_MODE, readSmallFile, writeFileAtomicallySync } from "../../core/durable-fs.js";
import { InvalidArgumentError } from "../../core/errors.js";
import { canonicalJson } from "../../core/hashing.js";
import type { QueueRequest } from "../contract.js";

/**
 * The controller's seal on a request file: an HMAC-SHA256 of the request's canonical JSON
 * with a key kept in the data folder (`queue/seal.key`, 0600). A worker refuses a request
 * whose seal does not match, so a request file edited by hand (another skill, another script,
 * other arguments) never runs. The key is the data folder owner's: it guards against writers
 * of the queue folder that are not the controller, not against that owner.
 */
export class RequestSeal {
  readonly #key: Buffer;

  private constructor(key: Buffer) {
    this.#key = key;
  }

  /** The data folder's key, made on first use (of two processes making it at once, one wins). */
  static open(keyFile: string): RequestSeal {
    const existing = readKey(keyFile);
    if (existing !== undefined) return new RequestSeal(existing);
    mkdirSync(dirname(keyFile), { recursive: true, mode: FOLDER_MODE });
    writeFileAtomicallySync(keyFile, `${randomBytes(32).toString("hex")}\n`, {
      exclusive: true,
      mode: 0o600,
    });
    const made = readKey(keyFile);
    if (made === undefined) throw new Error(`the queue's seal key ${keyFile} cannot be read`);
    return new RequestSeal(made);
  }

  /** The seal of a request: hex HMAC of its canonical JSON. */
  seal(request: QueueRequest): string {
    return createHmac("sha256", this.#key).update(canonicalJson(request)).digest("hex");
  }

  /** True when `seal` is this request's seal. */
  verify(request: QueueRequest, seal: unknown): boolean {
    if (typeof seal !== "string" || !/^[0-9a-f]{64}$/.test(seal)) return false;
    return timingSafeEqual(Buffer.from(this.seal(request), "hex"), Buffer.from(seal, "hex"));
  }
}

/**
 * Copies the seal key to `target`, a new file (0600), for a worker on another host. Refuses an
 * existing file (`invalid_argument`): an older copy is never silently replaced by another key.
 */
export function exportSealKey(keyFile: string, target: string): void {
  const key = readSmallFile(keyFile, 256);
  if (key === undefined || readKey(keyFile) === undefined)
    throw new InvalidArgumentError("seal-key", `the queue's seal key ${keyFile} cannot be read`);
  if (!writeFileAtomicallySync(target, key, { exclusive: true, mode: 0o600 }))
    throw new InvalidArgumentError("export", `${target} exists already; choose a new file`);
}

function readKey(keyFile: string): Buffer | undefined {
  const text = readSmallFile(keyFile, 256)?.trim();
  return text !== undefined && /^[0-9a-f]{64}$/.test(text) ? Buffer.from(text, "hex") : undefined;
}
