import { isSkillgateError } from "../../core/errors.js";
import type { CapabilityProvider } from "../types.js";
import {
  type InvocationRefusal,
  isInvocationErrorCode,
  isProviderErrorCode,
  type ProviderErrorCode,
} from "./invocation.js";

/**
 * What a provider's throw becomes at the caller (the pipeline's execution step). Three cases:
 *
 * - a pipeline code with a `HOST:` sentence (a nested call's refusal, a sampling entry's
 *   `sampling_unavailable`): kept as it is, the sentence being the pipeline's own;
 * - a provider code ({@link PROVIDER_ERROR_CODES}: a Lua skill's `lua_cpu_limit`,
 *   `lua_memory_limit`, …): the code kept, the sentence written here, so a model never reads a
 *   skill's own error text under `HOST:`;
 * - anything else: `capability_failed`, naming only the error's kind.
 */

/** Why a provider ended, per provider code; a code added to the list without a sentence does not compile. */
const PROVIDER_SENTENCES: Readonly<Record<ProviderErrorCode, string>> = {
  lua_cpu_limit: "ran more Lua instructions than its limit",
  lua_memory_limit: "reached its Lua state's memory limit",
  lua_error: "raised a Lua error",
  lua_load_failed: "could not be loaded",
  lua_output_invalid: "returned a value that is not JSON",
  lua_state_closed: "was closed before it could answer",
  lua_host_refused: "asked the host for something it refuses",
  capability_not_allowed: "called a capability its manifest does not list",
};

/** The refusal a provider's throw ends the call with. */
export function thrownRefusal(provider: CapabilityProvider, error: unknown): InvocationRefusal {
  const id = JSON.stringify(provider.descriptor.id);
  if (isSkillgateError(error)) {
    const code = error.code;
    if (isProviderErrorCode(code))
      return {
        code,
        message: `HOST: provider ${id} ${PROVIDER_SENTENCES[code]} (${code}); nothing was returned.`,
      };
    if (isInvocationErrorCode(code) && error.message.startsWith("HOST:"))
      return { code, message: error.message };
  }
  const kind = isSkillgateError(error) ? error.code : error instanceof Error ? error.name : "Error";
  return {
    code: "capability_failed",
    message: `HOST: provider ${id} failed (${kind}); nothing was returned.`,
  };
}
