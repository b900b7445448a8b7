import { createHash } from "node:crypto";
import { existsSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { AuditLog } from "../../../src/observe/audit-log.js";
import { RESOURCE_NOT_FOUND, RESOURCES_PAGE_SIZE } from "../../../src/surfaces/mcp/resources.js";
import { SKILL_INDEX_PROMPT } from "../../../src/surfaces/mcp/session.js";
import { eventually } from "../../helpers/eventually.js";
import { writeSkill } from "../../helpers/skill-tree.js";
import { connectClient, mcpTree, openHost, PNG_BYTES, resultText } from "./harness.js";

/** Tools, resources and prompts of one session, seen by a real SDK client over the in-memory transport. */

const sha256 = (bytes: Buffer | string) => createHash("sha256").update(bytes).digest("hex");

describe("tools over MCP", () => {
  it("lists the turn's tools with their JSON Schemas unchanged and hints from their tiers", async () => {
    const tree = mcpTree();
    const host = await openHost(tree);
    const { client, session } = await connectClient(host);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(session.turn.tools.map((tool) => tool.name));
    for (const tool of session.turn.tools) {
      const listed = tools.find((item) => item.name === tool.name);
      expect(listed?.inputSchema).toEqual(tool.inputSchema);
      expect(listed?.description).toBe(tool.description);
    }
    const hints = Object.fromEntries(tools.map((tool) => [tool.name, tool.annotations]));
    expect(hints.load_skill).toEqual({ readOnlyHint: true, destructiveHint: false, openWorldHint: false });
    expect(hints.run_skill_script).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      openWorldHint: true,
    });
    expect(hints.draft_skill).toEqual({ readOnlyHint: false, destructiveHint: false, openWorldHint: false });
    expect(hints.edit_skill).toEqual({ readOnlyHint: false, destructiveHint: false, openWorldHint: false });
    // run_skill_script's arguments stay an object with no extra keys allowed at the top.
    const run = tools.find((tool) => tool.name === "run_skill_script");
    expect(run?.inputSchema.additionalProperties).toBe(false);
    expect(run?.inputSchema.required).toEqual(["skill", "script"]);
    // A script's command-line arguments are advertised inside arguments, as its argv list.
    expect(run?.inputSchema.properties?.arguments).toMatchObject({
      type: "object",
      properties: { argv: { type: "array", items: { type: "string" } } },
    });
  });

  it("calls the read tools through the broker and answers with their text", async () => {
    const tree = mcpTree();
    const { client } = await connectClient(await openHost(tree));
    const calls: Array<[string, Record<string, unknown>, string]> = [
      ["load_skill", { skill: "notes" }, '<skill name="notes">'],
      ["read_skill_resource", { skill: "notes", path: "references/guide.md" }, "Über alles."],
      ["read_skill", { name: "not" }, '<skill name="notes">'],
      ["search_skills", { query: "echoes arguments" }, "`echo`"],
      ["refresh_skills", {}, "No change"],
      ["list_skills", {}, ""],
      ["list_chats", {}, ""],
    ];
    for (const [name, input, expected] of calls) {
      const result = await client.callTool({ name, arguments: input });
      expect(result.isError, `${name}: ${resultText(result)}`).toBe(false);
      expect(result._meta?.status).toBe("ok");
      expect(resultText(result)).toContain(expected);
    }
  });

  it("runs a read-tier script in the sandbox without asking", async () => {
    const tree = mcpTree();
    const { client } = await connectClient(await openHost(tree));
    const result = await client.callTool({
      name: "run_skill_script",
      arguments: { skill: "notes", script: "scripts/noop.py", arguments: {} },
    });
    expect(resultText(result)).toContain("noop");
    expect(result.isError).toBe(false);
  });

  it("saves a draft, reads it back, lists it, and records a chat review", async () => {
    const tree = mcpTree();
    const { client, session } = await connectClient(await openHost(tree));
    const draft = await client.callTool({
      name: "draft_skill",
      arguments: {
        name: "drafted",
        description: "A drafted skill.",
        body: "Do the thing.\n",
        sourceChats: [session.chatId],
        rationale: "The chat needed it.",
      },
    });
    expect(resultText(draft)).toContain("drafted");
    expect(draft.isError).toBe(false);
    const got = await client.callTool({ name: "get_skill", arguments: { skill: "drafted" } });
    expect(resultText(got)).toContain("Do the thing.");
    const listed = await client.callTool({ name: "list_skills", arguments: { includeDisabled: true } });
    expect(resultText(listed)).toContain("drafted");
    const transcript = await client.callTool({
      name: "read_chat_transcript",
      arguments: { chat: session.chatId },
    });
    expect(transcript.isError).toBe(false);
    const reviewed = await client.callTool({
      name: "mark_chats_reviewed",
      arguments: { chats: [session.chatId] },
    });
    expect(reviewed.isError, resultText(reviewed)).toBe(false);
  });

  it("answers bad input, an unknown tool and a non-object arguments value as error results, not protocol errors", async () => {
    const tree = mcpTree();
    const { client } = await connectClient(await openHost(tree));
    const cases: Array<[string, unknown, string]> = [
      ["load_skill", {}, "HOST:"],
      ["load_skill", { skill: 5 }, "HOST:"],
      ["no_such_tool", {}, 'HOST: there is no tool named "no_such_tool"'],
      [
        "run_skill_script",
        { skill: "echo", script: "scripts/echo.py", arguments: 5 },
        "HOST: arguments was a number; send a JSON object.",
      ],
    ];
    for (const [name, input, expected] of cases) {
      const result = await client.callTool({ name, arguments: input as Record<string, unknown> });
      expect(result.isError, name).toBe(true);
      expect(resultText(result)).toContain(expected);
      expect(resultText(result).startsWith("HOST:")).toBe(true);
    }
  });

  it("a call the client cancels stops its script", async () => {
    const tree = mcpTree();
    writeFileSync(join(tree.config, "config.yaml"), "runners:\n  local:\n    trusted: [slow]\n");
    const started = join(tree.tree, "started");
    writeSkill(tree.skills, "slow", {
      frontMatter: {
        name: "slow",
        description: "Takes its time.",
        metadata: { "skillgate.execution": "local", "skillgate.tier": "read" },
      },
      files: {
        "scripts/slow.py": `import time\nopen(${JSON.stringify(started)}, "w").close()\ntime.sleep(600)\n`,
      },
    });
    const host = await openHost(tree);
    const { client, session } = await connectClient(host);
    const controller = new AbortController();
    const call = client.callTool(
      { name: "run_skill_script", arguments: { skill: "slow", script: "scripts/slow.py", arguments: {} } },
      undefined,
      { signal: controller.signal },
    );
    await eventually("the script started", () => existsSync(started));
    controller.abort("the person pressed stop");
    await expect(call).rejects.toThrow();
    // The run ends on the cancellation, not after the script's ten minutes.
    const audit = new AuditLog({ dataFolder: tree.data });
    const finished = () =>
      audit
        .query({ type: "tool-call-finished" })
        .filter((event) => event.tool === "run_skill_script" && event.scope.id === session.chatId);
    await eventually("the cancelled call is audited as finished", () => finished().length > 0);
    expect(finished()[0]?.status).not.toBe("ok");
  });

  it("denies a change in plan mode with the rule's HOST: message", async () => {
    const tree = mcpTree();
    const { client } = await connectClient(await openHost(tree, { mode: "plan" }));
    const result = await client.callTool({
      name: "run_skill_script",
      arguments: { skill: "echo", script: "scripts/echo.py", arguments: { x: 1 } },
    });
    expect(result.isError).toBe(true);
    expect(result._meta?.status).toBe("denied");
    expect(resultText(result)).toBe(
      "HOST: not allowed: plan mode allows only reads (rule plan-mode-changes-nothing).",
    );
    const read = await client.callTool({ name: "load_skill", arguments: { skill: "echo" } });
    expect(read.isError).toBe(false);
  });
});

