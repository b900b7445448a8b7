import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { ElicitRequestFormParams, RequestId } from "@modelcontextprotocol/sdk/types.js";
import type { ApprovalAnswer, ApprovalRequest } from "../../policy/approvals.js";
import type { Approver } from "../../tools/broker.js";

/**
 * The MCP request a tool call is answering, so an elicitation can travel with it (Streamable
 * HTTP sends it on that request's stream). A session passes it as the call's `caller`.
 */
export interface McpCallContext {
  readonly requestId: RequestId;
  readonly signal: AbortSignal;
}

/**
 * Asks the person behind one MCP session. Resolves `undefined` when this session cannot ask
 * (its client did not declare form elicitation): the request is then deferred. `call` is the
 * MCP request of the tool call being approved, when the call came with one.
 */
export type SessionAsker = (
  request: ApprovalRequest,
  call: McpCallContext | undefined,
) => Promise<ApprovalAnswer | undefined>;

/**
 * The one approver of an MCP host's Skillgate, routing each request by its chat id: to the
 * session's person through elicitation when that session's client can be asked, else to
 * `deferred`, which records the request for `skillgate approve ID` (the approval queue).
 */
export class McpApprovals {
  readonly #askers = new Map<string, SessionAsker>();
  readonly #deferred: Approver;

  /** `deferred` answers requests no session can ask about (default: every one is declined). */
  constructor(deferred: Approver = async () => "decline") {
    this.#deferred = deferred;
  }

  /** Routes requests of `chatId` to `asker` until the returned function is called. */
  attach(chatId: string, asker: SessionAsker): () => void {
    this.#askers.set(chatId, asker);
    return () => {
      if (this.#askers.get(chatId) === asker) this.#askers.delete(chatId);
    };
  }

  /**
   * The approver to give createSkillgate. A deferred call is marked `same-mcp-session`: the
   * owner's answer applies to an identical call in this session's chat only, so the model is
   * told its retry must come from this same session.
   */
  readonly approve: Approver = async (request, call) => {
    const asker = this.#askers.get(request.scope.id);
    const answer = asker === undefined ? undefined : await asker(request, mcpCallOf(call.caller));
    if (answer !== undefined) return answer;
    const deferred = await this.#deferred(request, call);
    if (deferred === "deferred") return { retryFrom: "same-mcp-session" };
    if (typeof deferred === "object") return { ...deferred, retryFrom: "same-mcp-session" };
    return deferred;
  };
}

const LABELS: Readonly<Record<ApprovalAnswer, string>> = {
  once: "Approve once",
  "always-chat": "Always approve this skill version for this session",
  "always-job": "Always approve this skill version for this job",
  decline: "Decline",
};

/**
 * An asker over a session's server: a form with one choice among the answers the request
 * offers (approve once, always for this session, decline). Declining or cancelling the form,
 * an answer that was not offered, or a failed exchange are all a decline. The elicitation
 * rides on the tool call being approved (its request id) and is cancelled with it.
 */
export function elicitationAsker(server: Server): SessionAsker {
  return async (request, call) => {
    if (server.getClientCapabilities()?.elicitation?.form === undefined) return undefined;
    try {
      const result = await server.elicitInput(approvalForm(request), {
        // The broker's own deadline expires the request; this only keeps the SDK's 60 s default away.
        timeout: Math.max(1, request.expiresAt - request.createdAt) + 1_000,
        ...(call !== undefined ? { relatedRequestId: call.requestId, signal: call.signal } : {}),
      });
      const decision = result.action === "accept" ? result.content?.decision : undefined;
      return typeof decision === "string" && (request.options as readonly string[]).includes(decision)
        ? (decision as ApprovalAnswer)
        : "decline";
    } catch {
      return "decline";
    }
  };
}

/** The MCP call context a session passed as a call's `caller`, or undefined for anything else. */
function mcpCallOf(caller: unknown): McpCallContext | undefined {
  if (typeof caller !== "object" || caller === null) return undefined;
  const { requestId, signal } = caller as Partial<McpCallContext>;
  return (typeof requestId === "string" || typeof requestId === "number") && signal instanceof AbortSignal
    ? { requestId, signal }
    : undefined;
}

/** The elicitation form of an approval request: what will run, the warning, the detail, and the choices. */
export function approvalForm(request: ApprovalRequest): ElicitRequestFormParams {
  const lines = [`skillgate asks before this call runs: ${request.summary}.`];
  if (request.skill !== undefined)
    lines.push(
      `Skill: ${request.skill}${request.hash !== undefined ? ` (content hash ${request.hash.slice(0, 8)})` : ""}.`,
    );
  if (request.warning !== undefined) lines.push(request.warning);
  if (request.detail !== undefined) lines.push("", request.detail);
  return {
    mode: "form",
    message: lines.join("\n"),
    requestedSchema: {
      type: "object",
      properties: {
        decision: {
          type: "string",
          title: "Decision",
          oneOf: request.options.map((option) => ({ const: option, title: LABELS[option] })),
        },
      },
      required: ["decision"],
    },
  };
}
