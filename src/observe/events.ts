import type { ToolTier } from "../policy/tiers.js";

/**
 * Audit events: one per classification, policy decision, approval request, approval
 * answer and finished call, and one per connection the network proxy refused a sandboxed script. They carry who, what and how it ended, never the arguments'
 * content (but a script's `argv`, its command line) or the output's. Names follow `noun-action`.
 */
export type AuditEventType =
  | "tool-call-classified"
  | "policy-decided"
  /** An extension's hook or approval policy narrowed the rules' decision (allow → ask/deny, ask → deny). */
  | "policy-narrowed"
  | "approval-requested"
  | "approval-answered"
  | "tool-call-finished"
  | "network-refused"
  /** A sandboxed run started: which limits were enforced and how (cgroup v1/v2, rlimit, tmpfs, timer). */
  | "run-limits"
  /** A run created, changed or deleted a path in its workspace; one event per path (see docs/audit.md). */
  | "workspace-changed"
  /** A run was sent to a named server (or refused for one): which node, and how it ended. */
  | "node-run"
  /** A script sent to the worker pool ended: its status and the worker that answered (see docs/queue.md). */
  | "queue-run-finished"
  /** A capability invocation started through the pipeline (docs/capabilities.md, "Observability"). */
  | "/skill/invoked"
  /** A capability invocation answered with output that passed its schema. */
  | "/skill/completed"
  /** A capability invocation was refused, failed, timed out or was interrupted (`errorKind` says which). */
  | "/skill/failed"
  /** A capability invocation read or wrote a workspace path through the host API (`path`, `access`). */
  | "capability-path-touched"
  /** Discovery found a capability descriptor (`skillId`, `skillKind`, `source`, `path`, `manifestDigest`). */
  | "/skill/discovered"
  /** A descriptor's registration was decided (`skillId`, `registration`, `reasons`, `runtimeGate`). */
  | "/skill/registration/decided"
  /** A Lua skill's hot reload started a step of its sequence (`reloadStep`, `generation`). */
  | "capability-reload-step"
  /** A Lua skill's new generation serves (`generation`, `manifestDigest`). */
  | "/skill/reloaded"
  /** A Lua skill's reload ended without a switch (`reloadStep`, `errorKind`); the old generation serves. */
  | "/skill/reload_failed"
  /** A Lua skill's reload widens what it may do and waits for the owner (`widening`). */
  | "capability-generation-waiting";

/** How a call ended, as the audit log records it. */
export type CallStatus =
  | "ok"
  | "failed"
  | "refused"
  | "denied"
  | "declined"
  | "expired"
  | "timed_out"
  | "interrupted"
  /** The call needs a person's answer that will come out of band (`skillgate approve ID`); it did not run. */
  | "awaiting_approval";

/** One line of the audit log. */
export interface AuditEvent {
  readonly type: AuditEventType;
  /** ISO time. */
  readonly time: string;
  /** Ties the events of one tool call together. */
  readonly requestId: string;
  readonly scope: { readonly kind: "chat" | "job"; readonly id: string };
  readonly tool: string;
  readonly tier: ToolTier;
  readonly skill?: string;
  /** The first 8 hex of the skill's content hash. */
  readonly hash8?: string;
  /** The rule that decided (for `policy-decided` and later events). */
  readonly rule?: string;
  readonly decision?: "allow" | "ask" | "deny";
  /** The answer to an approval request. */
  readonly answer?: "once" | "always-chat" | "always-job" | "decline" | "expired" | "deferred";
  readonly status?: CallStatus;
  readonly latencyMs?: number;
  /** A stable error code or class name for failures; never a message with user content. */
  readonly errorKind?: string;
  /** For `network-refused`: the host a sandboxed script asked the proxy for (escaped, capped). */
  readonly host?: string;
  /** For `network-refused`: the port it asked for. */
  readonly port?: number;
  /** For `run-limits`: what enforced each limit of the run (see docs/audit.md). */
  readonly limits?: string;
  /** For `workspace-changed`: the run's workspace (absolute). */
  readonly workspace?: string;
  /** For `workspace-changed`: the path relative to the workspace (a folder ends in `/`). */
  readonly path?: string;
  /** For `workspace-changed`: what happened to `path`. */
  readonly change?: "created" | "changed" | "deleted";
  /** For `node-run`: the named server the run was sent to (or refused for). */
  readonly node?: string;
  /**
   * For `tool-call-classified` of a script run: the command-line arguments it passes (the
   * first {@link MAX_AUDIT_ARGV_ITEMS}, each cut like every text field; see docs/audit.md).
   */
  readonly argv?: readonly string[];
  /** For `queue-run-finished`: the worker that answered (its name), when one did. */
  readonly worker?: string;
  /** For `queue-run-finished`: `gone` when the caller had gone (a controller restart) before the answer came. */
  readonly caller?: "waiting" | "gone";
  /** For capability events (`/skill/…`): the trace the invocation belongs to. */
  readonly traceId?: string;
  /** For capability events: who called (a chat or job id, a Lua skill's provider id, `cli`). */
  readonly agentId?: string;
  /** For capability events: the capability invoked, such as `workflow.code_review`. */
  readonly capability?: string;
  /** For capability events: the provider the router chose (its descriptor id). */
  readonly provider?: string;
  /** For capability events: the skill behind the provider (its descriptor name or id). */
  readonly skillId?: string;
  /** For capability events: `workflow_skill`, `runtime_worker` or `lua_skill`. */
  readonly skillKind?: string;
  /** For capability events: the provider's allowed runtime modes, comma-separated. */
  readonly runtimeGate?: string;
  /** For capability events: the provider generation that served the call. */
  readonly generation?: number;
  /** For capability events: the first 16 hex of the provider's manifest digest. */
  readonly manifestDigest?: string;
  /** For capability events: bytes of JSON in and out. */
  readonly inputBytes?: number;
  readonly outputBytes?: number;
  /** For `capability-path-touched`: how the path was used. */
  readonly access?: "read" | "write";
  /** For `/skill/discovered`: where the descriptor came from (its trust source: `user`, `project`, …). */
  readonly source?: string;
  /** For `/skill/registration/decided`: the decision (`registered`, `display_only`, `rejected`, …). */
  readonly registration?: string;
  /** For `/skill/registration/decided`: the decision's reason codes, comma-separated, the deciding one first. */
  readonly reasons?: string;
  /** For reload events: the step of the hot-reload sequence (docs/capabilities.md, "Hot reload"). */
  readonly reloadStep?: string;
  /** For `capability-generation-waiting`: what the switch would widen, one line each. */
  readonly widening?: readonly string[];
}

/** The most argv items an audit line keeps. */
export const MAX_AUDIT_ARGV_ITEMS = 64;

/** Where audit events go. The audit log implements it; tests may collect in memory. */
export interface AuditSink {
  record(event: AuditEvent): void;
}
