import type { CapabilityPermissions, RuntimeGate } from "../types.js";

/**
 * A generation of a Lua skill: one manifest digest, one Lua state, one provider. States:
 * `shadow` (built and healthy, not yet serving), `waiting_approval` (a shadow whose switch
 * widens what the skill may do: the owner decides), `active` (the index routes to it),
 * `draining` (replaced; its calls in flight finish on it), `closed`, `rejected` (the owner
 * said no, or the reload failed before a shadow existed).
 */
export type GenerationState = "shadow" | "waiting_approval" | "active" | "draining" | "closed" | "rejected";

/** What `skillgate generations`, `/api/generations` and the UI show of one generation. */
export interface GenerationRecord {
  /** `<skill id>@<number>`. */
  readonly id: string;
  readonly skill: string;
  readonly number: number;
  readonly state: GenerationState;
  readonly manifestDigest: string;
  /** ISO time it was built. */
  readonly createdAt: string;
  /** For `waiting_approval`: what the switch would widen, one line each. */
  readonly widening: readonly string[];
  /** Why it was rejected, or what the owner answered. */
  readonly detail?: string;
}

/** The part of a generation the widening check compares. */
export interface GenerationAuthority {
  readonly permissions: CapabilityPermissions;
  readonly runtimeGate: RuntimeGate;
  /** `lua_skill`, or the adapter's transport. */
  readonly transport: string;
}

/**
 * What `next` may do that `current` may not: new read or write roots, network, shell,
 * environment names, callable capabilities; a changed transport; a gate open to more runtime
 * modes, to team workers, or to runs without an interactive user. Empty means the switch
 * needs nobody's approval (narrowing never does).
 */
export function wideningOf(current: GenerationAuthority, next: GenerationAuthority): string[] {
  const lines: string[] = [];
  const added = (label: string, before: readonly string[], after: readonly string[]): void => {
    const extra = after.filter((item) => !before.includes(item));
    if (extra.length > 0) lines.push(`${label}: + ${extra.join(", ")}`);
  };
  const before = current.permissions;
  const after = next.permissions;
  added("fs read roots", before.fsRead, after.fsRead);
  added("fs write roots", before.fsWrite, after.fsWrite);
  if (!before.network && after.network) lines.push("network: off -> on");
  if (!before.shell && after.shell) lines.push("shell: off -> on");
  added("environment", before.env, after.env);
  added("adapter capabilities", before.adapterCapabilities, after.adapterCapabilities);
  if (current.transport !== next.transport)
    lines.push(`transport: ${current.transport} -> ${next.transport}`);
  added("runtime modes", current.runtimeGate.allowedModes, next.runtimeGate.allowedModes);
  if (current.runtimeGate.disallowTeamWorker && !next.runtimeGate.disallowTeamWorker)
    lines.push("team workers: disallowed -> allowed");
  if (current.runtimeGate.requiresInteractiveUser && !next.runtimeGate.requiresInteractiveUser)
    lines.push("interactive user: required -> not required");
  return lines;
}
