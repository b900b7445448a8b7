import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { firstFolder } from "../../../src/surfaces/mcp/roots.js";
import { writeSkill } from "../../helpers/skill-tree.js";
import { connectClient, type McpTree, mcpTree, openHost, resultText } from "./harness.js";

/** The served tree plus a trusted local read skill `where` that prints its working folder. */
function treeWithWhere(): McpTree & { work: string; other: string } {
  const tree = mcpTree();
  writeFileSync(join(tree.config, "config.yaml"), "runners:\n  local:\n    trusted: [echo, wipe, where]\n");
  writeSkill(tree.skills, "where", {
    frontMatter: {
      name: "where",
      description: "Prints where it runs.",
      metadata: { "skillgate.execution": "local", "skillgate.tier": "read" },
    },
    files: { "scripts/where.py": "import os\nprint(os.getcwd())\n" },
  });
  const work = join(tree.tree, "work");
  const other = join(tree.tree, "other");
  mkdirSync(work);
  mkdirSync(other);
  return { ...tree, work, other };
}

describe("the MCP client's roots are the session's workspace", () => {
  it("a script starts in the client's first file: root, and follows roots/list_changed", async () => {
    const tree = treeWithWhere();
    const host = await openHost(tree);
    const session = host.openSession();
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client(
      { name: "roots-test", version: "1.0.0" },
      { capabilities: { roots: { listChanged: true } } },
    );
    let roots = [{ uri: pathToFileURL(tree.work).href, name: "work" }];
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots }));
    await session.server.connect(serverSide);
    await client.connect(clientSide);
    try {
      const call = async () =>
        resultText(
          await client.callTool({
            name: "run_skill_script",
            arguments: { skill: "where", script: "scripts/where.py" },
          }),
        );
      expect(await call()).toContain(`--- stdout ---\n${tree.work}\n`);
      roots = [{ uri: pathToFileURL(tree.other).href, name: "other" }];
      await client.sendRootsListChanged();
      // The notification is answered by a new roots/list; give it the round trip.
      let text = "";
      for (let attempt = 0; attempt < 50 && !text.includes(tree.other); attempt += 1) text = await call();
      expect(text).toContain(`--- stdout ---\n${tree.other}\n`);
    } finally {
      await client.close();
    }
  });

  it("a client without roots gives no workspace: the script starts in its private work folder", async () => {
    const tree = treeWithWhere();
    const host = await openHost(tree);
    const { client } = await connectClient(host);
    const text = resultText(
      await client.callTool({
        name: "run_skill_script",
        arguments: { skill: "where", script: "scripts/where.py" },
      }),
    );
    expect(text).toContain(`--- stdout ---\n${join(tree.data, "runs", "work")}/`);
  });

  it("takes the first file: URI and skips other schemes and hosts", () => {
    expect(
      firstFolder(["https://a.example/x", "file://host/share", "file:///home/u/p%20q", "file:///b"]),
    ).toBe("/home/u/p q");
    expect(firstFolder(["https://a.example/x"])).toBeUndefined();
  });
});
