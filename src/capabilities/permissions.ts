import type { OwnerPermissionPolicy } from "../config/capabilities-config.js";
import type { WorkspaceAccess } from "../runners/workspace/workspace.js";
import { TRUST_CEILINGS, type TrustCeiling } from "./trust.js";
import type { CapabilityPermissions, TrustLevel } from "./types.js";

/**
 * Effective permissions = declared ∩ the trust level's ceiling ∩ the owner's policy,
 * computed once per descriptor (at decision time) and then only read: the pipeline enforces
 * them at each call, `explain` and `capability inspect` show them, and
 * {@link sandboxPolicyOf} turns them into the sandbox policy of the skill's scripts.
 *
 * The two cuts differ on purpose. Asking for more than the OWNER allows is a refusal
 * (`policy_denied`): the skill would not work as written and the owner has said no. Asking
 * for more than the TRUST LEVEL allows is narrowed with a warning: the ceiling is what a
 * source may ever get, the skill still gets what its level permits.
 */

/** The `workspace` root name in `fsRead` / `fsWrite`: the run's project folder. */
export const WORKSPACE_ROOT = "workspace";

/** No permission at all. */
export const NO_PERMISSIONS: CapabilityPermissions = Object.freeze({
  fsRead: [],
  fsWrite: [],
  network: false,
  shell: false,
  env: [],
  adapterCapabilities: [],
});

/** What {@link effectivePermissions} found. */
export interface EffectivePermissionsResult {
  readonly effective: CapabilityPermissions;
  /** What the policy refuses, one line each; any entry makes the descriptor `policy_denied`. */
  readonly denied: readonly string[];
  /** What the trust ceiling cut, one line each (warnings). */
  readonly narrowed: readonly string[];
}

/**
 * Intersects `declared` with the ceiling of `level` and with `policy`. Policy denials are
 * judged on what was declared (a request the owner refuses is refused even where the ceiling
 * would have cut it anyway), so the answer does not depend on which cut comes first.
 */
export function effectivePermissions(
  declared: CapabilityPermissions,
  level: TrustLevel,
  policy: OwnerPermissionPolicy,
): EffectivePermissionsResult {
  const ceiling: TrustCeiling = TRUST_CEILINGS[level];
  const denied: string[] = [];
  const narrowed: string[] = [];
  const readsWorkspace = declared.fsRead.includes(WORKSPACE_ROOT);
  const writesWorkspace = declared.fsWrite.includes(WORKSPACE_ROOT);
  const otherReads = declared.fsRead.filter((root) => root !== WORKSPACE_ROOT);
  const otherWrites = declared.fsWrite.filter((root) => root !== WORKSPACE_ROOT);
  if (readsWorkspace && !policy.readWorkspace)
    denied.push("reads the workspace; capabilities.permissions.read_workspace is false");
  if (otherReads.length > 0 && !policy.readWorkspace)
    denied.push(`reads ${otherReads.join(", ")}; capabilities.permissions.read_workspace is false`);
  if ((writesWorkspace || otherWrites.length > 0) && !policy.writeWorkspace)
    denied.push(`writes ${declared.fsWrite.join(", ")}; capabilities.permissions.write_workspace is false`);
  if (declared.network && !policy.network)
    denied.push("uses the network; capabilities.permissions.network is false");
  if (declared.shell && !policy.shell) denied.push("runs a shell; capabilities.permissions.shell is false");
  const unlisted = declared.env.filter((name) => !policy.env.includes(name));
  if (unlisted.length > 0)
    denied.push(`is given ${unlisted.join(", ")}; not in capabilities.permissions.env`);

  const cut = (allowed: boolean, what: string): boolean => {
    if (!allowed) narrowed.push(`${what}: not within the ${level} ceiling`);
    return allowed;
  };
  const fsRead = [
    ...(readsWorkspace && cut(ceiling.readWorkspace, "workspace read") ? [WORKSPACE_ROOT] : []),
    ...(otherReads.length > 0 && cut(ceiling.otherRoots, `read ${otherReads.join(", ")}`) ? otherReads : []),
  ];
  const fsWrite = [
    ...(writesWorkspace && cut(ceiling.writeWorkspace, "workspace write") ? [WORKSPACE_ROOT] : []),
    ...(otherWrites.length > 0 &&
    cut(ceiling.otherRoots && ceiling.writeWorkspace, `write ${otherWrites.join(", ")}`)
      ? otherWrites
      : []),
  ];
  const network = declared.network && cut(ceiling.network, "network");
  const shell = declared.shell && cut(ceiling.shell, "shell");
  const env =
    declared.env.length > 0 && cut(ceiling.env, `env ${declared.env.join(", ")}`) ? declared.env : [];
  const adapterCapabilities =
    declared.adapterCapabilities.length > 0 &&
    cut(ceiling.adapters, `adapter capabilities ${declared.adapterCapabilities.join(", ")}`)
      ? declared.adapterCapabilities
      : [];
  if (denied.length > 0) return { effective: NO_PERMISSIONS, denied, narrowed };
  return {
    effective: Object.freeze({
      fsRead: Object.freeze(fsRead),
      fsWrite: Object.freeze(fsWrite),
      network,
      shell,
      env: Object.freeze(env.filter((name) => policy.env.includes(name))),
      adapterCapabilities: Object.freeze([...adapterCapabilities]),
    }),
    denied,
    narrowed,
  };
}

/** True when `inner` grants nothing `outer` does not (for a reload: does it widen?). */
export function permissionsWithin(inner: CapabilityPermissions, outer: CapabilityPermissions): boolean {
  const subset = (left: readonly string[], right: readonly string[]) =>
    left.every((item) => right.includes(item));
  return (
    subset(inner.fsRead, outer.fsRead) &&
    subset(inner.fsWrite, outer.fsWrite) &&
    (!inner.network || outer.network) &&
    (!inner.shell || outer.shell) &&
    subset(inner.env, outer.env) &&
    subset(inner.adapterCapabilities, outer.adapterCapabilities)
  );
}

/**
 * The sandbox policy of a skill's scripts, from its effective permissions: whether the
 * network is reachable at all (through the filtering proxy, with the skill's allowed
 * domains), how the workspace is mounted, and which other canonical folders are bound,
 * read-only or writable. A script never gets more than its capability.
 */
export interface CapabilitySandboxPolicy {
  readonly network: boolean;
  /** `undefined`: no workspace is mounted at all. */
  readonly workspace: WorkspaceAccess | undefined;
  readonly readableRoots: readonly string[];
  readonly writableRoots: readonly string[];
  /** Names of environment variables the runner may pass through (their values come from the host). */
  readonly env: readonly string[];
}

/** Maps effective permissions onto the sandbox's terms. */
export function sandboxPolicyOf(permissions: CapabilityPermissions): CapabilitySandboxPolicy {
  const writes = permissions.fsWrite.includes(WORKSPACE_ROOT);
  const reads = writes || permissions.fsRead.includes(WORKSPACE_ROOT);
  const writableRoots = permissions.fsWrite.filter((root) => root !== WORKSPACE_ROOT);
  return {
    network: permissions.network,
    workspace: writes ? "write" : reads ? "read" : undefined,
    readableRoots: permissions.fsRead.filter(
      (root) => root !== WORKSPACE_ROOT && !writableRoots.includes(root),
    ),
    writableRoots,
    env: permissions.env,
  };
}
