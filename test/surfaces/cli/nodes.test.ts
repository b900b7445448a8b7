import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AGENT_ROUTES } from "../../../src/nodes/protocol.js";
import { eventually } from "../../helpers/eventually.js";
import { ScriptedAgent, startController } from "../../nodes/controller/controller-harness.js";
import { cliSandbox, hasStackTrace, runCaptured } from "./harness.js";

describe("skillgate nodes", () => {
  it("add prints the token once and the agent command; list, sync and remove work with no server", async () => {
    const sandbox = cliSandbox();
    const added = await sandbox.run(["nodes", "add", "lab01"]);
    expect(added.code).toBe(0);
    const token = /\n {2}([A-Za-z0-9_-]{43})\n/.exec(added.out)?.[1];
    expect(token).toBeDefined();
    expect(added.out).toContain(
      `skillgate node-agent --controller http://127.0.0.1:3917 --name lab01 --enrol ${token}`,
    );
    const worker = await sandbox.run([
      "nodes",
      "add",
      "w1",
      "--worker",
      "--controller",
      "https://ctl.example",
      "--json",
    ]);
    expect(JSON.parse(worker.out)).toMatchObject({
      node: { name: "w1", role: "worker", enrolled: false },
      command: expect.stringMatching(
        /^skillgate node-agent --controller https:\/\/ctl\.example --name w1 --enrol /,
      ),
    });
    const listed = await sandbox.run(["nodes", "list", "--json"]);
    expect(JSON.parse(listed.out)).toMatchObject({
      serving: false,
      nodes: [
        { name: "lab01", role: "node", online: false, enrolled: false },
        { name: "w1", role: "worker", online: false },
      ],
    });
    const table = await sandbox.run(["nodes", "list"]);
    expect(table.out).toMatch(/lab01\s+node\s+not enrolled\s+never/);
    const synced = await sandbox.run(["nodes", "sync", "lab01"]);
    expect(synced.out).toContain("no server is running");
    const removed = await sandbox.run(["nodes", "remove", "lab01"]);
    expect(removed.code).toBe(0);
    expect(
      JSON.parse((await sandbox.run(["nodes", "list", "--json"])).out).nodes.map(
        (node: { name: string }) => node.name,
      ),
    ).toEqual(["w1"]);
  });

  it.each([
    [["nodes", "add", "Bad_Name"], "invalid_node_name"],
    [["nodes", "remove", "nobody"], "no node is named nobody"],
    [["nodes", "sync", "nobody"], "no node is named nobody"],
  ])("%j fails with a message and no stack trace, writing nothing", async (argv, text) => {
    const sandbox = cliSandbox();
    const failed = await sandbox.run(argv);
    expect(failed.code).not.toBe(0);
    expect(`${failed.err}${failed.out}`).toContain(text);
    expect(hasStackTrace(failed.err)).toBe(false);
    expect(existsSync(join(sandbox.data, "nodes", "registry.json"))).toBe(false);
  });

  it("works beside a running server: the command names its URL, list shows the live state, remove closes the channel", async () => {
    const { server } = await startController();
    const cli = (argv: string[]) => runCaptured([...server.folders.flags, ...argv]);
    const added = JSON.parse((await cli(["nodes", "add", "lab01", "--json"])).out) as {
      token: string;
      command: string;
    };
    expect(added.command).toBe(
      `skillgate node-agent --controller ${server.origin} --name lab01 --enrol ${added.token}`,
    );
    const enrolled = await fetch(`${server.origin}${AGENT_ROUTES.enrol}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ name: "lab01", token: added.token }),
    });
    const { credential } = (await enrolled.json()) as { credential: string };
    const agent = await ScriptedAgent.connect(server, credential);
    await agent.heartbeat({ remote: "a".repeat(64) });
    await eventually("the CLI sees lab01 online", async () => {
      const listed = JSON.parse((await cli(["nodes", "list", "--json"])).out);
      expect(listed).toMatchObject({
        serving: true,
        nodes: [
          {
            name: "lab01",
            online: true,
            features: ["skills", "sandbox"],
            skills: { remote: "a".repeat(64) },
          },
        ],
      });
    });
    await cli(["nodes", "sync", "lab01"]);
    await eventually("the sync request reaches the agent", () =>
      agent.received.some((message) => message.type === "sync-skills"),
    );
    expect((await cli(["nodes", "remove", "lab01"])).code).toBe(0);
    await eventually("the server closes the removed node's channel", () => agent.closed?.code === 4002);
  });
});