describe("resources over MCP", () => {
  it("lists every offered skill's files with media type, size and SHA-256", async () => {
    const tree = mcpTree();
    const { client } = await connectClient(await openHost(tree));
    const { resources } = await client.listResources();
    const byUri = new Map(resources.map((resource) => [resource.uri, resource]));
    expect([...byUri.keys()]).toEqual([
      "skill://echo/SKILL.md",
      "skill://echo/scripts/echo.py",
      "skill://notes/SKILL.md",
      "skill://notes/assets/pixel.png",
      "skill://notes/references/guide.md",
      "skill://notes/scripts/noop.py",
      "skill://wipe/SKILL.md",
      "skill://wipe/scripts/wipe.py",
    ]);
    const guide = readFileSync(join(tree.skills, "notes", "references", "guide.md"));
    expect(byUri.get("skill://notes/references/guide.md")).toMatchObject({
      name: "notes/references/guide.md",
      mimeType: "text/markdown",
      size: guide.length,
      _meta: { sha256: sha256(guide) },
    });
    expect(byUri.get("skill://notes/assets/pixel.png")).toMatchObject({
      mimeType: "image/png",
      _meta: { sha256: sha256(PNG_BYTES) },
    });
    expect(byUri.get("skill://notes/scripts/noop.py")?.mimeType).toBe("text/x-python");
    expect(byUri.get("skill://notes/SKILL.md")?.description).toBe("Notes about the project.");
  });

  it("reads text as text and binary as base64, each with the digest of exactly what it returned", async () => {
    const tree = mcpTree();
    const { client } = await connectClient(await openHost(tree));
    const text = await client.readResource({ uri: "skill://notes/references/guide.md" });
    const [guide] = text.contents;
    expect(guide).toMatchObject({ uri: "skill://notes/references/guide.md", mimeType: "text/markdown" });
    expect(guide && "text" in guide ? guide.text : undefined).toBe("# Guide\n\nÜber alles.\n");
    expect(guide?._meta?.sha256).toBe(sha256("# Guide\n\nÜber alles.\n"));
    const binary = await client.readResource({ uri: "skill://notes/assets/pixel.png" });
    const [pixel] = binary.contents;
    const bytes = Buffer.from(pixel && "blob" in pixel ? pixel.blob : "", "base64");
    expect(bytes.equals(PNG_BYTES)).toBe(true);
    expect(pixel?._meta?.sha256).toBe(sha256(bytes));
    expect(pixel?.mimeType).toBe("image/png");
  });

  it("refuses path traversal in every spelling with path_not_allowed", async () => {
    const tree = mcpTree();
    const { client } = await connectClient(await openHost(tree));
    const hostile = [
      "skill://notes/../echo/SKILL.md",
      "skill://notes/%2e%2e/echo/SKILL.md",
      "skill://notes/%2E%2E/%2E%2E/config/config.yaml",
      "skill://notes/references/%2e%2e/%2e%2e/echo/SKILL.md",
      "skill://notes/references%2f..%2f..%2fecho%2fSKILL.md",
      "skill://notes//etc/passwd",
      "skill://notes/%2fetc%2fpasswd",
      "skill://notes/..\\echo\\SKILL.md",
      "skill://notes/%5c..%5cecho",
      "skill://notes/SKILL.md%00.png",
      "skill://notes/C:/Windows/win.ini",
      "skill://notes/./SKILL.md",
      "skill://notes/references/",
      "skill://notes/%zz",
      "skill://notes/SKILL.md?x=1",
      "skill://notes",
    ];
    for (const uri of hostile) {
      const error = await client.readResource({ uri }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error, uri).toBeInstanceOf(McpError);
      expect((error as McpError).code, uri).toBe(-32602);
      expect((error as McpError).data, uri).toMatchObject({ code: "path_not_allowed" });
      expect((error as McpError).message, uri).toContain("HOST:");
    }
  });

  it("refuses files that are not an offered skill's listed files with not_found", async () => {
    const tree = mcpTree();
    const { client } = await connectClient(await openHost(tree));
    for (const uri of [
      "skill://ghost/SKILL.md",
      "skill://notes/missing.md",
      "file:///etc/passwd",
      "skill://%2e%2e/config/config.yaml",
    ]) {
      const error = await client.readResource({ uri }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error, uri).toBeInstanceOf(McpError);
      expect((error as McpError).code, uri).toBe(RESOURCE_NOT_FOUND);
      expect((error as McpError).data, uri).toMatchObject({ code: "not_found" });
    }
  });

  it("never lists or reads a link inside a skill, lists a file over 1 MiB without a digest and refuses to read it", async () => {
    const tree = mcpTree();
    symlinkSync("/etc/hostname", join(tree.skills, "notes", "references", "link.md"));
    writeFileSync(join(tree.skills, "notes", "assets", "big.bin"), Buffer.alloc(1024 * 1024 + 1, 1));
    const { client } = await connectClient(await openHost(tree));
    const { resources } = await client.listResources();
    expect(resources.map((resource) => resource.uri)).not.toContain("skill://notes/references/link.md");
    const big = resources.find((resource) => resource.uri === "skill://notes/assets/big.bin");
    expect(big).toMatchObject({ size: 1024 * 1024 + 1, mimeType: "application/octet-stream" });
    expect(big?._meta).toBeUndefined();
    const link = await client
      .readResource({ uri: "skill://notes/references/link.md" })
      .catch((error: unknown) => error);
    expect((link as McpError).data).toMatchObject({ code: "not_found" });
    const tooLarge = await client
      .readResource({ uri: "skill://notes/assets/big.bin" })
      .catch((error: unknown) => error);
    expect((tooLarge as McpError).code).toBe(-32602);
    expect((tooLarge as McpError).data).toMatchObject({ code: "file_too_large" });
  });

  it("a skill removed during the session is no longer listed or read", async () => {
    const tree = mcpTree();
    const { client } = await connectClient(await openHost(tree));
    expect((await client.readResource({ uri: "skill://wipe/SKILL.md" })).contents).toHaveLength(1);
    rmSync(join(tree.skills, "wipe"), { recursive: true });
    const { resources } = await client.listResources();
    expect(resources.some((resource) => resource.uri.startsWith("skill://wipe/"))).toBe(false);
    const error = await client
      .readResource({ uri: "skill://wipe/SKILL.md" })
      .catch((caught: unknown) => caught);
    expect((error as McpError).data).toMatchObject({ code: "not_found" });
  });

  it("pages a long listing by cursor and refuses a cursor it did not give", async () => {
    const tree = mcpTree();
    const files: Record<string, string> = {};
    for (let index = 0; index < 600; index += 1)
      files[`references/r${String(index).padStart(3, "0")}.md`] = `${index}\n`;
    writeSkill(tree.skills, "many", { files });
    const { client } = await connectClient(await openHost(tree));
    const first = await client.listResources();
    expect(first.resources).toHaveLength(RESOURCES_PAGE_SIZE);
    expect(first.nextCursor).toBe(String(RESOURCES_PAGE_SIZE));
    const second = await client.listResources({ cursor: first.nextCursor as string });
    expect(second.nextCursor).toBeUndefined();
    const uris = [...first.resources, ...second.resources].map((resource) => resource.uri);
    expect(uris).toHaveLength(601 + 8);
    expect(new Set(uris).size).toBe(uris.length);
    await expect(client.listResources({ cursor: "-1" })).rejects.toThrow(/not a cursor this server gave/);
  });

  it("serves the skill index as the skill-index prompt", async () => {
    const tree = mcpTree();
    const { client, session } = await connectClient(await openHost(tree));
    const { prompts } = await client.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toEqual([SKILL_INDEX_PROMPT]);
    const prompt = await client.getPrompt({ name: SKILL_INDEX_PROMPT });
    const message = prompt.messages[0];
    expect(message?.role).toBe("user");
    expect(message?.content).toEqual({ type: "text", text: session.turn.skillIndex() });
    expect(session.turn.skillIndex()).toContain("notes");
    await expect(client.getPrompt({ name: "other" })).rejects.toThrow(/no prompt named "other"/);
    expect(client.getInstructions()).toContain(session.turn.skillIndex());
  });
});
