/**
 * `skillgate/runners`: the Runner contract and the runners skillgate ships: the router, the
 * local runner, the sandbox, and the verified snapshots they run from. See
 * docs/running-scripts.md.
 */

export type { RunRefusalCode, VerifiedSnapshot } from "./contract.js";
export { DEFAULT_RUN_LIMITS } from "./contract.js";
export type { LocalRunnerOptions } from "./local-runner.js";
export { LocalRunner } from "./local-runner.js";
export type { RunObserver } from "./observed.js";
export type { ModeRunners, RunnerRouterOptions } from "./router.js";
export { RunnerRouter } from "./router.js";
export type { SandboxHealth, SandboxResources, SandboxRunnerOptions } from "./sandbox/index.js";
export { DEFAULT_SANDBOX_RESOURCES, SandboxRunner, sandboxHealth } from "./sandbox/index.js";
export type { SnapshotOutcome, SnapshotStoreOptions } from "./snapshot.js";
export { SnapshotStore } from "./snapshot.js";
