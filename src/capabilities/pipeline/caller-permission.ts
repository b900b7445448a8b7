import type { CapabilityIndex, CapabilityPermissions, CapabilityProvider, RuntimeMode } from "../types.js";
import { type Caller, refuse, type StepResult } from "./invocation.js";

/**
 * Step 1, the caller permission check (docs/capabilities.md, "The invocation pipeline"). The
 * rules, in order:
 *
 * 1. A `lua_skill` caller may invoke only the capabilities its manifest lists under
 *    `permissions.adapters.capabilities`, and never one of its own (no self-recursion).
 * 2. Every caller sees only the providers registered for its runtime mode: a capability that
 *    exists only in another mode is `capability_not_in_runtime`, one that exists nowhere
 *    `capability_unknown`.
 * 3. Each provider's gate is checked again at the call (the index already filters; this is the
 *    second lock): its allowed modes include the caller's, `team` callers are refused a
 *    provider with `disallowTeamWorker`, and one with `requiresInteractiveUser` needs a person.
 * 4. A caller in `plan` mode may use read-only providers only: no write roots, no shell, no
 *    network. A Lua provider's own nested calls go through this step again in the same mode.
 *
 * What passes is the list of permitted providers; the router picks among them.
 */

/** Every runtime mode, to tell "exists elsewhere" from "exists nowhere". */
const RUNTIME_MODES: readonly RuntimeMode[] = ["normal", "plan", "job", "team"];

/** The providers a caller may use for one capability, and why the others were refused. */
export interface PermittedProviders {
  readonly capability: string;
  readonly permitted: readonly CapabilityProvider[];
  /** Providers the caller may not use, by id, with the sentence why. */
  readonly refused: ReadonlyMap<string, string>;
}

/** True when a provider's effective permissions change nothing: what plan mode allows. */
export function isReadOnly(permissions: CapabilityPermissions): boolean {
  return permissions.fsWrite.length === 0 && !permissions.shell && !permissions.network;
}

/** Checks that `caller` may invoke `capability`, and which of its providers. */
export function checkCallerPermission(
  caller: Caller,
  capability: string,
  index: CapabilityIndex,
): StepResult<PermittedProviders> {
  const named = JSON.stringify(capability);
  if (caller.kind === "lua_skill" && !(caller.allowedCapabilities ?? []).includes(capability))
    return refuse(
      "caller_not_permitted",
      `HOST: this Lua skill may not invoke ${named}; its manifest's permissions.adapters.capabilities does not list it.`,
    );
  const providers = index.providersOf(capability, caller.runtimeMode);
  if (providers.length === 0) {
    const elsewhere = RUNTIME_MODES.filter(
      (mode) => mode !== caller.runtimeMode && index.providersOf(capability, mode).length > 0,
    );
    if (elsewhere.length > 0)
      return refuse(
        "capability_not_in_runtime",
        `HOST: ${named} is not registered for the ${caller.runtimeMode} runtime (only ${elsewhere.join(", ")}).`,
      );
    const known = index.capabilities(caller.runtimeMode);
    return refuse(
      "capability_unknown",
      `HOST: there is no capability ${named}${known.length > 0 ? `; registered: ${known.slice(0, 20).join(", ")}` : ""}.`,
    );
  }
  const permitted: CapabilityProvider[] = [];
  const refused = new Map<string, string>();
  for (const provider of providers) {
    const reason = providerRefusal(caller, provider);
    if (reason === undefined) permitted.push(provider);
    else refused.set(provider.descriptor.id, reason);
  }
  if (permitted.length === 0)
    return refuse(
      "caller_not_permitted",
      `HOST: ${named} cannot be invoked here: ${[...refused.values()][0] ?? "no provider permits this caller"}.`,
    );
  return { ok: true, value: { capability, permitted, refused } };
}

/** Why `caller` may not use `provider`, or `undefined` when it may. */
function providerRefusal(caller: Caller, provider: CapabilityProvider): string | undefined {
  const id = provider.descriptor.id;
  const gate = provider.descriptor.runtimeGate;
  if (caller.kind === "lua_skill" && caller.agentId === id) return `${id} may not invoke itself`;
  if (!gate.allowedModes.includes(caller.runtimeMode))
    return `${id} is gated to ${gate.allowedModes.join(", ") || "no runtime"}`;
  if (caller.runtimeMode === "team" && gate.disallowTeamWorker) return `${id} refuses team workers`;
  if (gate.requiresInteractiveUser && !caller.interactive) return `${id} needs a person to be there`;
  if (caller.runtimeMode === "plan" && !isReadOnly(provider.permissions))
    return `${id} is not read-only, and plan mode only reads`;
  return undefined;
}
