import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { removeTree } from "../../src/core/remove-tree.js";
import { launchBrowser, screenshotPath, type TestBrowser } from "../helpers/browser.js";
import { startTestServer, type TestServer, type TestServerOptions } from "../helpers/http-server.js";

/**
 * The web UI built from `ui/` into a temporary folder once per test file, so the browser tests
 * run the UI of the source they test (not a stale `dist/ui`), and a test server serving it.
 */

/** Builds the UI into a new temporary folder; returns it and what removes it. */
export async function buildUi(): Promise<{ folder: string; remove: () => void }> {
  const { build } = await import("vite");
  const folder = mkdtempSync(join(tmpdir(), "skillgate-ui-build-"));
  await build({
    configFile: join(process.cwd(), "ui", "vite.config.ts"),
    logLevel: "silent",
    build: { outDir: folder, emptyOutDir: true },
  });
  return { folder, remove: () => removeTree(folder) };
}

/** A test server that serves the UI in `uiFolder`. */
export function startUiServer(uiFolder: string, options: TestServerOptions = {}): Promise<TestServer> {
  return startTestServer({ ...options, server: { ...options.server, uiFolder } });
}

/** Signs `page` in through the login link with the server's token and waits for the skills list. */
export async function signIn(page: Page, server: TestServer): Promise<void> {
  await page.goto(`${server.origin}/login?token=${encodeURIComponent(server.token)}`);
  await page.getByRole("heading", { name: "Skills", level: 1 }).waitFor();
}

/** Writes one file of a stored skill through the API (as another client would). */
export async function writeFileThroughApi(server: TestServer, name: string, path: string, content: string) {
  const answer = await server.json<{ hash: string }>(`/api/skills/${name}/files/${path}`, {
    method: "PUT",
    body: { content },
  });
  if (answer.status !== 200) throw new Error(`PUT ${path} answered ${answer.status}`);
  return answer.body.hash;
}

/** What {@link openPageSession} gives a test file: read its fields inside tests and hooks only. */
export interface PageSession {
  /** The UI built once for the file. */
  readonly uiFolder: string;
  readonly browser: TestBrowser;
  /** A new page for each test, in a context without cookies. */
  readonly page: Page;
  /** The page's uncaught errors during this test (a test expects none). */
  readonly pageErrors: readonly string[];
}

/**
 * Registers a browser test file's hooks: the UI built and Chromium started once, a fresh page
 * without cookies for each test, its uncaught errors collected, and a screenshot of a failed
 * test's page (left as it was, for whoever reads the failure).
 */
export function openPageSession(): PageSession {
  let ui: { folder: string; remove: () => void } | undefined;
  let browser: TestBrowser | undefined;
  let page: Page | undefined;
  const pageErrors: string[] = [];
  beforeAll(async () => {
    ui = await buildUi();
    browser = await launchBrowser();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    ui?.remove();
  });
  beforeEach(async () => {
    const context = started(browser).context;
    await context.clearCookies();
    for (const open of context.pages()) await open.close();
    page = await context.newPage();
    pageErrors.length = 0;
    page.on("pageerror", (error) => pageErrors.push(error.message));
  });
  afterEach(async (context) => {
    if (context.task.result?.state === "fail" && page !== undefined) {
      const name = context.task.name.replace(/[^a-z0-9]+/gi, "-").slice(0, 60);
      await page.screenshot({ path: screenshotPath(`failed-${name}`), fullPage: true }).catch(() => {});
    }
  });
  return {
    get uiFolder() {
      return started(ui).folder;
    },
    get browser() {
      return started(browser);
    },
    get page() {
      return started(page);
    },
    pageErrors,
  };
}

function started<T>(value: T | undefined): T {
  if (value === undefined) throw new Error("the page session is read before its hooks ran");
  return value;
}
