import { randomUUID } from "node:crypto";
import { isSkillgateError } from "../../core/errors.js";
import type { JsonValue } from "../../core/safe-json.js";
import type { Runner, RunRequest, RunResult } from "../../runners/contract.js";
import { refusal } from "../../runners/refusal.js";
import type { NodeRunMessage, NodeRunOutcome } from "../protocol.js";
import type { NodeHub, RunListener } from "./node-hub.js";
import type { NodeEntry } from "./node-registry.js";
import { nodeReportedCode, nodeReportedMessage, nodeReportedSignal } from "./node-report.js";

/** How long a run waits for a node to sync a skill it does not hold yet. */
export const DEFAULT_SYNC_WAIT_MS = 30_000;
/** How much longer than the run's own timeout the controller waits for the node's answer. */
export const DEFAULT_TIMEOUT_GRACE_MS = 5_000;

/** Options of {@link NodeRunner}. */
export interface NodeRunnerOptions {
  readonly hub: NodeHub;
  /** True when the owner's scope (config.yaml `nodes.skills`) lets `skill` go to `node`. Default: always. */
  readonly allowedOn?: (skill: string, node: string) => boolean;
  readonly syncWaitMs?: number;
  readonly timeoutGraceMs?: number;
}

/**
 * The runner of `skillgate.execution: node` inside `skillgate serve` (docs/nodes.md, "The
 * controller"). The router has verified the hash and made the snapshot; this runner sends the
 * run to the node named by `arguments.node` (which is not passed on to the script), and the
 * node runs its own verified copy of that hash. An unknown or offline node is answered at
 * once; a node that does not hold the hash yet is asked to sync, and the run waits (bounded)
 * for a heartbeat that lists it. Each run gets a fresh request id and is sent exactly once:
 * a channel that closes mid-run ends it `interrupted`, never re-sent; a call stopped (its
 * signal aborted) before the run is sent ends `interrupted` (`cancelled`) and is never sent.
 * A registry that cannot be read is a refusal (`nodes_registry_corrupt`), never a throw.
 * What the node itself says (its refusal or end text) is wrapped as
 * `HOST: node NAME reports: …` ({@link nodeReportedMessage}): only the controller words its
 * own `HOST:` lines.
 */
export class NodeRunner implements Runner {
  readonly #hub: NodeHub;
  readonly #allowedOn: (skill: string, node: string) => boolean;
  readonly #syncWaitMs: number;
  readonly #graceMs: number;

  constructor(options: NodeRunnerOptions) {
    this.#hub = options.hub;
    this.#allowedOn = options.allowedOn ?? (() => true);
    this.#syncWaitMs = options.syncWaitMs ?? DEFAULT_SYNC_WAIT_MS;
    this.#graceMs = options.timeoutGraceMs ?? DEFAULT_TIMEOUT_GRACE_MS;
  }

  /** Refuses at once, before any hashing: no `node`, an unknown or offline node, a skill out of its scope. */
  admit(request: RunRequest): RunResult | undefined {
    const target = this.#target(request);
    return "refused" in target ? target.refused : undefined;
  }

