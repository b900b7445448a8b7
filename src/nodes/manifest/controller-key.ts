import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { FOLDER_MODE, readSmallFile, writeFileAtomicallySync } from "../../core/durable-fs.js";
import { SkillgateError } from "../../core/errors.js";

/** The controller's signing key and the public half agents pin. */
export interface ControllerKey {
  readonly privateKey: KeyObject;
  /** SPKI, PEM: what enrolment hands an agent ({@link EnrolResponse.controllerPublicKey}). */
  readonly publicKeyPem: string;
  /** `<data>/nodes/controller-key.pem`. */
  readonly path: string;
}

/** The largest key file read: an Ed25519 PKCS#8 PEM is about 120 bytes. */
const MAX_KEY_FILE_BYTES = 16 * 1024;

/** Where the controller's key lives in its data folder. */
export function controllerKeyPath(dataFolder: string): string {
  return join(dataFolder, "nodes", "controller-key.pem");
}

/**
 * The controller's Ed25519 key, made once (node:crypto) and kept as PKCS#8 PEM in
 * `<data>/nodes/controller-key.pem`, mode 0600. Made with an exclusive write, so two
 * controllers starting on one data folder at once end up with the same key: the loser of
 * the race reads the winner's file. A file that holds no Ed25519 private key is an error,
 * never replaced: replacing it would make every enrolled agent refuse every manifest.
 *
 * @throws SkillgateError `io_error` when the file is unreadable or not an Ed25519 key
 */
export function loadControllerKey(dataFolder: string): ControllerKey {
  const path = controllerKeyPath(dataFolder);
  let pem = readSmallFile(path, MAX_KEY_FILE_BYTES);
  if (pem === undefined) {
    mkdirSync(join(dataFolder, "nodes"), { recursive: true, mode: FOLDER_MODE });
    const made = generateKeyPairSync("ed25519")
      .privateKey.export({ type: "pkcs8", format: "pem" })
      .toString();
    writeFileAtomicallySync(path, made, { exclusive: true, mode: 0o600 });
    pem = readSmallFile(path, MAX_KEY_FILE_BYTES);
  }
  if (pem === undefined) throw keyError(path, "it cannot be read");
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(pem);
  } catch {
    throw keyError(path, "it holds no private key");
  }
  if (privateKey.asymmetricKeyType !== "ed25519") throw keyError(path, "it is not an Ed25519 key");
  const publicKeyPem = createPublicKey(privateKey).export({ type: "spki", format: "pem" }).toString();
  return { privateKey, publicKeyPem, path };
}

function keyError(path: string, why: string): SkillgateError {
  return new SkillgateError(
    "io_error",
    `the controller key ${path} cannot be used (${why}); restore it from a backup, or remove it and enrol every node again`,
    { path },
  );
}
