import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { draftSkill } from "../../src/store/drafts/index.js";
import { planEdit } from "../../src/store/edits/index.js";
import { screenshotPath } from "../helpers/browser.js";
import type { TestServer } from "../helpers/http-server.js";
import { writeSkill } from "../helpers/skill-tree.js";
import { yazlZip } from "../store/import/zip-fixtures.js";
import { openPageSession, signIn, startUiServer, writeFileThroughApi } from "./ui-harness.js";

/**
 * The web UI in a real browser (Debian's chromium through playwright-core) against a real
 * `skillgate serve` on port 0: signing in through the login link, the skills list, a skill's
 * page, the script editor and the script check, approving a draft by hash, answering an ask an
 * MCP client waits on, and importing a zip. Screenshots go to test-output/ui/.
 */

const SPLIT_PY = "import sys\n\nprint(len(sys.argv))\n";

/** SKILL.md whose body tries to run script three ways; none may run in the page. */
const HOSTILE_SKILL_MD = [
  "---",
  "name: pdf-tools",
  "description: Split and merge PDF files.",
  "metadata:",
  "  skillgate.tier: read",
  "---",
  "# PDF tools",
  "",
  "Run `scripts/split.py` with the file.",
  "",
  '<img src="x" onerror="window.__skillgatePwned = 1">',
  "<script>window.__skillgatePwned = 2</script>",
  '<a href="javascript:window.__skillgatePwned = 3">click</a>',
  "",
].join("\n");

const session = openPageSession();

/** A server with the owner's stored skill pdf-tools (disabled) holding one script. */
async function serverWithPdfTools(): Promise<TestServer> {
  const server = await startUiServer(session.uiFolder, { builtins: true });
  await server.server.context.store.create("pdf-tools", {
    "SKILL.md": HOSTILE_SKILL_MD,
    "scripts/split.py": SPLIT_PY,
  });
  return server;
}

describe("the built web UI", () => {
  it("index.html has no inline script or style and loads nothing from another host", () => {
    const index = readFileSync(join(session.uiFolder, "index.html"), "utf8");
    const scripts = [...index.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, body] of scripts) {
      expect(attributes).toMatch(/\bsrc="\/assets\/[^"]+\.js"/);
      expect(body?.trim()).toBe("");
    }
    expect(index).not.toMatch(/<style\b|\sstyle=|\son[a-z]+=/i);
    expect(index).not.toMatch(/(?:src|href)="(?:https?:)?\/\//i);
    // The editor is its own chunk, fetched on demand: the entry never names CodeMirror's files.
    const entry = /<script[^>]*src="\/([^"]+)"/.exec(index)?.[1] ?? "";
    expect(readFileSync(join(session.uiFolder, entry), "utf8")).not.toContain("cm-editor");
  });
});

