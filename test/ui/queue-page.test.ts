import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalQueueClient } from "../../src/queue/local/local-queue-client.js";
import { newQueueId } from "../../src/queue/queue-runner.js";
import { launchBrowser, screenshotPath, type TestBrowser } from "../helpers/browser.js";
import { buildUi, signIn, startUiServer } from "./ui-harness.js";

/** The Queue page in Chromium against a real `skillgate serve`: its counts and its workers. */

let browser: TestBrowser;
let ui: { folder: string; remove: () => void };

beforeAll(async () => {
  ui = await buildUi();
  browser = await launchBrowser();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  ui?.remove();
});

describe("the Queue page", () => {
  it("shows the counts and the in-process worker, and follows a request that waits", async () => {
    const server = await startUiServer(ui.folder, {
      builtins: false,
      configYaml: "queue:\n  workers: { in_process: on }\n  skills: { held: { concurrency: 1 } }\n",
    });
    const page: Page = await browser.context.newPage();
    await signIn(page, server);
    await page.getByRole("link", { name: "Queue" }).click();
    await page.getByRole("heading", { name: "Worker pool", level: 1 }).waitFor();
    await page.getByRole("cell", { name: `serve-${process.pid}` }).waitFor();
    expect(await page.getByTestId("queue-waiting").locator("dd").textContent()).toBe("0");
    // A request the worker cannot take yet (its skill's only slot is held here) waits.
    const client = new LocalQueueClient({ dataFolder: server.folders.data, capacity: 10, heartbeatMs: 2000 });
    const { SkillSlots } = await import("../../src/queue/local/skill-slots.js");
    const slot = new SkillSlots(client.layout, 60_000).take("held", 1);
    await client.submit({
      requestId: newQueueId(),
      skill: "held",
      hash: "0".repeat(64),
      script: "scripts/run.mjs",
      arguments: {},
      timeoutMs: 1000,
      maxOutputBytes: 1024,
      network: "none",
      allowedDomains: [],
      submittedAt: new Date().toISOString(),
    });
    await page.getByTestId("queue-waiting").locator("dd").getByText("1").waitFor({ timeout: 15_000 });
    await page.screenshot({ path: screenshotPath("queue-page") });
    slot?.release();
    await page.close();
  });
});
