import { SkillgateError } from "../../core/errors.js";
import { type JsonValue, parseJsonSafely } from "../../core/safe-json.js";
import type { CapabilityPermissions, CapabilityProvider, SkillDescriptor } from "../types.js";

/**
 * The `sampling` entry (docs/capabilities.md, "Entries"): the skill's body and the validated
 * payload go to the calling client's own model through MCP sampling (`sampling/createMessage`),
 * and its reply, which must be one JSON value, is checked by the pipeline against the output
 * schema. Nothing runs on this host. A caller whose client cannot sample (the CLI, a chat
 * without MCP, a client that did not declare `sampling`) is refused `sampling_unavailable`;
 * a prompt over `limits.maxPromptBytes` is refused `prompt_too_large` before anything is sent.
 */

/** The prompt cap when the manifest gives none: 100,000 bytes, the seed's example. */
export const DEFAULT_MAX_PROMPT_BYTES = 100_000;
/** The reply's token cap asked of the client. */
export const SAMPLING_MAX_TOKENS = 4_096;

/** What a sampling entry sends. */
export interface SamplingEntryOptions {
  readonly descriptor: SkillDescriptor;
  readonly permissions: CapabilityPermissions;
  readonly generation?: number;
  /** The skill's instructions (its SKILL.md body), read when a call is made. */
  readonly body: () => string;
  /** The output schema, shown to the model so it knows the shape to answer in. */
  readonly outputSchema: JsonValue;
}

/** A provider that answers each call through the calling client's model. */
export function samplingEntryProvider(options: SamplingEntryOptions): CapabilityProvider {
  return {
    descriptor: options.descriptor,
    permissions: options.permissions,
    generation: options.generation ?? 1,
    invoke: async (payload, context) => {
      const id = JSON.stringify(options.descriptor.id);
      const sample = context.sample;
      if (sample === undefined)
        throw new SkillgateError(
          "sampling_unavailable",
          `HOST: ${id} answers through the calling client's model, and this client does not offer MCP sampling.`,
          {},
        );
      const { system, prompt } = samplingPrompt(options, payload);
      const limit = options.descriptor.limits.maxPromptBytes ?? DEFAULT_MAX_PROMPT_BYTES;
      const bytes = Buffer.byteLength(system, "utf8") + Buffer.byteLength(prompt, "utf8");
      if (bytes > limit)
        throw new SkillgateError(
          "prompt_too_large",
          `HOST: the prompt of ${id} is ${bytes} bytes; its limit is ${limit}.`,
          {},
        );
      const reply = await sample({ system, prompt, maxTokens: SAMPLING_MAX_TOKENS, signal: context.signal });
      return parseReply(reply, id);
    },
  };
}

/** The system prompt (the skill's body) and the user prompt (the payload and the answer's shape). */
export function samplingPrompt(
  options: SamplingEntryOptions,
  payload: { readonly [key: string]: JsonValue },
): { system: string; prompt: string } {
  return {
    system: options.body(),
    prompt: [
      "Follow the instructions above for this request.",
      `Request (JSON): ${JSON.stringify(payload)}`,
      `Answer with one JSON value and nothing else, matching this JSON Schema: ${JSON.stringify(options.outputSchema)}`,
    ].join("\n\n"),
  };
}

/** The reply as JSON: the whole text, or the one fenced block a model wrapped it in. */
function parseReply(reply: string, id: string): JsonValue {
  const text = reply.trim();
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n```$/.exec(text);
  try {
    return parseJsonSafely(fenced?.[1] ?? text);
  } catch {
    throw new SkillgateError(
      "output_invalid",
      `HOST: the client's model did not answer ${id} with JSON.`,
      {},
    );
  }
}
