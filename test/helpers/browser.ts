import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";
import { removeTree } from "../../src/core/remove-tree.js";
import { requireTools } from "./required-tools.js";

/** Debian's chromium, installed by scripts/install-test-deps.sh (no downloaded browser). */
export const CHROMIUM_PATH = "/usr/bin/chromium";

/**
 * The flags every run uses: no sandbox (tests run as root in containers), no GPU, no QUIC, and
 * nothing that phones home (first run, background networking, component updates, sync).
 * playwright-core adds `--headless` itself for `headless: true`.
 */
export const CHROMIUM_FLAGS: readonly string[] = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Where the browser tests save screenshots (ignored by git). */
export const SCREENSHOT_FOLDER = join(process.cwd(), "test-output", "ui");

/** A headless Chromium with its own empty profile; `close` ends it and removes the profile. */
export interface TestBrowser {
  readonly context: BrowserContext;
  readonly close: () => Promise<void>;
}

/** Starts Chromium with a new empty `--user-data-dir`. Fails (never skips) when it is not installed. */
export async function launchBrowser(viewport = { width: 1280, height: 860 }): Promise<TestBrowser> {
  requireTools("chromium");
  const profile = mkdtempSync(join(tmpdir(), "skillgate-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...CHROMIUM_FLAGS],
    viewport,
  });
  return {
    context,
    close: async () => {
      await context.close();
      removeTree(profile);
    },
  };
}

/** The path of a screenshot named `name` (the folder is made). */
export function screenshotPath(name: string): string {
  mkdirSync(SCREENSHOT_FOLDER, { recursive: true });
  return join(SCREENSHOT_FOLDER, `${name}.png`);
}
