import { createPublicKey, type KeyObject, verify } from "node:crypto";
import type { SignedSkillsManifest, SkillsManifest } from "../protocol.js";
import { MAX_MANIFEST_BYTES, readManifestShape } from "./manifest-codec.js";
import { ManifestError } from "./manifest-errors.js";

/** What the agent checks a manifest against. */
export interface ManifestExpectations {
  /** This agent's node name: a manifest for another node is refused. */
  readonly node: string;
  /** The highest sequence the agent accepted before (0 when none): a manifest must be above it. */
  readonly lastSequence: number;
  /** Milliseconds since the epoch: a manifest whose `expiresAt` is not after it is refused. */
  readonly now: number;
}

/** A checked manifest, or the refusal with its stable code and a message for the owner. */
export type ManifestVerdict =
  | { readonly ok: true; readonly manifest: SkillsManifest }
  | { readonly ok: false; readonly error: ManifestError };

/** Base64 of {@link MAX_MANIFEST_BYTES} bytes, and a little room. */
const MAX_PAYLOAD_CHARS = Math.ceil(MAX_MANIFEST_BYTES / 3) * 4 + 4;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Checks a signed manifest, in this order, and says why it refuses it:
 *
 * 1. its shape and size: two base64 strings, a payload of at most 1 MiB (`manifest_invalid`);
 * 2. the Ed25519 signature over the payload's exact bytes, with the pinned public key
 *    (`manifest_bad_signature`; a manifest signed by another key is refused here). Nothing
 *    in the payload is read before this passes;
 * 3. the payload as JSON of the documented shape (`manifest_invalid`);
 * 4. the node (`manifest_wrong_node`), the sequence above `lastSequence`
 *    (`manifest_replayed`: an old manifest, or the same one twice), and the expiry
 *    (`manifest_expired`).
 *
 * Never throws: the caller keeps its previous good set on a refusal.
 */
export function verifyManifest(
  signed: unknown,
  publicKey: string | KeyObject,
  expectations: ManifestExpectations,
): ManifestVerdict {
  const refuse = (error: ManifestError): ManifestVerdict => ({ ok: false, error });
  if (typeof signed !== "object" || signed === null)
    return refuse(new ManifestError("manifest_invalid", "the manifest is not an object"));
  const { payload, signature } = signed as Partial<Record<keyof SignedSkillsManifest, unknown>>;
  if (typeof payload !== "string" || typeof signature !== "string")
    return refuse(new ManifestError("manifest_invalid", "the manifest has no payload or no signature"));
  if (payload.length > MAX_PAYLOAD_CHARS)
    return refuse(
      new ManifestError("manifest_invalid", `the manifest is larger than ${MAX_MANIFEST_BYTES} bytes`),
    );
  if (!BASE64.test(payload) || !BASE64.test(signature) || signature.length > 128)
    return refuse(new ManifestError("manifest_invalid", "the manifest's payload or signature is not base64"));
  const bytes = Buffer.from(payload, "base64");
  let key: KeyObject;
  try {
    key = typeof publicKey === "string" ? createPublicKey(publicKey) : publicKey;
  } catch {
    return refuse(new ManifestError("manifest_bad_signature", "the pinned controller key cannot be read"));
  }
  let valid = false;
  try {
    valid = key.asymmetricKeyType === "ed25519" && verify(null, bytes, key, Buffer.from(signature, "base64"));
  } catch {
    valid = false;
  }
  if (!valid)
    return refuse(
      new ManifestError(
        "manifest_bad_signature",
        "the manifest's signature does not match the controller key this agent pinned",
      ),
    );
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString("utf8"));
  } catch {
    return refuse(new ManifestError("manifest_invalid", "the manifest's payload is not JSON"));
  }
  const shape = readManifestShape(parsed);
  if (!shape.ok)
    return refuse(new ManifestError("manifest_invalid", `the manifest is invalid: ${shape.reason}`));
  const manifest = shape.manifest;
  if (manifest.node !== expectations.node)
    return refuse(
      new ManifestError(
        "manifest_wrong_node",
        `the manifest is for node ${manifest.node}, not ${expectations.node}`,
        {
          node: manifest.node,
          sequence: manifest.sequence,
        },
      ),
    );
  if (manifest.sequence <= expectations.lastSequence)
    return refuse(
      new ManifestError(
        "manifest_replayed",
        `the manifest's sequence ${manifest.sequence} is not above ${expectations.lastSequence}, the last accepted`,
        { sequence: manifest.sequence, lastSequence: expectations.lastSequence },
      ),
    );
  if (Date.parse(manifest.expiresAt) <= expectations.now)
    return refuse(
      new ManifestError("manifest_expired", `the manifest expired at ${manifest.expiresAt}`, {
        sequence: manifest.sequence,
        expiresAt: manifest.expiresAt,
      }),
    );
  return { ok: true, manifest };
}
