import { chmodSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { extname, join } from "node:path";
import { removeTree } from "../../core/remove-tree.js";
import type { Runner, RunRequest, RunResult, VerifiedSnapshot } from "../contract.js";
import type { EnforcedLimits } from "../enforced-limits.js";
import { ENVIRONMENT_MOUNTS } from "../environments/build-script.js";
import type { PackageEnvironment } from "../environments/environment-store.js";
import type { InterpreterMount } from "../interpreters/prefix-mounts.js";
import type { ResolvedInterpreter } from "../interpreters/resolve-interpreter.js";
import { type LanguageOptions, languageInterpreter } from "../languages.js";
import type { ProxyRefusal } from "../proxy/index.js";
import { startDomainProxy } from "../proxy/index.js";
import { refusal } from "../refusal.js";
import type { SnapshotStore } from "../snapshot.js";
import { uncheckedWorkspace } from "../workspace/prepare.js";
import type { CgroupSupport } from "./cgroup-detect.js";
import { sandboxTools } from "./host-tools.js";
import type { SandboxResources } from "./limits.js";
import * as messages from "./messages.js";
import {
  runInSandbox,
  type SandboxCgroupMode,
  type SandboxMount,
  type SandboxNetwork,
  type SandboxRunRequest,
  type SandboxRunResult,
} from "./run-in-sandbox.js";
import { SandboxPool } from "./sandbox-pool.js";

/** A proxy for one run: where its socket is, and how to stop it afterwards. */
export interface SandboxProxyLease {
  readonly socketPath: string;
  release(): Promise<void> | void;
}

/** Starts skillgate's domain-filtering proxy for a skill's allowed domains. */
export interface SandboxProxyProvider {
  open(request: {
    readonly skill: string;
    readonly allowedDomains: readonly string[];
    /** The tool call the run serves, for the audit trail of refusals. */
    readonly call?: RunRequest["call"];
  }): Promise<SandboxProxyLease>;
}

/** Options of {@link SandboxRunner}. */
export interface SandboxRunnerOptions {
  /** Verifies and snapshots requests that arrive without the router's snapshot; without it they are refused. */
  readonly snapshots?: SnapshotStore;
  /** The proxy for skills with allowed domains; default {@link domainProxyProvider}. */
  readonly proxy?: SandboxProxyProvider;
  /** Overrides of the default processes, memory, CPUs, file size and `/tmp` size. */
  readonly resources?: Partial<SandboxResources>;
  /**
   * `auto` (default): the host's cgroups where it has them, and every result says which limits
   * were enforced and how; `required`: a run without cgroups is refused (`cgroup_unavailable`);
   * `off`: rlimits only, whatever the host's cgroups allow.
   */
  readonly cgroups?: SandboxCgroupMode;
  /** Where run cgroups are made instead of what is detected (see {@link SandboxRunRequest.cgroupSupport}). */
  readonly cgroupSupport?: CgroupSupport;
  /**
   * Told the limits of every run that started, with the call it served: for the audit log
   * (`run-limits`), so a run that fell back to rlimits is on the record.
   */
  readonly onLimits?: (skill: string, limits: EnforcedLimits, call: RunRequest["call"]) => void;
  /**
   * Keep one sandbox started ahead of the next run (default true; see {@link SandboxPool}):
   * the chain spawned and put in its cgroups while the runner is idle. `false` starts every
   * run from scratch.
   */
  readonly prestart?: boolean;
  /** Where interpreters are found (the search path, `runners.interpreters`); default this process's PATH. */
  readonly languages?: LanguageOptions;
}

/**
 * The Runner for `skillgate.execution: sandbox` (the default mode): admits only sandboxable
 * scripts on a host with bubblewrap, takes the router's verified snapshot (or makes one),
 * opens the proxy when the skill lists allowed domains, and calls {@link runInSandbox}.
 */
export class SandboxRunner implements Runner {
  readonly #options: SandboxRunnerOptions;
  readonly #proxy: SandboxProxyProvider;
  readonly #pool: SandboxPool | undefined;

  constructor(options: SandboxRunnerOptions = {}) {
    this.#options = options;
    this.#proxy = options.proxy ?? domainProxyProvider();
    this.#pool = options.prestart === false ? undefined : new SandboxPool();
  }

  /**
   * Kills the sandbox kept ahead and waits until the cgroups of every finished run are
   * removed; later runs start from scratch. Runs in progress are not stopped (abort them).
   * Without it, the sandbox kept ahead still dies with this process.
   */
  async close(): Promise<void> {
    await this.#pool?.close();
  }

  /** Refuses a kind the sandbox does not run, a missing interpreter and a host without bubblewrap. */
  admit(request: RunRequest): RunResult | undefined {
    if (
      !(messages.SANDBOXABLE_EXTENSIONS as readonly string[]).includes(extname(request.script).toLowerCase())
    )
      return messages.notSandboxable(request.script);
    if (sandboxTools().bwrap === undefined) return messages.bubblewrapMissing(request.script);
    const interpreter = sandboxInterpreter(request.script, this.#options.languages);
    return interpreter.ok ? undefined : interpreter.refusal;
  }

  async run(request: RunRequest): Promise<SandboxRunResult> {
    const refused = this.admit(request);
    if (refused !== undefined) return refused;
    if (request.workspace !== undefined && request.checkedWorkspace === undefined)
      return uncheckedWorkspace(request);
    const snapshot = this.#verified(request);
    if (!snapshot.ok) return snapshot.refusal;
    try {
      return await this.#runFrom(request, snapshot.snapshot);
    } finally {
      if (snapshot.owned) this.#options.snapshots?.release(snapshot.snapshot);
    }
  }

  #verified(
    request: RunRequest,
  ): { ok: true; snapshot: VerifiedSnapshot; owned: boolean } | { ok: false; refusal: RunResult } {
    const given = request.snapshot;
    if (given !== undefined && given.hash === request.hash && given.folder === request.folder)
      return { ok: true, snapshot: given, owned: false };
    const store = this.#options.snapshots;
    if (store === undefined)
      return {
        ok: false,
        refusal: refusal(
          "runner_unavailable",
          `${request.skill} reached the sandbox without a verified snapshot, so ${request.script} did not run; tell the host's owner.`,
        ),
      };
    const prepared = store.prepare(request);
    return prepared.ok ? { ok: true, snapshot: prepared.snapshot, owned: true } : prepared;
  }

  async #runFrom(request: RunRequest, snapshot: VerifiedSnapshot): Promise<SandboxRunResult> {
    const interpreter = sandboxInterpreter(request.script, this.#options.languages);
    if (!interpreter.ok) return interpreter.refusal;
    const domains = request.allowedDomains ?? [];
    let lease: SandboxProxyLease | undefined;
    if (domains.length > 0) {
      try {
        lease = await this.#proxy.open({
          skill: request.skill,
          allowedDomains: domains,
          ...(request.call !== undefined ? { call: request.call } : {}),
        });
      } catch (error) {
        return messages.proxyUnavailable(
          request.script,
          error instanceof Error ? error.message : String(error),
        );
      }
    }
    const network: SandboxNetwork =
      lease === undefined
        ? { mode: "none" }
        : { mode: "proxy", socketPath: lease.socketPath, allowedDomains: domains };
    try {
      const result = await runInSandbox({
        snapshotFolder: snapshot.folder,
        script: request.script,
        command: interpreter.command,
        interpreterMounts: interpreter.mounts,
        argumentsJson: JSON.stringify(request.arguments),
        ...(request.argv !== undefined ? { argv: request.argv } : {}),
        limits: { ...this.#options.resources, ...request.limits },
        network,
        ...environmentMounts(request.environment),
        skillName: request.skill,
        ...(this.#options.cgroups !== undefined ? { cgroups: this.#options.cgroups } : {}),
        ...(this.#options.cgroupSupport !== undefined ? { cgroupSupport: this.#options.cgroupSupport } : {}),
        ...(this.#pool !== undefined && !this.#pool.closed ? { pool: this.#pool } : {}),
        ...(request.signal !== undefined ? { signal: request.signal } : {}),
        ...(request.onOutput !== undefined ? { onOutput: request.onOutput } : {}),
        ...(request.checkedWorkspace !== undefined ? { workspace: request.checkedWorkspace } : {}),
      });
      if (result.limits !== undefined) this.#options.onLimits?.(request.skill, result.limits, request.call);
      return result;
    } finally {
      await lease?.release();
    }
  }
}

/** The interpreter a sandboxed script runs with: its argv and the folders bound for it. */
export interface SandboxInterpreter {
  readonly ok: true;
  /** `[python, "-B"]` (the snapshot is read-only, so no bytecode is written), `[node]`, `[bash]`. */
  readonly command: string[];
  readonly mounts: readonly InterpreterMount[];
  readonly interpreter: ResolvedInterpreter;
}

/**
 * A package environment as a run sees it: its Python folder read-only at `/packages/python`
 * on `PYTHONPATH`, its `node_modules` read-only at `/node_modules` (where Node's own lookup
 * from `/skill` ends) and on `NODE_PATH`.
 */
function environmentMounts(
  environment: PackageEnvironment | undefined,
): Pick<SandboxRunRequest, "mounts" | "extraEnvironment"> {
  if (environment === undefined) return {};
  const mounts: SandboxMount[] = [];
  const variables: Record<string, string> = {};
  if (environment.python !== undefined) {
    mounts.push({ source: environment.python, target: ENVIRONMENT_MOUNTS.python, writable: false });
    variables.PYTHONPATH = ENVIRONMENT_MOUNTS.python;
  }
  if (environment.nodeModules !== undefined) {
    mounts.push({ source: environment.nodeModules, target: ENVIRONMENT_MOUNTS.nodeModules, writable: false });
    variables.NODE_PATH = ENVIRONMENT_MOUNTS.nodeModules;
  }
  return { mounts, extraEnvironment: variables };
}

/**
 * The interpreter for a sandboxable script, found as the user's shell finds it (see
 * docs/running-scripts.md, "Interpreters"), or the refusal: none found (`language_unavailable`),
 * or one the sandbox cannot show (`interpreter_unreachable`).
 */
export function sandboxInterpreter(
  script: string,
  options: LanguageOptions = {},
): SandboxInterpreter | { readonly ok: false; readonly refusal: RunResult } {
  const extension = extname(script).toLowerCase();
  const language =
    extension === ".py"
      ? "python"
      : extension === ".sh"
        ? "bash"
        : extension === ".js" || extension === ".mjs"
          ? "node"
          : undefined;
  if (language === undefined) return { ok: false, refusal: messages.notSandboxable(script) };
  const resolved = languageInterpreter(language, options);
  if (!resolved.ok)
    return {
      ok: false,
      refusal: refusal(
        "language_unavailable",
        `${script} needs an interpreter, and ${resolved.problem}, so it did not run; tell the host's owner (skillgate doctor shows the interpreters it found).`,
      ),
    };
  const interpreter = resolved.interpreter;
  if (interpreter.mountProblem !== undefined)
    return {
      ok: false,
      refusal: messages.interpreterUnreachable(script, interpreter.executable, interpreter.mountProblem),
    };
  const command = language === "python" ? [interpreter.executable, "-B"] : [interpreter.executable];
  return { ok: true, command, mounts: interpreter.mounts, interpreter };
}

/** The interpreter argv for a sandboxable script (see {@link sandboxInterpreter}), or undefined. */
export function interpreterCommand(script: string, options: LanguageOptions = {}): string[] | undefined {
  const interpreter = sandboxInterpreter(script, options);
  return interpreter.ok ? interpreter.command : undefined;
}

/**
 * A provider that starts one domain proxy per run, listening on a socket in a fresh folder
 * under the system's temporary folder (0711: the sandbox user may pass through it but not
 * list it; the socket is 0666 so the sandbox user may connect), and stops it afterwards.
 * `onRefusal` receives every refusal, for the audit log.
 */
export function domainProxyProvider(
  options: {
    readonly onRefusal?: (skill: string, refusal: ProxyRefusal, call: RunRequest["call"]) => void;
  } = {},
): SandboxProxyProvider {
  return {
    async open({ skill, allowedDomains, call }) {
      const folder = mkdtempSync(join(tmpdir(), "skillgate-proxy-"));
      chmodSync(folder, 0o711);
      try {
        const onRefusal = options.onRefusal;
        const proxy = await startDomainProxy({
          socketPath: join(folder, "proxy.sock"),
          allowedDomains,
          socketMode: 0o666,
          ...(onRefusal !== undefined
            ? { onRefusal: (refused: ProxyRefusal) => onRefusal(skill, refused, call) }
            : {}),
        });
        return {
          socketPath: proxy.socketPath,
          async release() {
            await proxy.close();
            removeTree(folder);
          },
        };
      } catch (error) {
        removeTree(folder);
        throw error;
      }
    },
  };
}
