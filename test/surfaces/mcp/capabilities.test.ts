import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { CreateMessageRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { samplingEntryProvider } from "../../../src/capabilities/entries/sampling-entry.js";
import { MemoryAuditSink } from "../../../src/observe/audit-sinks.js";
import type { McpHost } from "../../../src/surfaces/mcp/host.js";
import {
  CODE_REVIEW_INPUT,
  CODE_REVIEW_OUTPUT,
  descriptor,
  memoryIndex,
  NO_PERMISSIONS,
  provider,
} from "../../capabilities/helpers/memory-index.js";
import { connectClient, mcpTree, openHost, resultText } from "./harness.js";

const review = provider(
  { id: "code-review-skill", metadata: { description: "Review the current diff." } },
  (payload) => ({
    summary: `reviewed ${String(payload.scope)}`,
    findings: [],
  }),
);
const summarize = samplingEntryProvider({
  descriptor: descriptor({ id: "summary-skill", capabilities: ["workflow.summarize"] }),
  permissions: NO_PERMISSIONS,
  body: () => "Summarise.",
  outputSchema: CODE_REVIEW_OUTPUT as never,
});

async function hostWithCapabilities(): Promise<{ host: McpHost; audit: MemoryAuditSink }> {
  const audit = new MemoryAuditSink();
  const host = await openHost(mcpTree(), { capabilityIndex: memoryIndex([review, summarize]), audit });
  return { host, audit };
}

describe("MCP: capabilities", () => {
  it("tools/list shows each capability with its inputSchema and outputSchema, and invoke_capability", async () => {
    const { host } = await hostWithCapabilities();
    const { client } = await connectClient(host);
    const { tools } = await client.listTools();
    const own = tools.find((tool) => tool.name === "workflow.code_review");
    expect(own?.inputSchema).toEqual(CODE_REVIEW_INPUT);
    expect(own?.outputSchema).toEqual(CODE_REVIEW_OUTPUT);
    expect(own?.description).toBe("Review the current diff.");
    expect(own?.annotations?.readOnlyHint).toBe(true);
    expect(tools.some((tool) => tool.name === "workflow.summarize")).toBe(true);
    expect(tools.some((tool) => tool.name === "invoke_capability")).toBe(true);
  });

  it("tools/call of a capability returns structuredContent that passed its schema", async () => {
    const { host, audit } = await hostWithCapabilities();
    const { client } = await connectClient(host);
    const result = await client.callTool({
      name: "workflow.code_review",
      arguments: { scope: "current_diff" },
    });
    expect(result.isError).toBe(false);
    expect(result.structuredContent).toEqual({ summary: "reviewed current_diff", findings: [] });
    expect(JSON.parse(resultText(result))).toEqual(result.structuredContent);
    const types = audit.events.map((event) => event.type);
    expect(types).toContain("/skill/completed");
    expect(audit.events.find((event) => event.type === "/skill/completed")?.tool).toBe(
      "workflow.code_review",
    );
    // Through the broker: its classification and finished events are there too.
    expect(types).toContain("tool-call-finished");
  });

  it("invoke_capability answers the output as text, and a hostile payload with a HOST: refusal", async () => {
    const { host } = await hostWithCapabilities();
    const { client } = await connectClient(host);
    const ok = await client.callTool({
      name: "invoke_capability",
      arguments: { capability: "workflow.code_review", payload: { scope: "workspace" } },
    });
    expect(JSON.parse(resultText(ok))).toEqual({ summary: "reviewed workspace", findings: [] });
    const hostile = await client.callTool({
      name: "workflow.code_review",
      arguments: { scope: "workspace", nested: [{ file: "/etc/passwd" }] },
    });
    expect(hostile.isError).toBe(true);
    expect(hostile.structuredContent).toBeUndefined();
    expect(resultText(hostile)).toMatch(/^HOST: payload: the value at \/nested\/0\/file/);
    expect((hostile._meta as { status?: string }).status).toBe("refused");
  });

  it("a sampling entry asks the client's own model when the client supports sampling", async () => {
    const { host } = await hostWithCapabilities();
    const session = host.openSession();
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: "sampler", version: "1.0.0" }, { capabilities: { sampling: {} } });
    const prompts: string[] = [];
    client.setRequestHandler(CreateMessageRequestSchema, (request) => {
      const content = request.params.messages[0]?.content;
      prompts.push(
        content !== undefined && !Array.isArray(content) && content.type === "text" ? content.text : "",
      );
      return {
        role: "assistant",
        model: "test-model",
        content: { type: "text", text: '{"summary": "short", "findings": ["a"]}' },
      };
    });
    await session.server.connect(serverSide);
    await client.connect(clientSide);
    try {
      const result = await client.callTool({
        name: "workflow.summarize",
        arguments: { scope: "current_diff" },
      });
      expect(result.structuredContent).toEqual({ summary: "short", findings: ["a"] });
      expect(prompts[0]).toContain('{"scope":"current_diff"}');
    } finally {
      await client.close();
    }
  });

  it("a sampling entry refuses a client without sampling with sampling_unavailable", async () => {
    const { host, audit } = await hostWithCapabilities();
    const { client } = await connectClient(host);
    const result = await client.callTool({
      name: "workflow.summarize",
      arguments: { scope: "current_diff" },
    });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/^HOST: .*does not offer MCP sampling/);
    expect(audit.events.find((event) => event.type === "/skill/failed")?.errorKind).toBe(
      "sampling_unavailable",
    );
  });
});
