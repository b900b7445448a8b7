import { isPlainObject } from "../../core/safe-json.js";
import { NodeError } from "./node-errors.js";

/**
 * The node registry's file, `<data>/nodes/registry.json`: its shape, and the strict reader
 * that refuses anything else. Secrets are never in it: the enrolment token and the node
 * credential are kept as SHA-256 digests (hex) only.
 */

/** What a node is for: a named server that runs `node`/`sandbox` skills, or a remote queue worker. */
export type NodeRole = "node" | "worker";

/** Node names: lower-case ASCII letters, digits and `-`, starting with a letter or digit, at most 63. */
export const NODE_NAME_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** The most nodes one registry holds, so a file (and every credential check) stays small. */
export const MAX_NODES = 1000;

/** The largest registry file read, in bytes. */
export const MAX_REGISTRY_BYTES = 4 * 1024 * 1024;

/** One node as the file keeps it. */
export interface NodeRecord {
  readonly name: string;
  readonly role: NodeRole;
  readonly addedAt: string;
  /** The open enrolment: the token's digest, when it expires, and the wrong tries so far. */
  readonly enrolment?: { readonly sha256: string; readonly expiresAt: string; readonly failures: number };
  /** The node credential's digest, once enrolled. */
  readonly credential?: { readonly sha256: string; readonly enrolledAt: string };
  /** Set once too many wrong tokens were tried: the enrolment is closed until the owner adds the node again. */
  readonly locked?: boolean;
  /** The last time the owner asked for a sync (`skillgate nodes sync`); a server sends `sync-skills` when it moves. */
  readonly syncRequestedAt?: string;
}

/** The whole file. */
export interface RegistryDocument {
  readonly version: 1;
  readonly nodes: readonly NodeRecord[];
}

/** The document of an empty registry. */
export const EMPTY_REGISTRY: RegistryDocument = { version: 1, nodes: [] };

/** True for a valid node name. */
export function isNodeName(name: string): boolean {
  return NODE_NAME_PATTERN.test(name);
}

/** Throws `invalid_node_name` unless `name` is a valid node name. */
export function checkNodeName(name: string): void {
  if (!isNodeName(name))
    throw new NodeError(
      "invalid_node_name",
      `"${name.slice(0, 80)}" is not a node name: use lower-case letters, digits and "-", starting with a letter or digit, at most 63 characters`,
      { name: name.slice(0, 80) },
    );
}

const HEX_DIGEST = /^[0-9a-f]{64}$/;

/** Parses the registry's text; anything not of the documented shape is `nodes_registry_corrupt`. */
export function parseRegistry(text: string, file: string): RegistryDocument {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw corrupt(file, "it is not JSON");
  }
  if (!isPlainObject(raw) || raw.version !== 1 || !Array.isArray(raw.nodes))
    throw corrupt(file, "it is not a version 1 registry");
  if (raw.nodes.length > MAX_NODES) throw corrupt(file, `it lists more than ${MAX_NODES} nodes`);
  const seen = new Set<string>();
  const nodes = raw.nodes.map((item: unknown) => {
    const record = parseRecord(item, file);
    if (seen.has(record.name)) throw corrupt(file, `it lists ${record.name} twice`);
    seen.add(record.name);
    return record;
  });
  return { version: 1, nodes };
}

function parseRecord(item: unknown, file: string): NodeRecord {
  if (!isPlainObject(item)) throw corrupt(file, "a node is not an object");
  const { name, role, addedAt, enrolment, credential, locked, syncRequestedAt } = item;
  if (typeof name !== "string" || !isNodeName(name)) throw corrupt(file, "a node has no valid name");
  if (role !== "node" && role !== "worker") throw corrupt(file, `${name} has no valid role`);
  if (typeof addedAt !== "string") throw corrupt(file, `${name} has no addedAt`);
  const record: {
    -readonly [Key in keyof NodeRecord]: NodeRecord[Key];
  } = { name, role, addedAt };
  if (enrolment !== undefined) {
    if (
      !isPlainObject(enrolment) ||
      typeof enrolment.sha256 !== "string" ||
      !HEX_DIGEST.test(enrolment.sha256) ||
      typeof enrolment.expiresAt !== "string" ||
      typeof enrolment.failures !== "number" ||
      !Number.isInteger(enrolment.failures)
    )
      throw corrupt(file, `${name} has a malformed enrolment`);
    record.enrolment = {
      sha256: enrolment.sha256,
      expiresAt: enrolment.expiresAt,
      failures: enrolment.failures,
    };
  }
  if (credential !== undefined) {
    if (
      !isPlainObject(credential) ||
      typeof credential.sha256 !== "string" ||
      !HEX_DIGEST.test(credential.sha256) ||
      typeof credential.enrolledAt !== "string"
    )
      throw corrupt(file, `${name} has a malformed credential`);
    record.credential = { sha256: credential.sha256, enrolledAt: credential.enrolledAt };
  }
  if (locked === true) record.locked = true;
  if (typeof syncRequestedAt === "string") record.syncRequestedAt = syncRequestedAt;
  return record;
}

function corrupt(file: string, why: string): NodeError {
  return new NodeError("nodes_registry_corrupt", `the node registry ${file} cannot be used: ${why}`, {
    file,
  });
}

/** The file's text: stable key order, one node per entry, ending in a newline. */
export function serialiseRegistry(document: RegistryDocument): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
