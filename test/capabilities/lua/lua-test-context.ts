import type { CapabilityPermissions, InvocationContext } from "../../../src/capabilities/types.js";

/** Permissions with nothing allowed, for tests to widen. */
export const NO_PERMISSIONS: CapabilityPermissions = {
  fsRead: [],
  fsWrite: [],
  network: false,
  shell: false,
  env: [],
  adapterCapabilities: [],
};

/** An invocation context that records touched paths. */
export function testContext(
  options: { workspace?: string; permissions?: Partial<CapabilityPermissions>; requestId?: string } = {},
): InvocationContext & { readonly touchedPaths: { path: string; access: string }[] } {
  const touchedPaths: { path: string; access: string }[] = [];
  return {
    requestId: options.requestId ?? "request-1",
    traceId: "trace-1",
    agentId: "agent-1",
    runtimeMode: "normal",
    signal: new AbortController().signal,
    permissions: { ...NO_PERMISSIONS, ...options.permissions },
    ...(options.workspace === undefined ? {} : { workspace: options.workspace }),
    touched: (path, access) => touchedPaths.push({ path, access }),
    touchedPaths,
  };
}
