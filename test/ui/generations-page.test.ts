import { describe, expect, it } from "vitest";
import { ECHO_SKILL, echoScript, writeEchoSkill } from "../capabilities/generations/served-lua-skill.js";
import { screenshotPath } from "../helpers/browser.js";
import { eventually } from "../helpers/eventually.js";
import type { TestServer } from "../helpers/http-server.js";
import { openPageSession, signIn, startUiServer } from "./ui-harness.js";

/**
 * The Generations page in a real browser (Debian's chromium through playwright-core) against a
 * real `skillgate serve` on port 0 with a Lua skill in its configuration: the active generation,
 * a reload seen live, a widening edit waiting with its reasons, Approve and Reject (through the
 * API with its CSRF header), and the server switching on the owner's answer.
 */

const session = openPageSession();

/** Reloads and board writes are flushed to disk; a loaded machine may take seconds. */
const SLOW = { timeout: 30_000 };

async function servedEcho(): Promise<{ server: TestServer; skill: ReturnType<typeof writeEchoSkill> }> {
  let skill: ReturnType<typeof writeEchoSkill> | undefined;
  const server = await startUiServer(session.uiFolder, {
    builtins: false,
    prepare: (folders) => {
      skill = writeEchoSkill(folders.config);
    },
  });
  if (skill === undefined) throw new Error("the skill was not written");
  return { server, skill };
}

const activeGeneration = (server: TestServer) =>
  server.server.context.host.skillgate.capabilityRegistry.entry(ECHO_SKILL)?.provider.generation;

describe("the Generations session.page in Chromium", () => {
  it("shows the active generation, a reload live, and approves a widening switch", async () => {
    const { server, skill } = await servedEcho();
    await signIn(session.page, server);
    await session.page.getByRole("link", { name: "Generations" }).click();
    await session.page.getByRole("heading", { name: "Generations", level: 1 }).waitFor();
    const first = session.page.getByRole("row", { name: `Generation ${ECHO_SKILL}@1` });
    await expect.poll(() => first.textContent()).toContain("active");

    // An edit reloads: the session.page follows through /api/events, without a reload of its own.
    skill.writeScript(echoScript(2));
    const second = session.page.getByRole("row", { name: `Generation ${ECHO_SKILL}@2` });
    await expect.poll(() => second.textContent(), SLOW).toContain("active");
    await session.page.getByText("Earlier generations (1)").click();
    await expect.poll(() => first.textContent(), SLOW).toContain("closed");

    // A widening edit waits, with what it would widen and the owner's two answers.
    skill.widenToWorkspaceReads();
    const waiting = session.page.getByRole("row", { name: `Generation ${ECHO_SKILL}@3` });
    await expect.poll(() => waiting.textContent(), SLOW).toContain("waiting for approval");
    expect(await waiting.getByRole("list", { name: "Widening" }).textContent()).toBe(
      "fs read roots: + workspace",
    );
    expect(activeGeneration(server)).toBe(2);
    await session.page.screenshot({ path: screenshotPath("generations-waiting"), fullPage: true });

    let asked = "";
    session.page.once("dialog", (dialog) => {
      asked = dialog.message();
      void dialog.accept();
    });
    await waiting.getByRole("button", { name: "Approve" }).click();
    await session.page.getByText(`Approved ${ECHO_SKILL}@3`).waitFor();
    expect(asked).toContain("fs read roots: + workspace");
    await eventually("the server switched to generation 3", () => activeGeneration(server) === 3, {
      timeoutMs: 30_000,
    });
    await expect.poll(() => waiting.textContent(), SLOW).toContain("active");
    expect(await waiting.getByRole("button", { name: "Approve" }).count()).toBe(0);
    await session.page.screenshot({ path: screenshotPath("generations-approved"), fullPage: true });
    expect(session.pageErrors).toEqual([]);
  });

  it("rejects a waiting switch: the active generation keeps serving", async () => {
    const { server, skill } = await servedEcho();
    await signIn(session.page, server);
    await session.page.goto(`${server.origin}/#/generations`);
    await session.page.getByRole("row", { name: `Generation ${ECHO_SKILL}@1` }).waitFor();
    skill.widenToWorkspaceReads();
    const waiting = session.page.getByRole("row", { name: `Generation ${ECHO_SKILL}@2` });
    await expect.poll(() => waiting.textContent(), SLOW).toContain("waiting for approval");
    await waiting.getByRole("button", { name: "Reject" }).click();
    await session.page.getByText(`Rejected ${ECHO_SKILL}@2`).waitFor();
    await session.page.getByText("Earlier generations (1)").click();
    await expect.poll(() => waiting.textContent(), SLOW).toContain("rejected");
    expect(activeGeneration(server)).toBe(1);
    expect(
      await session.page.getByRole("row", { name: `Generation ${ECHO_SKILL}@1` }).textContent(),
    ).toContain("active");
    expect(session.pageErrors).toEqual([]);
  });

  it("says so when no Lua skill reloads", async () => {
    const server = await startUiServer(session.uiFolder, { builtins: false });
    await signIn(session.page, server);
    await session.page.goto(`${server.origin}/#/generations`);
    await session.page.getByText("No Lua skill is reloading in this server.").waitFor();
    await session.page.screenshot({ path: screenshotPath("generations-empty") });
  });
});
