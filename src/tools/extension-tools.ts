import type { ExtensionTool } from "../extensions/types.js";
import type { JsonSchema } from "../skill/parameters-schema.js";
import { readInput } from "./skill-tools.js";
import type { AnyTool, ToolDefinition, ToolOutput } from "./tool.js";

const ANY_OBJECT: JsonSchema = { type: "object" };

/**
 * An extension's tool as a turn's tool: its input is validated against its schema, its
 * calls are classified by its tier (default `change`, so a person is asked unless the rules
 * say otherwise) and go through the same broker, rules, hooks and audit log as skillgate's
 * own tools. What `execute` returns is shown as text: a string as it is, `undefined` as
 * nothing, anything else as JSON.
 */
export function extensionTool(tool: ExtensionTool): AnyTool {
  const inputSchema = tool.inputSchema ?? ANY_OBJECT;
  const tier = tool.tier ?? "change";
  const definition: ToolDefinition<Record<string, unknown>> = {
    name: tool.name,
    tier,
    description: tool.description,
    inputSchema,
    prepare: (raw) =>
      readInput<Record<string, unknown>>(inputSchema, raw, tier, `call ${tool.name} (an extension's tool)`),
    execute: async (input, context): Promise<ToolOutput> => {
      const output = await tool.execute(input, {
        requestId: context.requestId,
        ...(context.scope !== undefined ? { scope: context.scope } : {}),
        ...(context.signal !== undefined ? { signal: context.signal } : {}),
      });
      if (typeof output === "string") return output;
      if (output === undefined || output === null) return "";
      return JSON.stringify(output);
    },
  };
  return definition as AnyTool;
}

/**
 * The extension tools a turn offers: those whose names do not clash with the turn's own
 * tools (skillgate's tools always win; a clash is reported through `onClash`).
 */
export function extensionTools(
  tools: readonly ExtensionTool[],
  ownNames: ReadonlySet<string>,
  onClash: (name: string) => void,
): AnyTool[] {
  const offered: AnyTool[] = [];
  for (const tool of tools) {
    if (ownNames.has(tool.name)) onClash(tool.name);
    else offered.push(extensionTool(tool));
  }
  return offered;
}
