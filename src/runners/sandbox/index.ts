/**
 * The sandbox runner: scripts of `skillgate.execution: sandbox` skills run under bubblewrap.
 * See docs/running-scripts.md, "Sandbox".
 */
export { type CgroupSupport, detectCgroups, hostCgroupSupport } from "./cgroup-detect.js";
export { type LimitEnforcement, type SandboxHealth, sandboxHealth } from "./health.js";
export {
  type InterpreterHealth,
  type InterpreterMountHealth,
  interpreterHealth,
} from "./interpreter-health.js";
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
  type SandboxInterpreter,
  type SandboxProxyLease,
  type SandboxProxyProvider,
  SandboxRunner,
  type SandboxRunnerOptions,
  sandboxInterpreter,
} from "./sandbox-runner.js";
export { sandboxSeccompProgram } from "./seccomp.js";