describe("the web UI in Chromium", () => {
  it("signs in through the printed login link; the token leaves the address bar; the list shows every skill", async () => {
    const server = await startUiServer(session.uiFolder, { token: null });
    const loginUrl = server.server.loginUrl;
    expect(loginUrl).toMatch(/\/login\?token=/);
    await session.page.goto(`${server.origin}/`);
    await session.page.getByRole("heading", { name: "Sign in to skillgate" }).waitFor();
    await session.page.goto(loginUrl ?? "");
    await session.page.getByRole("heading", { name: "Skills", level: 1 }).waitFor();
    expect(session.page.url()).not.toContain("token");
    const listed = await server.json<{ skills: { name: string }[] }>("/api/skills");
    const rows = session.page.getByTestId("skills-table").locator("tbody tr");
    await expect.poll(() => rows.count()).toBe(listed.body.skills.length);
    for (const skill of listed.body.skills) {
      await expect(session.page.getByRole("link", { name: skill.name, exact: true }).count()).resolves.toBe(
        1,
      );
    }
    await session.page.screenshot({ path: screenshotPath("skills-list"), fullPage: true });
    expect(session.pageErrors).toEqual([]);
  });

  it("the login page refuses a wrong token in words, signs in with the right one, and Sign out ends the session", async () => {
    const server = await startUiServer(session.uiFolder, { builtins: false });
    await session.page.goto(`${server.origin}/`);
    await session.page.getByLabel("Token").fill("not-the-owner-token");
    await session.page.getByRole("button", { name: "Sign in" }).click();
    await session.page.getByRole("alert").filter({ hasText: "unauthorized" }).waitFor();
    await session.page.getByLabel("Token").fill(server.token);
    await session.page.getByRole("button", { name: "Sign in" }).click();
    await session.page.getByRole("heading", { name: "Skills", level: 1 }).waitFor();
    expect(session.page.url()).not.toContain(server.token);
    await session.page.getByRole("button", { name: "Sign out" }).click();
    await session.page.getByRole("heading", { name: "Sign in to skillgate" }).waitFor();
    await session.page.reload();
    await session.page.getByRole("heading", { name: "Sign in to skillgate" }).waitFor();
  });

  it("filters the list by search and state, and a skill created elsewhere appears live", async () => {
    const server = await serverWithPdfTools();
    await signIn(session.page, server);
    await session.page.getByRole("link", { name: "pdf-tools", exact: true }).waitFor();
    await session.page.getByLabel("Search", { exact: true }).fill("merge pdf");
    await expect.poll(() => session.page.getByTestId("skills-table").locator("tbody tr").count()).toBe(1);
    await session.page.getByLabel("Search", { exact: true }).fill("");
    await session.page.getByLabel("Enabled").selectOption("no");
    await expect.poll(() => session.page.getByTestId("skills-table").locator("tbody tr").count()).toBe(1);
    await session.page.getByLabel("Enabled").selectOption("");
    // Another client creates a skill: the open list shows it without a reload.
    const created = await server.json("/api/skills", {
      method: "POST",
      body: { name: "made-elsewhere", description: "Created through the API while the list is open." },
    });
    expect(created.status).toBe(201);
    await session.page.getByRole("link", { name: "made-elsewhere", exact: true }).waitFor();
    await session.page.screenshot({ path: screenshotPath("skills-live"), fullPage: true });
  });

  it("shows a skill's page: SKILL.md rendered without running its script, raw, files, governance, hash; a stale enable says so and reloads", async () => {
    const server = await serverWithPdfTools();
    await signIn(session.page, server);
    await session.page.getByRole("link", { name: "pdf-tools", exact: true }).click();
    await session.page.getByRole("heading", { name: "pdf-tools", level: 1 }).waitFor();
    await session.page.getByRole("heading", { name: "PDF tools" }).waitFor();
    expect(await session.page.evaluate("typeof window.__skillgatePwned")).toBe("undefined");
    expect(
      await session.page
        .locator(".markdown script, .markdown [onerror], .markdown a[href^='javascript']")
        .count(),
    ).toBe(0);
    await session.page.getByRole("button", { name: "Raw" }).click();
    await expect(session.page.locator("pre.raw").first().textContent()).resolves.toContain(
      "<script>window.__skillgatePwned",
    );
    await session.page.getByRole("link", { name: "scripts/split.py" }).waitFor();
    const detail = await server.json<{ hash: string }>("/api/skills/pdf-tools");
    await expect(session.page.locator(".hash").first().getAttribute("title")).resolves.toBe(detail.body.hash);
    await session.page.screenshot({ path: screenshotPath("skill-page"), fullPage: true });

    // Someone changes the skill after the page was read: enabling what was read is refused.
    const newHash = await writeFileThroughApi(
      server,
      "pdf-tools",
      "scripts/split.py",
      `${SPLIT_PY}# changed\n`,
    );
    await session.page.getByRole("button", { name: "Enable this version" }).click();
    const alert = session.page.getByRole("alert").filter({ hasText: "Changed since you looked." });
    await alert.waitFor();
    expect((await server.json<{ enabled: boolean }>("/api/skills/pdf-tools")).body.enabled).toBe(false);
    await session.page.screenshot({ path: screenshotPath("skill-changed"), fullPage: true });
    await alert.getByRole("button", { name: "Reload" }).click();
    await expect.poll(() => session.page.locator(".hash").first().getAttribute("title")).toBe(newHash);
    await session.page.getByRole("button", { name: "Enable this version" }).click();
    await session.page.getByRole("button", { name: "Disable this version" }).waitFor();
    const after = await server.json<{ enabled: boolean; hash: string }>("/api/skills/pdf-tools");
    expect(after.body).toMatchObject({ enabled: true, hash: newHash });
  });

  it("edits a script: a save that fails the script check shows the diagnostic on its line and writes nothing", async () => {
    const server = await serverWithPdfTools();
    await signIn(session.page, server);
    await session.page.goto(`${server.origin}/#/skills/pdf-tools/files/scripts/split.py`);
    const editor = session.page.locator(".cm-content");
    await editor.waitFor();
    await expect(editor.textContent()).resolves.toContain("print(len(sys.argv))");
    await editor.click();
    await session.page.keyboard.press("Control+End");
    await session.page.keyboard.type("\ndef broken(:\n");
    await session.page.getByRole("button", { name: "Save", exact: true }).click();
    const problems = session.page.getByTestId("script-problems");
    await problems.waitFor();
    await expect(problems.textContent()).resolves.toMatch(/line 5/);
    await session.page.getByRole("alert").filter({ hasText: "script_check_failed" }).waitFor();
    // The problem is marked in the editor's gutter, on the line the checker named.
    await expect.poll(() => session.page.locator(".cm-lint-marker-error").count()).toBe(1);
    await session.page.screenshot({ path: screenshotPath("script-check-failed"), fullPage: true });
    const stored = await server.json<{ content: string }>("/api/skills/pdf-tools/files/scripts/split.py");
    expect(stored.body.content).toBe(SPLIT_PY);

    // The fixed text saved with Ctrl+S is written.
    await editor.click();
    await session.page.keyboard.press("Control+a");
    await session.page.keyboard.insertText(`${SPLIT_PY}print('fixed')\n`);
    await session.page.keyboard.press("Control+s");
    await session.page.getByRole("status").filter({ hasText: "Saved." }).waitFor();
    const fixed = await server.json<{ content: string }>("/api/skills/pdf-tools/files/scripts/split.py");
    expect(fixed.body.content).toContain("print('fixed')");
    expect(fixed.body.content).not.toContain("broken");
  });

  it("approves a draft by its hash from the review page; the Needs review count follows", async () => {
    const server = await startUiServer(session.uiFolder, { builtins: false });
    const draft = await draftSkill(server.server.context.store, {
      name: "weather-note",
      description: "Writes a one-line weather note.",
      body: "Fetch nothing; write the note from what the user said.\n",
      sourceChats: ["chat-7"],
      rationale: "The user asked for the same note twice.",
    });
    await signIn(session.page, server);
    await expect(session.page.getByTestId("needs-review").textContent()).resolves.toMatch(/^1/);
    await session.page.getByRole("link", { name: /^Review/ }).click();
    const card = session.page.getByRole("listitem", { name: "Draft weather-note" });
    await card.waitFor();
    await expect(card.textContent()).resolves.toContain("The user asked for the same note twice.");
    await card.getByRole("link", { name: "chat-7" }).waitFor();
    await session.page.screenshot({ path: screenshotPath("review"), fullPage: true });
    await card.getByRole("button", { name: `Approve and enable ${draft.hash.slice(0, 12)}` }).click();
    await session.page.getByText("No drafts waiting.").waitFor();
    const enabled = await server.json<{ enabled: boolean; hash: string }>("/api/skills/weather-note");
    expect(enabled.body).toMatchObject({ enabled: true, hash: draft.hash });
    await expect.poll(() => session.page.getByTestId("needs-review").count()).toBe(0);
  });

  it("shows an edit plan as a side-by-side and a unified diff and applies it by its hash", async () => {
    const server = await serverWithPdfTools();
    const plan = await planEdit(server.server.context.store, {
      skillName: "pdf-tools",
      files: { "scripts/split.py": "import sys\n\nprint('pages:', len(sys.argv))\n" },
      reason: "Say what the number is.",
    });
    await signIn(session.page, server);
    await expect(session.page.getByTestId("needs-review").textContent()).resolves.toMatch(/^1/);
    await session.page.getByRole("link", { name: /^Review/ }).click();
    await session.page.getByRole("listitem", { name: "Edit plan for pdf-tools" }).getByRole("link").click();
    await session.page.getByRole("heading", { name: "Edit of pdf-tools", level: 1 }).waitFor();
    // Side by side: two editors in CodeMirror's merge view, the old text left and the new right.
    await session.page.locator(".cm-mergeView").waitFor();
    await expect(session.page.locator(".cm-mergeView .cm-content").nth(1).textContent()).resolves.toContain(
      "print('pages:', len(sys.argv))",
    );
    await session.page.screenshot({ path: screenshotPath("plan-side-by-side"), fullPage: true });
    await session.page.getByRole("button", { name: "Unified" }).click();
    await session.page.locator(".cm-deletedChunk").first().waitFor();
    await expect(session.page.getByRole("button", { name: /always/i }).count()).resolves.toBe(0);
    await session.page.getByRole("button", { name: `Approve ${plan.resultHash.slice(0, 12)}` }).click();
    await session.page.getByRole("status").filter({ hasText: "Approved: the edit is applied." }).waitFor();
    const applied = await server.json<{ hash: string }>("/api/skills/pdf-tools");
    expect(applied.body.hash).toBe(plan.resultHash);
  });

  it("answers an ask an MCP client is waiting on; the client's call then runs", async () => {
    const server = await startUiServer(session.uiFolder, {
      builtins: false,
      prepare: (folders) => {
        writeSkill(folders.skills, "backup", {
          frontMatter: {
            name: "backup",
            description: "Back up a folder.",
            metadata: { "skillgate.tier": "change" },
          },
          files: { "scripts/backup.py": "print('backed up')\n" },
        });
      },
    });
    const client = new Client({ name: "web-ui-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${server.token}` } },
      }),
    );
    try {
      const call = () =>
        client.callTool({
          name: "run_skill_script",
          arguments: { skill: "backup", script: "scripts/backup.py", arguments: {} },
        });
      const textOf = (result: Awaited<ReturnType<typeof call>>) =>
        (result.content as { type: string; text?: string }[]).map((part) => part.text ?? "").join("");
      const waiting = textOf(await call());
      expect(waiting).toMatch(/^HOST: this call needs the owner's approval/);

      await signIn(session.page, server);
      await session.page.getByRole("link", { name: /^Asks/ }).click();
      const card = session.page.getByRole("listitem", { name: "Ask run_skill_script" });
      await card.waitFor();
      await expect(card.textContent()).resolves.toContain("backup");
      await session.page.screenshot({ path: screenshotPath("asks"), fullPage: true });
      await card.getByRole("button", { name: "Approve once" }).click();
      await session.page
        .getByRole("status")
        .filter({ hasText: "Approved run_skill_script of backup once." })
        .waitFor();

      const ran = textOf(await call());
      expect(ran).not.toMatch(/needs the owner's approval/);
      expect(ran).toContain("backed up");

      // The calls are in the audit trail, filtered by skill, and the chat is listed.
      await session.page.getByRole("link", { name: "Audit" }).click();
      await session.page.getByLabel("Skill").fill("backup");
      await session.page.getByRole("button", { name: "Filter" }).click();
      const finished = session.page
        .getByRole("row")
        .filter({ hasText: "tool-call-finished" })
        .filter({ hasText: "ok" });
      await finished.first().waitFor();
      await session.page.screenshot({ path: screenshotPath("audit"), fullPage: true });
      await session.page.getByRole("link", { name: "Chats" }).click();
      await session.page.getByRole("heading", { name: "Chats", level: 1 }).waitFor();
      await expect.poll(() => session.page.locator("tbody tr").count()).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });

  it("imports a dropped zip; a refused one is shown in words with its code", async () => {
    const server = await startUiServer(session.uiFolder, { builtins: false });
    await signIn(session.page, server);
    await session.page.getByRole("link", { name: "Import" }).click();
    const zip = await yazlZip({
      "zip-demo/SKILL.md":
        "---\nname: zip-demo\ndescription: A skill that came in a zip.\n---\nDo the demo.\n",
    });
    await session.page
      .getByLabel("Choose a zip")
      .setInputFiles({ name: "zip-demo.zip", mimeType: "application/zip", buffer: zip });
    const done = session.page.getByRole("status").filter({ hasText: "Imported" });
    await done.waitFor();
    await done.getByRole("link", { name: "zip-demo" }).waitFor();
    const imported = await server.json<{ enabled: boolean; source: string }>("/api/skills/zip-demo");
    expect(imported.status).toBe(200);
    expect(imported.body.enabled).toBe(false);
    await session.page.screenshot({ path: screenshotPath("import"), fullPage: true });

    await session.page.getByLabel("Choose a zip").setInputFiles({
      name: "not-a-zip.zip",
      mimeType: "application/zip",
      buffer: Buffer.from("this is not a zip archive"),
    });
    const refused = session.page.getByRole("alert");
    await refused.waitFor();
    const text = await refused.textContent();
    expect(text).toMatch(/invalid_zip|zip/);
    const listed = await server.json<{ skills: { name: string; source: string }[] }>("/api/skills");
    const stored = listed.body.skills.filter((skill) => skill.source !== "builtin");
    expect(stored.map((skill) => skill.name)).toEqual(["zip-demo"]);
  });

  it("is usable at phone width and by keyboard: no sideways scroll, the skip link, focus on the new page's heading", async () => {
    const server = await serverWithPdfTools();
    await session.page.setViewportSize({ width: 390, height: 844 });
    await signIn(session.page, server);
    await session.page.getByRole("link", { name: "pdf-tools", exact: true }).waitFor();
    const overflow = await session.page.evaluate("document.documentElement.scrollWidth - window.innerWidth");
    expect(overflow).toBeLessThanOrEqual(0);
    await session.page.screenshot({ path: screenshotPath("skills-phone"), fullPage: true });
    await session.page.bringToFront();
    console.log(
      await session.page.evaluate(
        'document.activeElement?.tagName + ":" + document.activeElement?.outerHTML.slice(0, 80)',
      ),
    );
    await session.page.keyboard.press("Tab");
    console.log(
      await session.page.evaluate(
        'document.activeElement?.tagName + ":" + document.activeElement?.outerHTML.slice(0, 80)',
      ),
    );
    await expect(
      session.page.evaluate('document.activeElement?.tagName + ":" + document.activeElement?.textContent'),
    ).resolves.toBe("A:Skip to content");
    await session.page.getByRole("link", { name: "pdf-tools", exact: true }).focus();
    await session.page.keyboard.press("Enter");
    await session.page.getByRole("heading", { name: "pdf-tools", level: 1 }).waitFor();
    await expect
      .poll(() =>
        session.page.evaluate('document.activeElement?.tagName + ":" + document.activeElement?.textContent'),
      )
      .toBe("H1:pdf-tools");
    const phoneOverflow = await session.page.evaluate(
      "document.documentElement.scrollWidth - window.innerWidth",
    );
    expect(phoneOverflow).toBeLessThanOrEqual(0);
  });
});
