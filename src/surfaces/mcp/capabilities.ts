import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Sampler } from "../../capabilities/types.js";
import { capabilityTool } from "../../tools/capability-tool.js";
import type { AnyTool } from "../../tools/tool.js";
import type { Turn } from "../../tools/turn.js";

/**
 * The capability plane over MCP (docs/mcp.md, "Capabilities"): every capability registered
 * for the session's runtime is listed as its own tool, named after the capability, with the
 * `inputSchema` and `outputSchema` of the provider the router chooses, and answers with
 * `structuredContent`. Its calls go through the broker and the pipeline like
 * `invoke_capability`'s. A capability whose name a model tool already has is left out.
 */

/** The session's capability tools, rebuilt only when the index switches. */
export class McpCapabilityTools {
  readonly #turn: () => Turn;
  #cache: { revision: number; turn: Turn; tools: readonly AnyTool[] } | undefined;

  constructor(turn: () => Turn) {
    this.#turn = turn;
  }

  /** The capability tools now. */
  list(): readonly AnyTool[] {
    const turn = this.#turn();
    const environment = turn.capabilities;
    if (environment === undefined) return [];
    const revision = environment.pipeline.index().revision;
    if (this.#cache?.revision === revision && this.#cache.turn === turn) return this.#cache.tools;
    const taken = new Set(turn.tools.map((tool) => tool.name));
    const session = { ...environment, caller: () => ({ ...environment.caller(), kind: "mcp" as const }) };
    const tools: AnyTool[] = [];
    for (const capability of environment.pipeline.index().capabilities(environment.caller().runtimeMode)) {
      if (taken.has(capability)) continue;
      const tool = capabilityTool(session, capability);
      if (tool !== undefined) tools.push(tool as AnyTool);
    }
    this.#cache = { revision, turn, tools };
    return tools;
  }

  /** The capability tool of that name, if one is listed now. */
  find(name: string): AnyTool | undefined {
    return this.list().find((tool) => tool.name === name);
  }
}

/**
 * MCP sampling with the session's client, when the client declared the `sampling`
 * capability: the skill's body as the system prompt, the request as one user message, the
 * reply's text. `undefined` otherwise, so a `sampling` entry refuses with `sampling_unavailable`.
 */
export function clientSampler(server: Server, relatedRequestId: string | number): Sampler | undefined {
  if (server.getClientCapabilities()?.sampling === undefined) return undefined;
  return async ({ system, prompt, maxTokens, signal }) => {
    const reply = await server.createMessage(
      {
        messages: [{ role: "user", content: { type: "text", text: prompt } }],
        systemPrompt: system,
        maxTokens,
        includeContext: "none",
      },
      { signal, relatedRequestId },
    );
    const blocks = Array.isArray(reply.content) ? reply.content : [reply.content];
    return blocks.map((block) => (block.type === "text" ? block.text : "")).join("");
  };
}
