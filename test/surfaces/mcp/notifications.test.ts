import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { Registry } from "../../../src/extensions/registry.js";
import { writeSkill } from "../../helpers/skill-tree.js";
import { connectClient, mcpTree, openHost } from "./harness.js";

/** Catalog changes on disk reach every connected client as list_changed notifications. */

/** Resolves with the methods of the first tools and resources list_changed notifications. */
function listChanges(client: Awaited<ReturnType<typeof connectClient>>["client"]) {
  const tools = new Promise<string>((resolve) =>
    client.setNotificationHandler(ToolListChangedNotificationSchema, (notification) =>
      resolve(notification.method),
    ),
  );
  const resources = new Promise<string>((resolve) =>
    client.setNotificationHandler(ResourceListChangedNotificationSchema, (notification) =>
      resolve(notification.method),
    ),
  );
  return Promise.all([tools, resources]);
}

describe("list_changed notifications", () => {
  it("declares listChanged for tools and resources", async () => {
    const tree = mcpTree();
    const { client } = await connectClient(await openHost(tree));
    expect(client.getServerCapabilities()).toMatchObject({
      tools: { listChanged: true },
      resources: { listChanged: true },
    });
  });

  it("a new skill folder written on disk is announced to every session by the catalog watch", async () => {
    const tree = mcpTree();
    const host = await openHost(tree, { watchIntervalMs: 50 });
    const first = await connectClient(host);
    const second = await connectClient(host);
    const announced = [listChanges(first.client), listChanges(second.client)];
    writeSkill(tree.skills, "fresh");
    for (const methods of await Promise.all(announced))
      expect(methods).toEqual(["notifications/tools/list_changed", "notifications/resources/list_changed"]);
    const { resources } = await first.client.listResources();
    expect(resources.map((resource) => resource.uri)).toContain("skill://fresh/SKILL.md");
  });

  it("a changed script of an offered skill is announced too", async () => {
    const tree = mcpTree();
    // A watch whose timer never fires here: the test looks itself.
    const host = await openHost(tree, { watchIntervalMs: 3_600_000 });
    const { client } = await connectClient(host);
    const announced = listChanges(client);
    expect(host.checkCatalog()).toBeUndefined();
    writeFileSync(join(tree.skills, "echo", "scripts", "echo.py"), "print('changed')\n");
    expect(host.checkCatalog()).toEqual({ added: [], removed: [], changed: ["echo"] });
    expect(await announced).toEqual([
      "notifications/tools/list_changed",
      "notifications/resources/list_changed",
    ]);
  });
});

describe("the catalog kept by revision", () => {
  it("tool calls on an unchanged tree compare the revision and walk nothing", async () => {
    const tree = mcpTree();
    const host = await openHost(tree, { watchIntervalMs: 3_600_000 });
    const { client } = await connectClient(host);
    await client.callTool({ name: "load_skill", arguments: { skill: "notes" } });
    const runs = host.skillgate.catalog.discoveryRuns;
    for (let call = 0; call < 5; call += 1)
      await client.callTool({ name: "load_skill", arguments: { skill: "notes" } });
    await client.listResources();
    expect(host.skillgate.catalog.discoveryRuns).toBe(runs);
  });

  it("without a watch every call looks at the tree again", async () => {
    const tree = mcpTree();
    const host = await openHost(tree);
    const { client } = await connectClient(host);
    const runs = host.skillgate.catalog.discoveryRuns;
    await client.callTool({ name: "load_skill", arguments: { skill: "notes" } });
    expect(host.skillgate.catalog.discoveryRuns).toBeGreaterThan(runs);
  });
});

describe("store edits", () => {
  it("enabling, editing and disabling a stored skill are each announced, and each is seen by the next call", async () => {
    const tree = mcpTree();
    const host = await openHost(tree, { watchIntervalMs: 3_600_000 });
    const { client } = await connectClient(host);
    const store = await host.skillgate.openStore();
    const created = await store.create("stored", {
      "SKILL.md": "---\nname: stored\ndescription: A stored skill.\n---\nBody.\n",
    });
    const load = async () => {
      const result = await client.callTool({ name: "load_skill", arguments: { skill: "stored" } });
      return (result.content as Array<{ text: string }>)[0]?.text ?? "";
    };
    // Saved disabled: not offered.
    expect(await load()).toMatch(/^HOST: there is no skill named "stored"/);
    // The store's own write moved the catalog's revision before it resolved: no wait here.
    let announced = listChanges(client);
    await store.enable("stored", { hash: created.hash });
    expect(await load()).toContain("Body.");
    host.checkCatalog();
    await announced;
    announced = listChanges(client);
    await store.updateFile("stored", "references/more.md", "More.\n");
    expect(await load()).toContain("references/more.md");
    host.checkCatalog();
    await announced;
    await store.disable("stored");
    // Not offered when the session's turn was built, so not "no longer enabled": simply not there.
    expect(await load()).toMatch(/^HOST: there is no skill named "stored"/);
  });
});

describe("the end of a session", () => {
  it("tells extensions the session's chat stopped", async () => {
    const tree = mcpTree();
    const stopped: Array<{ scope?: { id: string }; reason?: string }> = [];
    const extensions = new Registry().on("stop", (payload) => {
      stopped.push(payload);
    });
    const host = await openHost(tree, { extensions });
    const { session } = await connectClient(host);
    await host.closeSession(session.id);
    expect(stopped).toEqual([
      { scope: { kind: "chat", id: session.chatId }, reason: "the MCP session closed" },
    ]);
    expect(host.sessionCount).toBe(0);
  });
});

describe("extensions", () => {
  it("loaded extension tools are served; a tool registered later is announced and callable", async () => {
    const tree = mcpTree();
    mkdirSync(join(tree.config, "extensions"), { recursive: true });
    writeFileSync(
      join(tree.config, "extensions", "shout.js"),
      "export function setup(reg) { reg.tool({ name: 'shout', description: 'Upper-case.', tier: 'read', execute: ({ text }) => String(text).toUpperCase() }); }\n",
    );
    const extensions = new Registry();
    const host = await openHost(tree, { extensions });
    expect(host.extensionNotes).toEqual(["shout.js: 1 tool(s), 0 skill(s), 0 command(s)"]);
    const { client } = await connectClient(host);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("shout");
    expect(await client.callTool({ name: "shout", arguments: { text: "hi" } })).toMatchObject({
      content: [{ type: "text", text: "HI" }],
    });
    const announced = new Promise<string>((resolve) =>
      client.setNotificationHandler(ToolListChangedNotificationSchema, (notification) =>
        resolve(notification.method),
      ),
    );
    extensions.tool({
      name: "whisper",
      description: "Lower-case.",
      tier: "read",
      execute: ({ text }) => String(text).toLowerCase(),
    });
    expect(await announced).toBe("notifications/tools/list_changed");
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("whisper");
    expect(await client.callTool({ name: "whisper", arguments: { text: "HI" } })).toMatchObject({
      content: [{ type: "text", text: "hi" }],
    });
  });
});
