/**
 * The sandbox runner: scripts of `skillgate.execution: sandbox` skills run under bubblewrap.
 * See docs/running-scripts.md, "Sandbox".
 */
export { type CgroupSupport, detectCgroups, hostCgroupSupport } from "./cgroup-detect.js";
export { type LimitEnforcement, type SandboxHealth, sandboxHealth } from "./health.js";
export { DEFAULT_SANDBOX_RESOURCES, type SandboxLimits, type SandboxResources } from "./limits.js";
export { SANDBOXABLE_EXTENSIONS, type SandboxRefusalCode } from "./messages.js";
export {
  runInSandbox,
  type SandboxNetwork,
  type SandboxRunDetails,
  type SandboxRunRequest,
  type SandboxRunResult,
} from "./run-in-sandbox.js";
export { SandboxPool, type SandboxPoolOptions } from "./sandbox-pool.js";
export {
  domainProxyProvider,
  interpreterCommand,
  type SandboxProxyLease,
  type SandboxProxyProvider,
  SandboxRunner,
  type SandboxRunnerOptions,
} from "./sandbox-runner.js";
export { sandboxSeccompProgram } from "./seccomp.js";