  async run(request: RunRequest): Promise<RunResult> {
    const target = this.#target(request);
    if ("refused" in target) return target.refused;
    const node = target.node;
    const did = `${request.script} of ${request.skill} did not run`;
    if (stopped(request)) return withNode(notSent(request, node), node);
    if (!this.#hub.holds(node, request.skill, request.hash)) {
      this.#hub.sync(node);
      const held = await this.#hub.waitForHeld(
        node,
        request.skill,
        request.hash,
        this.#syncWaitMs,
        request.signal,
      );
      if (stopped(request)) return withNode(notSent(request, node), node);
      if (!held)
        return withNode(
          refusal(
            "skill_not_on_node",
            `node ${node} does not hold ${request.skill}@${request.hash.slice(0, 8)} after a sync (it may be offline, or its sync failed; see skillgate nodes list); ${did}.`,
          ),
          node,
        );
    }
    return this.#send(request, node);
  }

  #target(request: RunRequest): { node: string } | { refused: RunResult } {
    const did = `${request.script} of ${request.skill} did not run`;
    const named = request.arguments.node;
    if (typeof named !== "string" || named === "")
      return {
        refused: refusal(
          "node_missing",
          `${request.skill} runs on a named server: put the server in arguments, such as {"node": "homelab01", ...}; ${did}.`,
        ),
      };
    const listed = this.#servers();
    if ("refused" in listed) return listed;
    const servers = listed.servers;
    if (!servers.some((entry) => entry.name === named)) {
      const known = servers.map((entry) => entry.name);
      return {
        refused: refusal(
          "node_unknown",
          `no node is named ${named.slice(0, 80)}; known nodes: ${known.length > 0 ? known.join(", ") : "none"}.`,
        ),
      };
    }
    if (!this.#allowedOn(request.skill, named))
      return {
        refused: withNode(
          refusal(
            "node_not_in_scope",
            `${request.skill} may not run on node ${named}: the owner's nodes.skills scope leaves it out; ${did}.`,
          ),
          named,
        ),
      };
    if (!this.#hub.isOnline(named)) {
      const seen = this.#hub.lastSeen(named);
      return {
        refused: withNode(
          refusal(
            "node_offline",
            `node ${named} is offline (last seen ${seen === undefined ? "never" : new Date(seen).toISOString()}).`,
          ),
          named,
        ),
      };
    }
    return { node: named };
  }

  /** The registry's named servers, or the refusal of a registry that cannot be read. */
  #servers(): { servers: NodeEntry[] } | { refused: RunResult } {
    try {
      return { servers: this.#hub.registry.list().filter((entry) => entry.role === "node") };
    } catch (error) {
      // The file's path and the parser's words are the owner's (skillgate nodes list shows
      // them); the model is told only that the registry is unusable.
      const code = isSkillgateError(error) ? error.code : "nodes_registry_corrupt";
      return {
        refused: refusal(
          code,
          "the controller's node registry cannot be read, so no run can go to a node until the owner repairs it (skillgate nodes list names the problem); the script did not run.",
        ),
      };
    }
  }

  #send(request: RunRequest, node: string): Promise<RunResult> {
    // Stopped before anything went out: the node never sees this run.
    if (stopped(request)) return Promise.resolve(withNode(notSent(request, node), node));
    const { node: _target, ...scriptArguments } = request.arguments;
    const message: NodeRunMessage = {
      type: "run",
      requestId: randomUUID(),
      skill: request.skill,
      hash: request.hash,
      script: request.script,
      arguments: scriptArguments as { readonly [key: string]: JsonValue },
      ...(request.argv !== undefined ? { argv: request.argv } : {}),
      timeoutMs: request.limits.timeoutMs,
      maxOutputBytes: request.limits.maxOutputBytes,
    };
    const started = performance.now();
    const kept = {
      stdout: new OutputKeeper(request.limits.maxOutputBytes),
      stderr: new OutputKeeper(request.limits.maxOutputBytes),
    };
    return new Promise<RunResult>((resolve) => {
      let settled = false;
      let timer: ReturnType<typeof setTimeout> | undefined;
      let graceTimer: ReturnType<typeof setTimeout> | undefined;
      const finish = (result: RunResult): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        clearTimeout(graceTimer);
        request.signal?.removeEventListener("abort", onAbort);
        resolve(withNode(result, node));
      };
      const partial = (status: RunResult["status"], text: string, code: string): RunResult => ({
        status,
        exitCode: null,
        stdout: kept.stdout.text,
        stderr: kept.stderr.text,
        stdoutTruncated: kept.stdout.truncated,
        stderrTruncated: kept.stderr.truncated,
        durationMs: performance.now() - started,
        message: `HOST: ${text} [${code}]`,
        code,
      });
      const giveUp = (status: "timed_out" | "interrupted", text: string, code: string): void => {
        this.#hub.abandon(node, message.requestId);
        finish(partial(status, text, code));
      };
      const onAbort = (): void => {
        this.#hub.cancel(node, message.requestId);
        // The node answers a cancel with run-ended; one that does not is given up on after the grace.
        graceTimer = setTimeout(
          () =>
            giveUp(
              "interrupted",
              `the run of ${request.script} (${request.skill}) on node ${node} was cancelled.`,
              "cancelled",
            ),
          this.#graceMs,
        );
        graceTimer.unref?.();
      };
      const listener: RunListener = {
        onMessage: (up) => {
          if (up.type === "run-output") {
            const forwarded = kept[up.stream === "stderr" ? "stderr" : "stdout"].add(up.chunk);
            if (forwarded !== "") request.onOutput?.(up.stream, forwarded);
          } else if (up.type === "run-ended")
            finish(resultOf(node, up.outcome, kept, performance.now() - started));
        },
        onGone: () =>
          finish(
            partial(
              "interrupted",
              `node ${node} went away during the run of ${request.script} (${request.skill}); it was not run again.`,
              "node_gone",
            ),
          ),
      };
      if (!this.#hub.startRun(node, message, listener)) {
        const seen = this.#hub.lastSeen(node);
        finish(
          refusal(
            "node_offline",
            `node ${node} is offline (last seen ${seen === undefined ? "never" : new Date(seen).toISOString()}).`,
          ),
        );
        return;
      }
      timer = setTimeout(() => {
        this.#hub.cancel(node, message.requestId);
        giveUp(
          "timed_out",
          `node ${node} did not answer the run of ${request.script} (${request.skill}) within its timeout of ${Math.round(request.limits.timeoutMs / 1000)} s; it was cancelled.`,
          "node_timeout",
        );
      }, request.limits.timeoutMs + this.#graceMs);
      timer.unref?.();
      request.signal?.addEventListener("abort", onAbort, { once: true });
    });
  }
}

