import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { lstatSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Clock, systemClock } from "../../core/clock.js";
import { readSmallFile, writeFileAtomicallySync } from "../../core/durable-fs.js";
import { rereadIfChanged, type StampedRead } from "../../core/file-stamps.js";
import { DEFAULT_LOCK_STALE_MS, DEFAULT_LOCK_WAIT_MS, withStoreLock } from "../../store/lock.js";
import { enrolmentRefused, NodeError } from "./node-errors.js";
import {
  checkNodeName,
  EMPTY_REGISTRY,
  MAX_NODES,
  MAX_REGISTRY_BYTES,
  type NodeRecord,
  type NodeRole,
  parseRegistry,
  type RegistryDocument,
  serialiseRegistry,
} from "./registry-file.js";

/** The folder of the controller's node files, under the data folder. */
export const NODES_FOLDER = "nodes";
/** The registry's file name inside {@link NODES_FOLDER}. */
export const REGISTRY_FILE = "registry.json";
/** How long an enrolment token may be used. */
export const ENROLMENT_TOKEN_TTL_MS = 24 * 3600 * 1000;
/** Wrong tokens tried for one name before its enrolment is locked. */
export const MAX_ENROLMENT_FAILURES = 5;
/** The prefix of node credentials, so one is recognised in a log or a leak scan. */
export const CREDENTIAL_PREFIX = "sgn_";

/** A node as the registry shows it: never a digest. */
export interface NodeEntry {
  readonly name: string;
  readonly role: NodeRole;
  readonly addedAt: string;
  readonly enrolled: boolean;
  readonly enrolledAt?: string;
  /** While the enrolment is open: when its token expires. */
  readonly enrolmentExpiresAt?: string;
  /** True once too many wrong tokens were tried. */
  readonly locked: boolean;
  readonly syncRequestedAt?: string;
}

/** What {@link NodeRegistry.add} gives: the token, shown this once. */
export interface AddedNode {
  readonly node: NodeEntry;
  /** The one-time enrolment token (32 random bytes, base64url); only its digest is kept. */
  readonly token: string;
  readonly expiresAt: string;
}

/** What {@link NodeRegistry.enrol} gives the agent: its credential, shown this once. */
export interface EnrolledNode {
  readonly node: NodeEntry;
  readonly credential: string;
}

/** Options of {@link NodeRegistry}. */
export interface NodeRegistryOptions {
  readonly dataFolder: string;
  readonly clock?: Clock;
}

/**
 * The controller's nodes, in `<data>/nodes/registry.json` (docs/nodes.md, "Enrolment"). Every
 * change is made under the one file lock (the store's lock, on the nodes folder) and written
 * atomically, so a CLI and a running server can both change it; reads are cached while the
 * file's stamp is unchanged, so a server sees a CLI's change on its next read.
 */
export class NodeRegistry {
  /** `<data>/nodes`. */
  readonly folder: string;
  readonly file: string;
  readonly #clock: Clock;
  #read: StampedRead<RegistryDocument> | undefined;
  /** The last document read without error, for {@link NodeRegistry.authenticate} while the file is damaged. */
  #lastGood: RegistryDocument | undefined;

  constructor(options: NodeRegistryOptions) {
    this.folder = join(options.dataFolder, NODES_FOLDER);
    this.file = join(this.folder, REGISTRY_FILE);
    this.#clock = options.clock ?? systemClock;
  }

