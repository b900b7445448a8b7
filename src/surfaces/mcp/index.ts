/**
 * `skillgate/mcp`: skillgate as an MCP server (`@modelcontextprotocol/sdk` 1.x). One
 * `McpHost` serves sessions over stdio or Streamable HTTP; every tool call goes through
 * skillgate's broker. See docs/mcp.md.
 */

export type { CatalogChange, CatalogWatch, CatalogWatchOptions } from "../../catalog/watch.js";
export { DEFAULT_WATCH_INTERVAL_MS, watchCatalog } from "../../catalog/watch.js";
export type { McpCallContext, SessionAsker } from "./approvals.js";
export { approvalForm, elicitationAsker, McpApprovals } from "./approvals.js";
export type { McpHostOptions } from "./host.js";
export { McpHost } from "./host.js";
export type { McpHttpOptions, McpHttpServer } from "./http.js";
export { isLoopbackHost, MCP_HTTP_PATH, serveHttp } from "./http.js";
export {
  parseSkillResourceUri,
  RESOURCE_NOT_FOUND,
  SKILL_URI_PREFIX,
  SkillResources,
  skillResourceUri,
} from "./resources.js";
export type { McpSelfCheck, McpSelfCheckOptions } from "./self-check.js";
export { mcpSelfCheck } from "./self-check.js";
export type { McpSession, McpSessionOptions } from "./session.js";
export { createMcpSession, SKILL_INDEX_PROMPT } from "./session.js";
export type { McpStdioServer } from "./stdio.js";
export { serveStdio } from "./stdio.js";
export { mcpTool, mcpToolResult, toolAnnotations } from "./tools.js";
