import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { removeTree } from "../../src/core/remove-tree.js";
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
