import type { JsonValue } from "../core/safe-json.js";
import type { RunStatus } from "../runners/contract.js";

/**
 * What crosses the wire between the controller (`skillgate serve`) and a node agent
 * (docs/nodes.md, "What crosses the wire"). The agent always connects outbound, so a node
 * behind NAT works: plain HTTPS-or-HTTP requests for enrolment, the manifest, packages and
 * the heartbeat, and one WebSocket (the run channel) the controller sends runs down.
 *
 * Every route but enrolment carries `Authorization: Bearer <node credential>`; the
 * credential names its node, so a route never takes a node name from the agent.
 */
export const AGENT_ROUTES = {
  /** `POST` {@link EnrolRequest} → {@link EnrolResponse}. The token is used once. */
  enrol: "/agent/v1/enrol",
  /** `GET` → {@link SignedSkillsManifest} for the calling node. */
  manifest: "/agent/v1/manifest",
  /** `GET /agent/v1/packages/<name>@<full hash>` → the package's `tar.gz` bytes. */
  packages: "/agent/v1/packages",
  /** `POST` {@link Heartbeat} → {@link HeartbeatResponse}. */
  heartbeat: "/agent/v1/heartbeat",
  /** WebSocket upgrade: {@link ControllerMessage} down, {@link AgentMessage} up. */
  channel: "/agent/v1/channel",
} as const;

/** The version both sides speak; the channel refuses another. */
export const AGENT_PROTOCOL_VERSION = 1;

/** Heartbeat period and how many missed beats make a node offline. */
export const HEARTBEAT_INTERVAL_MS = 15_000;
/** A node is offline after this many missed beats (or at once when its channel closes). */
export const MISSED_BEATS_OFFLINE = 3;
/** SkillSync's period on the agent (it also syncs on a `sync-skills` message). */
export const SKILL_SYNC_INTERVAL_MS = 60_000;

/** Body of the enrolment request: the one-time token the owner was given and the node's name. */
export interface EnrolRequest {
  readonly name: string;
  readonly token: string;
}

/** What enrolment gives the agent: its long-lived credential and the key it pins. */
export interface EnrolResponse {
  readonly name: string;
  /** The node's credential: shown once, stored by the agent 0600, kept by the controller as a digest. */
  readonly credential: string;
  /** The controller's Ed25519 public key (SPKI, PEM); the agent checks every manifest against it. */
  readonly controllerPublicKey: string;
}

/** One skill a node may hold. */
export interface ManifestSkill {
  readonly name: string;
  /** The full content hash. */
  readonly hash: string;
  /** SHA-256 (hex) of the package bytes. */
  readonly sha256: string;
  /** Package size in bytes. */
  readonly size: number;
}

/** The signed part of a skills manifest. */
export interface SkillsManifest {
  readonly node: string;
  /** Grows with every manifest the controller issues; an agent refuses one not above the last it accepted. */
  readonly sequence: number;
  readonly issuedAt: string;
  /** After this instant the agent refuses it (and keeps its previous good set). */
  readonly expiresAt: string;
  readonly skills: readonly ManifestSkill[];
}

/** The manifest as sent: the exact signed bytes, so the signature is checked over what arrived. */
export interface SignedSkillsManifest {
  /** Base64 of the UTF-8 JSON of a {@link SkillsManifest}. */
  readonly payload: string;
  /** Base64 Ed25519 signature of the payload's bytes. */
  readonly signature: string;
}

/** The sandbox as the node's doctor sees it. */
export interface NodeSandboxFeature {
  readonly available: boolean;
  /** Why not, when it is not. */
  readonly reason?: string;
  /** The limits the doctor reports (memory, pids, cpu, …), as text per limit. */
  readonly limits?: Readonly<Record<string, string>>;
}

/** What a node advertises every {@link HEARTBEAT_INTERVAL_MS} and whenever it changes. */
export interface Heartbeat {
  /** `skills` always; `sandbox` when bubblewrap works there; `dotnet` when it is installed. */
  readonly features: readonly string[];
  readonly sandbox: NodeSandboxFeature;
  readonly os: string;
  readonly arch: string;
  /** `name → full hash` of what the node holds after its last good sync. */
  readonly skills: Readonly<Record<string, string>>;
  /** Request ids running there now. */
  readonly runs: readonly string[];
  readonly agentVersion: string;
}

/** The controller's answer to a heartbeat. */
export interface HeartbeatResponse {
  /** The sequence of the manifest the controller would issue now: an agent behind it syncs. */
  readonly manifestSequence: number;
}

/** A run sent to a node: everything the agent needs, nothing it must trust beyond its own copy. */
export interface NodeRunMessage {
  readonly type: "run";
  readonly requestId: string;
  readonly skill: string;
  /** The full hash the call was approved against: the agent runs only its own copy of this hash. */
  readonly hash: string;
  readonly script: string;
  readonly arguments: { readonly [key: string]: JsonValue };
  readonly argv?: readonly string[];
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
}

/** Messages the controller sends down the run channel. */
export type ControllerMessage =
  | { readonly type: "welcome"; readonly node: string; readonly protocol: number }
  | NodeRunMessage
  | { readonly type: "cancel"; readonly requestId: string }
  | { readonly type: "sync-skills" };

/** The end of a run as the agent reports it. */
export interface NodeRunOutcome {
  readonly status: RunStatus;
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly stdoutTruncated: boolean;
  readonly stderrTruncated: boolean;
  readonly durationMs: number;
  /** For `refused`: the agent's stable code (`skill_not_held`, `skill_changed`, …) and its `HOST:` text. */
  readonly code?: string;
  readonly message?: string;
  readonly signal?: string;
}

/** Messages the agent sends up the run channel. */
export type AgentMessage =
  | { readonly type: "hello"; readonly protocol: number }
  | { readonly type: "run-started"; readonly requestId: string }
  | {
      readonly type: "run-output";
      readonly requestId: string;
      readonly stream: "stdout" | "stderr";
      readonly chunk: string;
    }
  | { readonly type: "run-ended"; readonly requestId: string; readonly outcome: NodeRunOutcome };
