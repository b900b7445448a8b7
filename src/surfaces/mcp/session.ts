// The low-level Server (marked deprecated in favour of McpServer) is used on purpose:
// McpServer takes zod shapes and would re-derive each tool's input schema from them, while
// skillgate serves every tool's own JSON Schema exactly as the broker checks it.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { Skillgate } from "../../app/skillgate.js";
import { describeError } from "../../core/errors.js";
import type { Logger } from "../../observe/logger.js";
import { prepareValidators } from "../../tools/input.js";
import type { Turn } from "../../tools/turn.js";
import { elicitationAsker, type McpApprovals, type McpCallContext } from "./approvals.js";
import { clientSampler, McpCapabilityTools } from "./capabilities.js";
import { sessionInstructions } from "./instructions.js";
import { SKILL_URI_PREFIX, SkillResources } from "./resources.js";
import { type ClientWorkspace, followClientRoots } from "./roots.js";
import { mcpTool, mcpToolResult } from "./tools.js";

/** The prompt that gives the turn's skill index. */
export const SKILL_INDEX_PROMPT = "skill-index";

/** What one MCP session is made from. */
export interface McpSessionOptions {
  readonly skillgate: Skillgate;
  readonly approvals: McpApprovals;
  /** The transport's session id (Streamable HTTP) or a fresh one (stdio). */
  readonly sessionId: string;
  /** `chat` (default) or `plan` (reads only). */
  readonly mode?: "chat" | "plan";
  readonly serverVersion: string;
  readonly logger: Logger;
}

/** One MCP session: a chat of its own, its turn, and the low-level server that speaks for it. */
export interface McpSession {
  readonly id: string;
  /** `mcp-<session id>`: the chat grants and the chat log are kept under. */
  readonly chatId: string;
  readonly server: Server;
  /** The session's turn; rebuilt when the extensions' tools change. */
  readonly turn: Turn;
  /** Tells the client the tools and resources may have changed (`list_changed` notifications). */
  catalogChanged(): Promise<void>;
  /** Rebuilds the turn (the extensions' tools changed) and tells the client its tools changed. */
  extensionsChanged(): Promise<void>;
  /**
   * Interrupts the tool calls running now and waits until each has ended: each ends
   * `interrupted` (audited) and its result still reaches the client while the transport is open.
   */
  interruptCalls(reason: string): Promise<void>;
  /** Stops routing approvals here, closes the server (and with it the transport) and tells extensions the chat stopped. */
  close(): Promise<void>;
}

/**
 * Builds the server of one session. Tools are the turn's tools with their JSON Schemas;
 * every call goes through `turn.call` (the broker), so a refusal is a tool result starting
 * with `HOST:`, never a protocol error. Resources are the offered skills' files
 * (`skill://NAME/PATH`); the prompt `skill-index` is the turn's skill index.
 */
