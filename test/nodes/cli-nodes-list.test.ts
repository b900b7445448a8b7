import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LIVE_STATE_FILE } from "../../src/nodes/controller/live-state-file.js";
import { NODES_FOLDER } from "../../src/nodes/controller/node-registry.js";
import { cliSandbox } from "../surfaces/cli/harness.js";

describe("skillgate nodes list, with what a node put in its heartbeat", () => {
  it("shows a node's features and skill names with terminal controls escaped, one row per node", async () => {
    const sandbox = cliSandbox();
    expect((await sandbox.run(["nodes", "add", "lab01"])).code).toBe(0);
    // The live state a running server writes, carrying what a hostile node's heartbeat said.
    mkdirSync(join(sandbox.data, NODES_FOLDER), { recursive: true });
    writeFileSync(
      join(sandbox.data, NODES_FOLDER, LIVE_STATE_FILE),
      JSON.stringify({
        writtenAt: new Date().toISOString(),
        serving: true,
        nodes: [
          {
            name: "lab01",
            online: true,
            connected: true,
            features: ["skills", "sandbox\u001b]0;owned\u0007"],
            skills: { "disk\u001b[2J\nlab02  node  online": "a".repeat(64) },
            runsInFlight: 0,
          },
        ],
      }),
    );
    const listed = await sandbox.run(["nodes", "list"]);
    expect(listed.code).toBe(0);
    expect(listed.out).not.toContain("\u001b");
    expect(listed.out).not.toContain("\u0007");
    expect(listed.out).toContain("skills,sandbox\\x1b]0;owned\\x07");
    expect(listed.out).toContain("disk\\x1b[2J lab02  node  online@aaaaaaaa");
    // The header and lab01's row: the node's newline did not make a row of its own.
    expect(listed.out.trimEnd().split("\n")).toHaveLength(2);
  });
});
