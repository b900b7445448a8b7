import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import {
  type ElicitRequest,
  ElicitRequestSchema,
  type ElicitResult,
} from "@modelcontextprotocol/sdk/types.js";
import { afterEach } from "vitest";
import { silentLogger } from "../../../src/observe/logger.js";
import { McpHost, type McpHostOptions } from "../../../src/surfaces/mcp/host.js";
import type { McpSession } from "../../../src/surfaces/mcp/session.js";
import { makeTree, writeSkill } from "../../helpers/skill-tree.js";

/**
 * A skill tree served over MCP to real SDK clients: the skills, the configuration that trusts
 * the local ones, and clients over the SDK's in-memory transport (the other transports have
 * their own tests). Every host and client is closed after the test.
 */

const opened: Array<{ close(): Promise<void> }> = [];

afterEach(async () => {
  for (const item of opened.splice(0).reverse()) await item.close().catch(() => {});
});

/** A 1x1 PNG: binary content for blob resources. */
export const PNG_BYTES = Buffer.from(
  "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6300010000050001" +
    "0d0a2db40000000049454e44ae426082",
  "hex",
);

/** The folders of a served tree. */
export interface McpTree {
  readonly tree: string;
  readonly config: string;
  readonly data: string;
  readonly project: string;
  /** `<project>/.agents/skills`. */
  readonly skills: string;
  /** The global flags that point the CLI at this tree. */
  readonly flags: string[];
}

/**
 * A tree with three skills:
 * - `notes` (tier read, sandbox): SKILL.md, references/guide.md, assets/pixel.png, scripts/noop.py;
 * - `echo` (tier change, local and trusted): scripts/echo.py prints its arguments;
 * - `wipe` (tier destructive, local and trusted): scripts/wipe.py prints "wiped".
 */
export function mcpTree(): McpTree {
  const tree = makeTree("skillgate-mcp-");
  const config = join(tree, "config");
  const data = join(tree, "data");
  const project = join(tree, "project");
  const skills = join(project, ".agents", "skills");
  mkdirSync(config, { recursive: true });
  writeFileSync(join(config, "config.yaml"), "runners:\n  local:\n    trusted: [echo, wipe]\n");
  writeSkill(skills, "notes", {
    frontMatter: {
      name: "notes",
      description: "Notes about the project.",
      metadata: { "skillgate.tier": "read" },
    },
    body: "Read references/guide.md.\n",
    files: {
      "references/guide.md": "# Guide\n\nÜber alles.\n",
      "assets/pixel.png": PNG_BYTES,
      "scripts/noop.py": "print('noop')\n",
    },
  });
  writeSkill(skills, "echo", {
    frontMatter: {
      name: "echo",
      description: "Echoes its arguments.",
      metadata: { "skillgate.execution": "local", "skillgate.tier": "change" },
    },
    files: {
      "scripts/echo.py":
        "import json, sys\nprint('echo', json.dumps(json.load(sys.stdin), sort_keys=True))\n",
    },
  });
  writeSkill(skills, "wipe", {
    frontMatter: {
      name: "wipe",
      description: "Pretends to wipe something.",
      metadata: { "skillgate.execution": "local", "skillgate.tier": "destructive" },
    },
    files: { "scripts/wipe.py": "print('wiped')\n" },
  });
  return {
    tree,
    config,
    data,
    project,
    skills,
    flags: ["--config", config, "--data", data, "--root", project, "--no-builtins"],
  };
}

/** A host over `tree`, closed after the test; no catalog watch unless asked for. */
export async function openHost(tree: McpTree, options: Partial<McpHostOptions> = {}): Promise<McpHost> {
  const host = await McpHost.open({
    config: tree.config,
    data: tree.data,
    roots: [tree.project],
    builtins: false,
    watchIntervalMs: false,
    logger: silentLogger,
    ...options,
  });
  opened.push(host);
  return host;
}

/** How a test client answers elicitation requests; without one, the client declares no elicitation. */
export type ElicitHandler = (request: ElicitRequest) => ElicitResult | Promise<ElicitResult>;

/** A real SDK client connected to a new session of `host` over the in-memory transport. */
export async function connectClient(
  host: McpHost,
  options: { elicit?: ElicitHandler } = {},
): Promise<{ client: Client; session: McpSession }> {
  const session = host.openSession();
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client(
    { name: "skillgate-test", version: "1.0.0" },
    { capabilities: options.elicit !== undefined ? { elicitation: { form: {} } } : {} },
  );
  if (options.elicit !== undefined) {
    const handler = options.elicit;
    client.setRequestHandler(ElicitRequestSchema, (request) => handler(request));
  }
  await session.server.connect(serverSide);
  await client.connect(clientSide);
  opened.push({ close: () => client.close() });
  return { client, session };
}

/** The text of a tool result's first content block. */
export function resultText(result: object): string {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content;
  return content?.[0]?.text ?? "";
}
