import { createPublicKey } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { FOLDER_MODE, readSmallFile, writeFileAtomicallySync } from "../../core/durable-fs.js";
import { SkillgateError } from "../../core/errors.js";
import type { EnrolResponse } from "../protocol.js";

/** What the agent keeps from its enrolment. */
export interface AgentIdentity {
  /** The node name the controller enrolled this agent as. */
  readonly name: string;
  /** The node credential (sent as `Authorization: Bearer …`). */
  readonly credential: string;
  /** The controller's pinned Ed25519 public key (SPKI PEM). */
  readonly controllerPublicKey: string;
}

const MAX_FILE_BYTES = 16 * 1024;
const CREDENTIAL_FILE = "credential";
const KEY_FILE = "controller-key.pem";
const NAME_FILE = "node-name";

/** The error for a pinned key that differs from the one a controller now presents. */
export class ControllerKeyChangedError extends SkillgateError<{ path: string }> {
  constructor(path: string) {
    super(
      "controller_key_changed",
      `the controller presented a different key from the one this agent pinned in ${path}; if the controller was really replaced, remove that file and enrol again`,
      { path },
    );
  }
}

/**
 * The agent's enrolment files in `<agent data>/node-agent/` (docs/nodes.md, "Enrolment"):
 * `credential` and `node-name`, and `controller-key.pem`, the controller's public key
 * pinned at the first enrolment. All written atomically, mode 0600, in a 0700 folder.
 * A later enrolment against another key is refused (`controller_key_changed`) until the
 * owner removes the pinned file; nothing is written then.
 */
export class AgentFiles {
  /** `<agent data>/node-agent`. */
  readonly folder: string;

  constructor(agentDataFolder: string) {
    this.folder = join(agentDataFolder, "node-agent");
  }

  /** The stored identity, or undefined before the first enrolment. */
  identity(): AgentIdentity | undefined {
    const credential = this.#read(CREDENTIAL_FILE)?.trim();
    const controllerPublicKey = this.pinnedKey();
    const name = this.#read(NAME_FILE)?.trim();
    if (credential === undefined || credential === "" || controllerPublicKey === undefined || !name)
      return undefined;
    return { name, credential, controllerPublicKey };
  }

  /** The pinned controller key, or undefined when none is pinned. */
  pinnedKey(): string | undefined {
    return this.#read(KEY_FILE);
  }

  /**
   * Checks `controllerPublicKey` against the pinned key, without writing anything.
   *
   * @throws ControllerKeyChangedError when another key is pinned
   * @throws SkillgateError `agent_files_invalid` when the key is not an Ed25519 public key
   */
  checkPin(controllerPublicKey: string): void {
    const presented = normaliseKey(controllerPublicKey);
    const pinned = this.pinnedKey();
    if (pinned !== undefined && normaliseKey(pinned) !== presented)
      throw new ControllerKeyChangedError(join(this.folder, KEY_FILE));
  }

  /**
   * Stores what enrolment returned: the key first (pinned, or checked against the pin),
   * then the node name and the credential.
   *
   * @throws ControllerKeyChangedError, SkillgateError `agent_files_invalid`
   */
  saveEnrolment(response: EnrolResponse): void {
    this.checkPin(response.controllerPublicKey);
    mkdirSync(this.folder, { recursive: true, mode: FOLDER_MODE });
    if (this.pinnedKey() === undefined)
      writeFileAtomicallySync(join(this.folder, KEY_FILE), normaliseKey(response.controllerPublicKey));
    writeFileAtomicallySync(join(this.folder, NAME_FILE), `${response.name}\n`);
    writeFileAtomicallySync(join(this.folder, CREDENTIAL_FILE), `${response.credential}\n`);
  }

  #read(file: string): string | undefined {
    return readSmallFile(join(this.folder, file), MAX_FILE_BYTES);
  }
}

/** The key as canonical SPKI PEM, so two spellings of one key compare equal. */
function normaliseKey(pem: string): string {
  try {
    const key = createPublicKey(pem);
    if (key.asymmetricKeyType !== "ed25519") throw new Error("not ed25519");
    return key.export({ type: "spki", format: "pem" }).toString();
  } catch {
    throw new SkillgateError("agent_files_invalid", "the controller's key is not an Ed25519 public key", {});
  }
}
