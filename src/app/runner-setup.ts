import type { SkillgateConfig } from "../config/config.js";
import type { RunLimits, Runner, RunRequest, RunResult } from "../runners/contract.js";
import type { EnforcedLimits } from "../runners/enforced-limits.js";
import { EnvironmentStore } from "../runners/environments/environment-store.js";
import { PackageEnvironments } from "../runners/environments/package-environments.js";
import { LocalRunner } from "../runners/local-runner.js";
import { observedRunner } from "../runners/observed.js";
import type { ProxyRefusal } from "../runners/proxy/index.js";
import { RunnerRouter } from "../runners/router.js";
import { domainProxyProvider, SandboxRunner } from "../runners/sandbox/index.js";
import { SnapshotStore } from "../runners/snapshot.js";
import { trustedSkills } from "../runners/trust.js";
import type { SkillgateOptions } from "./skillgate.js";

/**
 * How a Skillgate runs scripts and builds package environments: the router over verified
 * snapshots with the local runner, the sandbox and the modes' runners, the package
 * environments, and the configuration's default limits.
 */

/**
 * The runner: the one given, or the router over verified snapshots in `<data>/runs` with the
 * local runner (trust and snapshot count read from the configuration on each run), the
 * bubblewrap sandbox, and any runners given per mode (which replace these). Modes without a
 * runner (`node`, `queue` for now) are refused with a `HOST:` message.
 */
export function runnerOf(
  options: SkillgateOptions,
  folders: { readonly data: string; readonly protectedFolders: readonly string[] },
  config: () => SkillgateConfig,
  auditRefusal: (skill: string, refusal: ProxyRefusal, call: RunRequest["call"]) => void,
  auditLimits: (skill: string, limits: EnforcedLimits, call: RunRequest["call"]) => void,
): { runner: Runner; sandbox: SandboxRunner | undefined; snapshots: SnapshotStore } {
  let sandbox: SandboxRunner | undefined;
  const data = folders.data;
  const snapshots = new SnapshotStore({ dataFolder: data, keep: () => config().runners.snapshots.keep });
  // Read on every run: an interpreter configured in config.yaml applies from the next run.
  const languages = {
    configuredInterpreters: () => config().runners.interpreters,
    protectedFolders: [data],
  };
  const chosen =
    options.runner ??
    (() => {
      const local = new LocalRunner({
        dataFolder: data,
        snapshots,
        isTrusted: trustedSkills(() => config().runners.local.trusted),
        languages,
      });
      sandbox = new SandboxRunner({
        snapshots,
        languages,
        proxy: domainProxyProvider({ onRefusal: auditRefusal }),
        onLimits: auditLimits,
      });
      return new RunnerRouter({
        snapshots,
        runners: { local, sandbox, ...options.runners },
        protectedFolders: folders.protectedFolders,
      });
    })();
  return {
    runner: options.observeRuns === undefined ? chosen : observedRunner(chosen, options.observeRuns),
    sandbox,
    snapshots,
  };
}

/** `runner`, telling `onResult` about each result (the workspace's changes go to the audit log). */
export function workspaceAudited(
  runner: Runner,
  onResult: (request: RunRequest, result: RunResult) => void,
): Runner {
  return {
    ...(runner.admit !== undefined ? { admit: (request: RunRequest) => runner.admit?.(request) } : {}),
    run: async (request) => {
      const result = await runner.run(request);
      onResult(request, result);
      return result;
    },
  };
}

/**
 * Skills' package environments in `<data>/environments`, with the configuration's package
 * sources, count kept and build timeout read at each use, built through the domain proxy
 * whose refusals join the audit trail.
 */
export function packageEnvironmentsOf(
  data: string,
  config: () => SkillgateConfig,
  snapshots: SnapshotStore,
  auditRefusal: (skill: string, refusal: ProxyRefusal, call: RunRequest["call"]) => void,
): PackageEnvironments {
  return new PackageEnvironments({
    store: new EnvironmentStore({ dataFolder: data, keep: () => config().packages.keep }),
    snapshots,
    indexes: () => ({ python: config().packages.python, node: config().packages.node }),
    proxy: domainProxyProvider({ onRefusal: auditRefusal }),
    limits: () => ({ timeoutMs: config().packages.buildTimeoutSeconds * 1000, maxOutputBytes: 1024 * 1024 }),
  });
}

/** The configuration's default run limits. */
export function configuredLimits(config: SkillgateConfig): RunLimits {
  return {
    timeoutMs: config.runners.limits.timeoutSeconds * 1000,
    maxOutputBytes: config.runners.limits.maxOutputBytes,
  };
}
