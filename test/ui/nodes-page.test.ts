import { describe, expect, it } from "vitest";
import { AGENT_ROUTES } from "../../src/nodes/protocol.js";
import { screenshotPath } from "../helpers/browser.js";
import { eventually } from "../helpers/eventually.js";
import { ScriptedAgent } from "../nodes/controller/controller-harness.js";
import { openPageSession, signIn, startUiServer } from "./ui-harness.js";

/**
 * The Nodes page in a real browser (Debian's chromium through playwright-core) against a real
 * `skillgate serve` on port 0 and a scripted agent over the real channel: add a node (the
 * token and command shown once), see it come online with what its heartbeat says, sync it,
 * remove it.
 */

const session = openPageSession();

describe("the Nodes page in Chromium", () => {
  it("adds a node showing its token once, shows it online with its heartbeat, syncs it and removes it", async () => {
    const server = await startUiServer(session.uiFolder, { builtins: false });
    await signIn(session.page, server);
    await session.page.getByRole("link", { name: "Nodes" }).click();
    await session.page.getByRole("heading", { name: "Nodes", level: 1 }).waitFor();
    await session.page.getByText("No nodes yet.").waitFor();

    await session.page.getByLabel("Name").fill("lab01");
    await session.page.getByRole("button", { name: "Add" }).click();
    const command = (await session.page.getByTestId("agent-command").textContent()) ?? "";
    const match = /^skillgate node-agent --controller (\S+) --name lab01 --enrol (\S+)$/.exec(command.trim());
    expect(match?.[1]).toBe(server.origin);
    const token = match?.[2] ?? "";
    const row = session.page.getByRole("row", { name: "Node lab01" });
    await expect.poll(() => row.textContent()).toContain("not enrolled");
    await session.page.screenshot({ path: screenshotPath("nodes-added"), fullPage: true });
    await session.page.getByRole("button", { name: "Done" }).click();
    expect(await session.page.getByTestId("agent-command").count()).toBe(0);

    const enrolled = await fetch(`${server.origin}${AGENT_ROUTES.enrol}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ name: "lab01", token }),
    });
    const { credential } = (await enrolled.json()) as { credential: string };
    const agent = await ScriptedAgent.connect(server, credential);
    await agent.heartbeat({ disks: "c".repeat(64) });
    // The live update brings the new state without a reload.
    // The channel's opening marks the node online before the heartbeat's state arrives: wait for the hashes.
    await expect.poll(() => row.textContent(), { timeout: 15_000 }).toContain("disks@cccccccc");
    expect(await row.textContent()).toContain("online");
    expect(await row.textContent()).toContain("skills, sandbox");
    await session.page.screenshot({ path: screenshotPath("nodes-online"), fullPage: true });

    await row.getByRole("button", { name: "Sync" }).click();
    await session.page.getByText("Asked lab01 to sync.").waitFor();
    await eventually("the agent is asked to sync", () =>
      agent.received.some((message) => message.type === "sync-skills"),
    );

    session.page.once("dialog", (dialog) => void dialog.accept());
    await row.getByRole("button", { name: "Remove" }).click();
    await session.page.getByText("Removed lab01.").waitFor();
    await session.page.getByText("No nodes yet.").waitFor();
    await eventually("the removed node's channel is closed", () => agent.closed?.code === 4002);
    expect(session.pageErrors).toEqual([]);
  });

  it("shows a refused name in words and adds nothing", async () => {
    const server = await startUiServer(session.uiFolder, { builtins: false });
    await server.server.context.nodes?.registry.add("lab01");
    await signIn(session.page, server);
    await session.page.goto(`${server.origin}/#/nodes`);
    await session.page.getByRole("row", { name: "Node lab01" }).waitFor();
    await session.page.getByLabel("Name").fill("lab01");
    await session.page.getByRole("button", { name: "Add" }).click();
    await session.page.getByText(/a node named lab01 exists/).waitFor();
    expect(await session.page.getByTestId("agent-command").count()).toBe(0);
    expect(server.server.context.nodes?.registry.list().map((node) => node.name)).toEqual(["lab01"]);
  });
});
