/**
 * `skillgate/runners`: the Runner contract and the runners skillgate ships: the router, the
 * local runner, the sandbox, the verified snapshots they run from, and skills' package
 * environments. See
 * docs/running-scripts.md.
 */

export type { RunRefusalCode, VerifiedSnapshot } from "./contract.js";
export { DEFAULT_RUN_LIMITS } from "./contract.js";
export type {
  EnvironmentStoreOptions,
  PackageEnvironment,
} from "./environments/environment-store.js";
export { EnvironmentStore } from "./environments/environment-store.js";
export type { PackageIndexes, PackageSource } from "./environments/index-settings.js";
export { DEFAULT_PACKAGE_INDEXES } from "./environments/index-settings.js";
export type { EnvironmentSubject, PackageEnvironmentsOptions } from "./environments/package-environments.js";
export { PackageEnvironments } from "./environments/package-environments.js";
export type { LocalRunnerOptions } from "./local-runner.js";
export { LocalRunner } from "./local-runner.js";
export type { RunObserver } from "./observed.js";
export type { ModeRunners, RunnerRouterOptions } from "./router.js";
export { RunnerRouter } from "./router.js";
export type { SandboxHealth, SandboxResources, SandboxRunnerOptions } from "./sandbox/index.js";
export { DEFAULT_SANDBOX_RESOURCES, SandboxRunner, sandboxHealth } from "./sandbox/index.js";
export type { SnapshotOutcome, SnapshotStoreOptions } from "./snapshot.js";
export { SnapshotStore } from "./snapshot.js";