  /** Every node, by name. Throws `nodes_registry_corrupt` for a damaged file. */
  list(): NodeEntry[] {
    return [...this.#document().nodes].sort((a, b) => a.name.localeCompare(b.name)).map(entryOf);
  }

  /** One node, or undefined. */
  get(name: string): NodeEntry | undefined {
    const record = this.#document().nodes.find((node) => node.name === name);
    return record === undefined ? undefined : entryOf(record);
  }

  /**
   * Adds a node and returns its one-time enrolment token (valid {@link ENROLMENT_TOKEN_TTL_MS}).
   * `invalid_node_name`, `node_exists`.
   */
  async add(name: string, options: { readonly role?: NodeRole } = {}): Promise<AddedNode> {
    checkNodeName(name);
    const token = randomBytes(32).toString("base64url");
    const expiresAt = new Date(this.#clock.now() + ENROLMENT_TOKEN_TTL_MS).toISOString();
    const record: NodeRecord = {
      name,
      role: options.role ?? "node",
      addedAt: new Date(this.#clock.now()).toISOString(),
      enrolment: { sha256: digestHex(token), expiresAt, failures: 0 },
    };
    await this.#change((nodes) => {
      if (nodes.some((node) => node.name === name))
        throw new NodeError("node_exists", `a node named ${name} exists; remove it first`, { name });
      if (nodes.length >= MAX_NODES)
        throw new NodeError("invalid_node_name", `the registry holds ${MAX_NODES} nodes already`, { name });
      return [...nodes, record];
    });
    return { node: entryOf(record), token, expiresAt };
  }

  /**
   * Exchanges a node's enrolment token for its long-lived credential. The token is consumed on
   * success; a wrong one counts against the name, and {@link MAX_ENROLMENT_FAILURES} lock it.
   * Every refusal is `enrolment_refused` with its reason in the data.
   */
  async enrol(name: string, token: string): Promise<EnrolledNode> {
    checkNodeName(name);
    const credential = `${CREDENTIAL_PREFIX}${randomBytes(32).toString("base64url")}`;
    const now = this.#clock.now();
    let refused: NodeError | undefined;
    let enrolled: NodeRecord | undefined;
    await this.#change((nodes) =>
      nodes.map((node) => {
        if (node.name !== name) return node;
        const open = node.enrolment;
        if (node.locked === true) refused = enrolmentRefused(name, "locked");
        else if (open === undefined) refused = enrolmentRefused(name, "already_enrolled");
        else if (Date.parse(open.expiresAt) <= now) refused = enrolmentRefused(name, "expired");
        else if (!sameDigest(digestHex(token), open.sha256)) {
          const failures = open.failures + 1;
          refused = enrolmentRefused(name, failures >= MAX_ENROLMENT_FAILURES ? "locked" : "wrong_token");
          return failures >= MAX_ENROLMENT_FAILURES
            ? withoutEnrolment(node, true)
            : { ...node, enrolment: { ...open, failures } };
        } else {
          enrolled = {
            ...withoutEnrolment(node, false),
            credential: { sha256: digestHex(credential), enrolledAt: new Date(now).toISOString() },
          };
          return enrolled;
        }
        return node;
      }),
    );
    if (refused !== undefined) throw refused;
    if (enrolled === undefined) throw enrolmentRefused(name, "unknown_node");
    return { node: entryOf(enrolled), credential };
  }

