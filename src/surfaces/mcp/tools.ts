import type { CallToolResult, Tool, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { ToolCallResult } from "../../tools/broker.js";
import type { AnyTool } from "../../tools/tool.js";

/**
 * The hints a client may show for a tool, from its static tier. They are hints only: the
 * broker decides every call on its own subject, whatever a client makes of them.
 *
 * - `readOnlyHint` is true for read tools.
 * - `destructiveHint` is true for destructive tools and for `by-skill` ones
 *   (`run_skill_script`): its tier is the tier of the skill a call names, and a skill may
 *   declare `skillgate.tier: destructive`, so a client must not assume the tool is safe.
 * - `openWorldHint` is true only for `by-skill`: a script may reach the hosts its skill
 *   allows; every other tool works on skillgate's own catalog, store and chat log.
 */
export function toolAnnotations(tier: AnyTool["tier"]): ToolAnnotations {
  return {
    readOnlyHint: tier === "read",
    destructiveHint: tier === "destructive" || tier === "by-skill",
    openWorldHint: tier === "by-skill",
  };
}

/** A tool as MCP lists it: its JSON Schema served exactly as the tool declares it, never loosened. */
export function mcpTool(tool: AnyTool): Tool {
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema as Tool["inputSchema"],
    ...(tool.outputSchema !== undefined ? { outputSchema: tool.outputSchema as Tool["outputSchema"] } : {}),
    annotations: toolAnnotations(tool.tier),
  };
}

/**
 * A broker's answer as an MCP tool result: the text the model sees (refusals start with
 * `HOST:`), `isError` for every status but `ok`, and the status and request id in `_meta`
 * (`awaiting_approval` tells a client the call waits for `skillgate approve`).
 */
export function mcpToolResult(result: ToolCallResult, tool?: AnyTool): CallToolResult {
  return {
    content: [{ type: "text", text: result.text }],
    isError: result.status !== "ok",
    ...(tool?.outputSchema !== undefined && result.status === "ok" ? structured(result.text) : {}),
    _meta: { status: result.status, requestId: result.requestId },
  };
}

/**
 * A tool with an output schema answers with `structuredContent` (its text is the same JSON):
 * the capability's output, which the pipeline already checked against that schema.
 */
function structured(text: string): { structuredContent?: Record<string, unknown> } {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? { structuredContent: parsed as Record<string, unknown> }
      : {};
  } catch {
    return {};
  }
}
