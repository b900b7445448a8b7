import type { Clock } from "../core/clock.js";
import type { AuditSink } from "../observe/events.js";
import type { QueueRunFinished } from "../queue/queue-runner.js";
import type { RunRequest, RunResult } from "../runners/contract.js";
import { auditLimitsText, type EnforcedLimits } from "../runners/enforced-limits.js";
import type { ProxyRefusal } from "../runners/proxy/index.js";

/**
 * What a script's run adds to the audit trail (docs/audit.md): a connection the proxy refused,
 * the limits a sandboxed run was held to, the paths it changed in its workspace, a run on a
 * named server, a run on the worker pool. Each line belongs to the call whose script it was
 * (its request id and scope). With no audit sink, each does nothing.
 */

/** The audit writers of runs, one per event type. */
export interface RunAudit {
  /** `network-refused`: a connection the proxy refused. */
  readonly refusal: (skill: string, refusal: ProxyRefusal, call: RunRequest["call"]) => void;
  /** `run-limits`: which limits a sandboxed run was held to, and how. */
  readonly limits: (skill: string, limits: EnforcedLimits, call: RunRequest["call"]) => void;
  /** `workspace-changed`: one line per path a run created, changed or deleted. */
  readonly workspace: (request: RunRequest, result: RunResult) => void;
  /** `node-run`: a run sent to (or refused for) a named server. */
  readonly node: (request: RunRequest, result: RunResult) => void;
  /** `queue-run-finished`: a queued run's end, with the worker's name. */
  readonly queued: (finished: QueueRunFinished) => void;
}

/** The run audit writers over `audit` (none written when it is undefined). */
export function runAuditOf(audit: AuditSink | undefined, clock: Clock): RunAudit {
  // What a script's run adds to the audit trail belongs to the call whose script it was.
  const runEventBase = (skill: string, call: RunRequest["call"]) => ({
    time: new Date(clock.now()).toISOString(),
    requestId: call?.requestId ?? "",
    scope: call?.scope ?? { kind: "chat" as const, id: "" },
    tool: "run_skill_script",
    tier: "change" as const,
    skill,
  });
  // A connection the proxy refused joins the audit trail of the call whose script asked for it.
  const refusal = (skill: string, refusal: ProxyRefusal, call: RunRequest["call"]): void =>
    audit?.record({
      type: "network-refused",
      ...runEventBase(skill, call),
      errorKind: refusal.reason,
      host: refusal.host,
      ...(refusal.port !== null ? { port: refusal.port } : {}),
    });
  // Which limits a sandboxed run was held to, and how: a run whose cgroup failed is on the record.
  const limits = (skill: string, limits: EnforcedLimits, call: RunRequest["call"]): void =>
    audit?.record({
      type: "run-limits",
      ...runEventBase(skill, call),
      limits: auditLimitsText(limits),
      ...(limits.cgroup.failed === true ? { errorKind: "cgroup_failed" } : {}),
    });
  // What a run changed in its workspace: one event per path, so the trail names every file.
  const workspace = (request: RunRequest, result: RunResult): void => {
    const changes = result.workspaceChanges;
    const folder = request.workspace?.path;
    if (audit === undefined || changes === undefined || folder === undefined) return;
    for (const change of ["created", "changed", "deleted"] as const)
      for (const path of changes[change])
        audit.record({
          type: "workspace-changed",
          ...runEventBase(request.skill, request.call),
          workspace: folder,
          path,
          change,
        });
    if (changes.omitted > 0 || !changes.complete)
      audit.record({
        type: "workspace-changed",
        ...runEventBase(request.skill, request.call),
        workspace: folder,
        errorKind: changes.omitted > 0 ? "workspace_changes_omitted" : "workspace_scan_incomplete",
      });
  };
  // A queued run is one audit line with the worker's name; a caller gone by then is recorded too.
  const queued = (finished: QueueRunFinished): void =>
    audit?.record({
      type: "queue-run-finished",
      ...runEventBase(finished.skill, finished.call),
      hash8: finished.hash8,
      status: finished.status === "cancelled" ? "interrupted" : finished.status,
      latencyMs: finished.durationMs,
      ...(finished.code !== undefined ? { errorKind: finished.code } : {}),
      ...(finished.worker !== undefined ? { worker: finished.worker } : {}),
      caller: finished.caller,
    });
  // A run sent to (or refused for) a named server: which node, and how it ended.
  const node = (request: RunRequest, result: RunResult): void => {
    if (result.node === undefined) return;
    audit?.record({
      type: "node-run",
      ...runEventBase(request.skill, request.call),
      hash8: request.hash.slice(0, 8),
      node: result.node,
      status: result.status,
      latencyMs: result.durationMs,
      ...(result.code !== undefined ? { errorKind: result.code } : {}),
    });
  };
  return { refusal, limits, workspace, node, queued };
}