  /**
   * The enrolled node a credential belongs to, or undefined. Each digest is compared in
   * constant time, and every node is compared, so the time says nothing about which matched.
   * Never throws: while the file is damaged it checks against the last good read (`#credentialDocument`).
   */
  authenticate(credential: string): NodeEntry | undefined {
    if (!credential.startsWith(CREDENTIAL_PREFIX) || credential.length > 200) return undefined;
    const given = digestHex(credential);
    let found: NodeRecord | undefined;
    for (const node of this.#credentialDocument().nodes)
      if (node.credential !== undefined && sameDigest(given, node.credential.sha256)) found = node;
    return found === undefined ? undefined : entryOf(found);
  }

  /** Removes a node: its credential stops working at once. `node_not_found`. */
  async remove(name: string): Promise<NodeEntry> {
    let removed: NodeRecord | undefined;
    await this.#change((nodes) => {
      removed = nodes.find((node) => node.name === name);
      if (removed === undefined) throw notFound(name, nodes);
      return nodes.filter((node) => node !== removed);
    });
    return entryOf(removed as NodeRecord);
  }

  /** Records that the owner asked for a sync of `name`; a running server sends `sync-skills`. `node_not_found`. */
  async requestSync(name: string): Promise<NodeEntry> {
    let changed: NodeRecord | undefined;
    const at = new Date(this.#clock.now()).toISOString();
    await this.#change((nodes) => {
      if (!nodes.some((node) => node.name === name)) throw notFound(name, nodes);
      return nodes.map((node) => {
        if (node.name !== name) return node;
        changed = { ...node, syncRequestedAt: at };
        return changed;
      });
    });
    return entryOf(changed as NodeRecord);
  }

  #document(): RegistryDocument {
    this.#read = rereadIfChanged(this.file, this.#read, () => this.#readFile());
    this.#lastGood = this.#read.value;
    return this.#read.value;
  }

  /**
   * The document credentials are checked against. Never throws: it is read on every agent
   * request and channel upgrade, where a throw would fail the server rather than the caller.
   * While the file is damaged, the last document this process read well is used (a damaged
   * file cannot have removed a node: every change is refused until it is repaired, and a
   * deleted file is the empty registry), so enrolled agents stay connected while runs are
   * refused with `nodes_registry_corrupt`; with no good read yet, no credential is accepted.
   */
  #credentialDocument(): RegistryDocument {
    try {
      return this.#document();
    } catch {
      return this.#lastGood ?? EMPTY_REGISTRY;
    }
  }

  /**
   * The file's document; no file is the empty registry. A file that is there but cannot be
   * read (no permission, not a regular file, over the size limit) is `nodes_registry_corrupt`,
   * never empty: an empty read would disconnect every node and the next change would write
   * over the owner's registry.
   */
  #readFile(): RegistryDocument {
    const text = readSmallFile(this.file, MAX_REGISTRY_BYTES);
    if (text !== undefined) return parseRegistry(text, this.file);
    if (lstatSync(this.file, { throwIfNoEntry: false }) === undefined) return EMPTY_REGISTRY;
    throw new NodeError(
      "nodes_registry_corrupt",
      `the node registry ${this.file} cannot be used: it cannot be read, is not a regular file, or is over ${MAX_REGISTRY_BYTES} bytes`,
      { file: this.file },
    );
  }

  async #change(change: (nodes: readonly NodeRecord[]) => readonly NodeRecord[]): Promise<void> {
    mkdirSync(this.folder, { recursive: true, mode: 0o700 });
    await withStoreLock(
      this.folder,
      { staleMs: DEFAULT_LOCK_STALE_MS, waitMs: DEFAULT_LOCK_WAIT_MS },
      async () => {
        const current = this.#readFile();
        const next: RegistryDocument = { version: 1, nodes: change(current.nodes) };
        writeFileAtomicallySync(this.file, serialiseRegistry(next), { mode: 0o600 });
        this.#read = undefined;
      },
    );
  }
}

/** SHA-256 (hex) of a secret. */
function digestHex(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("hex");
}

/** Constant-time comparison of two hex digests of the same length. */
function sameDigest(a: string, b: string): boolean {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === right.length && timingSafeEqual(left, right);
}

function withoutEnrolment(node: NodeRecord, locked: boolean): NodeRecord {
  const { enrolment: _closed, ...rest } = node;
  return locked ? { ...rest, locked: true } : rest;
}

function notFound(name: string, nodes: readonly NodeRecord[]): NodeError {
  const known = nodes.map((node) => node.name);
  return new NodeError(
    "node_not_found",
    `no node is named ${name}; known nodes: ${known.length > 0 ? known.join(", ") : "none"}`,
    { name, known },
  );
}

function entryOf(record: NodeRecord): NodeEntry {
  return {
    name: record.name,
    role: record.role,
    addedAt: record.addedAt,
    enrolled: record.credential !== undefined,
    ...(record.credential !== undefined ? { enrolledAt: record.credential.enrolledAt } : {}),
    ...(record.enrolment !== undefined ? { enrolmentExpiresAt: record.enrolment.expiresAt } : {}),
    locked: record.locked === true,
    ...(record.syncRequestedAt !== undefined ? { syncRequestedAt: record.syncRequestedAt } : {}),
  };
}