/**
 * What `node` reported, with the output it reported (capped here too: a node is not trusted
 * to keep the cap), its text wrapped as the node's words, and its code and signal kept only
 * when they have a code's and a signal's shape.
 */
function resultOf(
  node: string,
  outcome: NodeRunOutcome,
  kept: { stdout: OutputKeeper; stderr: OutputKeeper },
  durationMs: number,
): RunResult {
  const stdout = capped(outcome.stdout, kept.stdout.limit);
  const stderr = capped(outcome.stderr, kept.stderr.limit);
  const code = nodeReportedCode(outcome.code);
  const signal = nodeReportedSignal(outcome.signal);
  const message = outcome.message;
  return {
    status: outcome.status,
    exitCode: outcome.exitCode,
    stdout: stdout.text,
    stderr: stderr.text,
    stdoutTruncated: outcome.stdoutTruncated || stdout.cut,
    stderrTruncated: outcome.stderrTruncated || stderr.cut,
    durationMs,
    ...(message !== undefined ? { message: nodeReportedMessage(node, message, code) } : {}),
    ...(code !== undefined ? { code } : {}),
    ...(signal !== undefined ? { signal } : {}),
  };
}

/** True once the caller stopped the call (a function, so each look reads the signal anew). */
function stopped(request: RunRequest): boolean {
  return request.signal?.aborted === true;
}

/** A run stopped by its caller before it was sent: `interrupted`, code `cancelled`; it never ran. */
function notSent(request: RunRequest, node: string): RunResult {
  return {
    ...refusal(
      "cancelled",
      `the run of ${request.script} (${request.skill}) was stopped before it was sent to node ${node}; it did not run.`,
    ),
    status: "interrupted",
  };
}

function capped(text: string, limit: number): { text: string; cut: boolean } {
  if (Buffer.byteLength(text) <= limit) return { text, cut: false };
  return { text: Buffer.from(text).subarray(0, limit).toString("utf8"), cut: true };
}

function withNode(result: RunResult, node: string): RunResult {
  return { ...result, node };
}

/** Streamed output kept up to a byte cap: what is forwarded to listeners is what is kept. */
class OutputKeeper {
  readonly limit: number;
  text = "";
  #bytes = 0;
  truncated = false;

  constructor(limit: number) {
    this.limit = limit;
  }

  /** Keeps what fits of `chunk` and returns it ("" once the cap is reached). */
  add(chunk: string): string {
    if (typeof chunk !== "string" || this.truncated) return "";
    const size = Buffer.byteLength(chunk);
    const room = this.limit - this.#bytes;
    const part = size <= room ? chunk : Buffer.from(chunk).subarray(0, room).toString("utf8");
    if (size > room) this.truncated = true;
    this.#bytes += Buffer.byteLength(part);
    this.text += part;
    return part;
  }
}
