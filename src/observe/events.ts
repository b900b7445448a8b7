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
  | "queue-run-finished";

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
}

/** The most argv items an audit line keeps. */
export const MAX_AUDIT_ARGV_ITEMS = 64;

/** Where audit events go. The audit log implements it; tests may collect in memory. */
export interface AuditSink {
  record(event: AuditEvent): void;
}