export function createMcpSession(options: McpSessionOptions): McpSession {
  const chatId = `mcp-${options.sessionId}`;
  let roots: ClientWorkspace | undefined;
  const makeTurn = (): Turn => {
    const made = options.skillgate.createTurn({
      chatId,
      mode: options.mode ?? "chat",
      // The client's first root, once it said which (roots are asked for after initialization).
      workspace: () => roots?.current(),
    });
    // The tools' input validators are compiled now, when the session opens, not on its first call.
    prepareValidators(made.tools.map((tool) => tool.acceptedSchema ?? tool.inputSchema));
    return made;
  };
  let turn = makeTurn();
  const resources = new SkillResources(turn.view);
  const server = new Server(
    { name: "skillgate", version: options.serverVersion },
    {
      capabilities: {
        tools: { listChanged: true },
        resources: { listChanged: true },
        prompts: { listChanged: false },
      },
      instructions: sessionInstructions(turn.skillIndex()),
    },
  );
  const detach = options.approvals.attach(chatId, elicitationAsker(server));
  // Calls running now, so a stop can interrupt them and wait for their audit lines.
  const running = new Map<AbortController, Promise<unknown>>();
  roots = followClientRoots(server, options.logger, options.sessionId);

  const capabilityTools = new McpCapabilityTools(() => turn);
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [...turn.tools, ...capabilityTools.list()].map(mcpTool),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name, arguments: input } = request.params;
    try {
      // The request's signal stops the call when the client cancels it; the request itself lets an elicitation ride on it.
      const interrupt = new AbortController();
      const signal = AbortSignal.any([extra.signal, interrupt.signal]);
      const caller: McpCallContext = { requestId: extra.requestId, signal };
      const sample = clientSampler(server, extra.requestId);
      const callOptions = { signal, caller, ...(sample !== undefined ? { sample } : {}) };
      // A capability's own tool goes through the same broker as the turn's tools.
      const capability = turn.tools.some((tool) => tool.name === name)
        ? undefined
        : capabilityTools.find(name);
      // A script run in the first moments of a session waits for the client's roots; the wait
      // counts as running, so a stop interrupts it too.
      const call = (async () => {
        if (name === "run_skill_script" || capability !== undefined || name === "invoke_capability")
          await roots?.ready();
        if (capability !== undefined)
          return options.skillgate.broker.call(turn.scope, capability, input ?? {}, callOptions);
        return turn.call(name, input ?? {}, callOptions);
      })();
      running.set(interrupt, call);
      try {
        return mcpToolResult(await call, capability);
      } finally {
        running.delete(interrupt);
      }
    } catch (error) {
      // The broker answers every refusal itself; this is a bug, shown to the model as one.
      options.logger.warn("mcp tool call failed", { tool: name, error: describeError(error) });
      return { content: [{ type: "text", text: `HOST: ${name} failed inside skillgate.` }], isError: true };
    }
  });
  server.setRequestHandler(ListResourcesRequestSchema, (request) => resources.list(request.params?.cursor));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [
      {
        uriTemplate: `${SKILL_URI_PREFIX}{skill}/{+path}`,
        name: "skill-file",
        description: "A file of an offered skill: skill://NAME/PATH, such as skill://my-skill/SKILL.md.",
      },
    ],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, (request) => resources.read(request.params.uri));
  server.setRequestHandler(ListPromptsRequestSchema, () => ({
    prompts: [
      {
        name: SKILL_INDEX_PROMPT,
        description:
          "The skills this server offers, as a block for the system prompt (budgeted; the rest are searchable).",
      },
    ],
  }));
  server.setRequestHandler(GetPromptRequestSchema, (request) => {
    if (request.params.name !== SKILL_INDEX_PROMPT)
      throw new McpError(
        ErrorCode.InvalidParams,
        `HOST: there is no prompt named ${JSON.stringify(request.params.name)}; the prompt is ${SKILL_INDEX_PROMPT}.`,
      );
    return {
      description: "The skills this server offers.",
      messages: [{ role: "user", content: { type: "text", text: turn.skillIndex() } }],
    };
  });

  let closed = false;
  return {
    id: options.sessionId,
    chatId,
    server,
    get turn() {
      return turn;
    },
    extensionsChanged: async () => {
      if (closed) return;
      turn = makeTurn();
      if (server.transport === undefined) return;
      await server.sendToolListChanged().catch((error: unknown) =>
        options.logger.warn("mcp notification failed", {
          session: options.sessionId,
          error: describeError(error),
        }),
      );
    },
    catalogChanged: async () => {
      if (closed || server.transport === undefined) return;
      try {
        await server.sendToolListChanged();
        await server.sendResourceListChanged();
      } catch (error) {
        options.logger.warn("mcp notification failed", {
          session: options.sessionId,
          error: describeError(error),
        });
      }
    },
    interruptCalls: async (reason) => {
      const calls = [...running];
      for (const [interrupt] of calls) interrupt.abort(new Error(reason));
      await Promise.allSettled(calls.map(([, call]) => call));
    },
    close: async () => {
      if (closed) return;
      closed = true;
      detach();
      // Closing the server aborts the calls still running; their audit lines are written before the chat stops.
      const calls = [...running.values()];
      await server.close();
      await Promise.allSettled(calls);
      // Extensions hear that the chat stopped; one that fails cannot keep the session open.
      await turn.stop("the MCP session closed").catch((error: unknown) =>
        options.logger.warn("extension stop hook failed", {
          session: options.sessionId,
          error: describeError(error),
        }),
      );
    },
  };
}
