import { AsyncLocalStorage } from "node:async_hooks";
import type { ApprovalAnswer, ApprovalRequest } from "../policy/approvals.js";
import type { Runner, RunRequest, RunResult } from "../runners/contract.js";
import type { Approver } from "../tools/broker.js";

/**
 * What one person's run asks of a shared Skillgate while its call is made: how its ask is
 * answered, and where its script's output and result go. A server's Skillgate serves many
 * callers at once (MCP sessions, the web UI, `skillgate run --server`), so these cannot be
 * fixed when it is built: a call made inside {@link withRunCallScope} carries its own.
 */
export interface RunCallScope {
  /** Answers this call's ask; left out, the Skillgate's own approver does. */
  readonly approve?: (request: ApprovalRequest) => Promise<ApprovalAnswer>;
  /** This call's script output as it comes (only what is kept under the output cap). */
  readonly onOutput?: (stream: "stdout" | "stderr", chunk: string) => void;
  /** This call's raw run result, refusals included. */
  readonly onResult?: (result: RunResult) => void;
}

const scopes = new AsyncLocalStorage<RunCallScope>();

/** Runs `action` (a turn's `call`) with `scope` applying to every ask and run it makes. */
export function withRunCallScope<T>(scope: RunCallScope, action: () => Promise<T>): Promise<T> {
  return scopes.run(scope, action);
}

/**
 * The Skillgate's approver: a scope's own answer inside {@link withRunCallScope}, else
 * `fallback`, else a decline (nobody is there to say yes, as the broker does without one).
 */
export function scopedApprover(fallback: Approver | undefined): Approver {
  return async (request, call) => {
    const scope = scopes.getStore();
    if (scope?.approve !== undefined) return await scope.approve(request);
    return fallback === undefined ? "decline" : await fallback(request, call);
  };
}

/**
 * `runner`, telling the scope a run was started in about its output and result. The scope
 * is read once, when the run starts: output arrives later from the runner's own events
 * (a child process, a node's channel), outside the call's async context.
 */
export function scopedRunner(runner: Runner): Runner {
  return {
    ...(runner.admit !== undefined ? { admit: (request: RunRequest) => runner.admit?.(request) } : {}),
    run: async (request) => {
      const scope = scopes.getStore();
      if (scope === undefined || (scope.onOutput === undefined && scope.onResult === undefined))
        return await runner.run(request);
      const own = request.onOutput;
      const listen = scope.onOutput;
      const result = await runner.run(
        listen === undefined
          ? request
          : {
              ...request,
              onOutput: (stream, chunk) => {
                own?.(stream, chunk);
                quietly(() => listen(stream, chunk));
              },
            },
      );
      quietly(() => scope.onResult?.(result));
      return result;
    },
  };
}

function quietly(action: () => void): void {
  try {
    action();
  } catch {
    // A listener's failure is its own: it never changes a run.
  }
}
