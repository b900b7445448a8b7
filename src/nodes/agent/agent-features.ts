import { arch, platform } from "node:os";
import { dotnetPath } from "../../runners/languages.js";
import { type SandboxHealth, sandboxHealth } from "../../runners/sandbox/health.js";
import type { NodeSandboxFeature } from "../protocol.js";

/** What this host can do, as the heartbeat advertises it. */
export interface AgentFeatures {
  /** `skills` always; `sandbox` when bubblewrap works here; `dotnet` when the .NET SDK is on PATH. */
  readonly features: readonly string[];
  readonly sandbox: NodeSandboxFeature;
  readonly os: string;
  readonly arch: string;
}

/**
 * Looks at this host once: the sandbox exactly as `skillgate doctor` checks it (a real
 * bubblewrap run, src/runners/sandbox/health.ts) with the limits it reports, and `dotnet` on
 * PATH. Done at start and on request, not per heartbeat: the check starts a sandbox.
 */
export async function detectAgentFeatures(): Promise<AgentFeatures> {
  const health = await sandboxHealth();
  const sandbox = sandboxFeature(health);
  const features = ["skills"];
  if (sandbox.available) features.push("sandbox");
  if (dotnetPath() !== undefined) features.push("dotnet");
  return { features, sandbox, os: platform(), arch: arch() };
}

/** The doctor's sandbox check as the heartbeat's feature: available, why not, and each limit. */
export function sandboxFeature(health: SandboxHealth): NodeSandboxFeature {
  const limits = Object.fromEntries(
    Object.entries(health.limits).map(([name, limit]) => [name, `${limit.by}: ${limit.detail}`]),
  );
  if (health.ok) return { available: true, limits };
  const reason = health.advice[0] ?? health.userNamespaces.detail;
  return { available: false, reason, limits };
}
