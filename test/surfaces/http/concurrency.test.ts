import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { childEnvironment, cliMain, ensureBuilt } from "../mcp/built-cli.js";
import { startApi } from "./api-harness.js";

/**
 * Clients at once over real HTTP: two that saw the same hash (one wins, the other is told its
 * hash is stale), and 50 writes from the API and from CLI processes on the same store at the
 * same time (the store's lock serialises them; none is lost).
 */

beforeAll(() => ensureBuilt());

/** Runs the built CLI as its own process; resolves with its exit code and output. */
function cli(
  argv: readonly string[],
  home: string,
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliMain, ...argv], { cwd: home, env: childEnvironment(home) });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString("utf8");
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, out, err }));
  });
}

describe("concurrent clients", () => {
  it("two clients write and enable with the hash they both saw: one wins, the other gets 409 skill_changed", async () => {
    const api = await startApi();
    const created = await api.request("POST", "/api/skills", {
      name: "demo",
      description: "The demo.",
      files: { "references/notes.md": "first\n" },
    });
    const seen = created.body.hash as string;
    const [left, right] = await Promise.all(
      ["from the left\n", "from the right\n"].map((content) =>
        api.request("PUT", "/api/skills/demo/files/references/notes.md", { content, hash: seen }),
      ),
    );
    const statuses = [left?.status, right?.status].sort();
    expect(statuses).toEqual([200, 409]);
    const winner = left?.status === 200 ? left : right;
    const loser = left?.status === 200 ? right : left;
    expect(loser?.body.error).toMatchObject({
      code: "skill_changed",
      data: { expected: seen, actual: winner?.body.hash },
    });

    const [stale, fresh] = await Promise.all([
      api.request("PUT", "/api/skills/demo/enabled", { enabled: true, hash: seen }),
      api.request("PUT", "/api/skills/demo/enabled", { enabled: true, hash: winner?.body.hash }),
    ]);
    expect(stale.status).toBe(409);
    expect(stale.body.error).toMatchObject({ code: "skill_changed", data: { seen: "earlier" } });
    expect(fresh.status).toBe(200);
    const detail = await api.request("GET", "/api/skills/demo");
    expect(detail.body).toMatchObject({ enabled: true, hash: winner?.body.hash });
  });

  it("50 writes at once, 25 from the API and 25 from CLI processes: every one lands", async () => {
    const api = await startApi();
    const base = await api.request("POST", "/api/skills", {
      name: "base",
      description: "Copied by the CLI.",
    });
    expect(base.status).toBe(201);
    const flags = ["--config", api.config, "--data", api.data, "--root", api.project];
    const writes = await Promise.all([
      ...Array.from({ length: 25 }, (_, index) =>
        api.request("POST", "/api/skills", {
          name: `api-${index}`,
          description: `Written by the API, ${index}.`,
        }),
      ),
      ...Array.from({ length: 25 }, (_, index) =>
        cli([...flags, "store", "duplicate", "base", `cli-${index}`, "--json"], api.tree),
      ),
    ]);
    const answers = writes.slice(0, 25) as { status: number }[];
    const processes = writes.slice(25) as { code: number | null; err: string }[];
    expect(answers.map((answer) => answer.status)).toEqual(Array(25).fill(201));
    expect(processes.map((run) => [run.code, run.err])).toEqual(Array(25).fill([0, ""]));

    const listed = await api.request("GET", "/api/skills");
    const names = new Set((listed.body.skills as { name: string }[]).map((skill) => skill.name));
    for (let index = 0; index < 25; index++) {
      expect(names.has(`api-${index}`)).toBe(true);
      expect(names.has(`cli-${index}`)).toBe(true);
    }
    const index = JSON.parse(readFileSync(join(api.data, "skills", "index.json"), "utf8")) as {
      revision: number;
      skills: Record<string, unknown>;
    };
    expect(index.revision).toBe(51);
    expect(Object.keys(index.skills)).toHaveLength(51);
    expect(listed.body.revision).toBe(51);
  });
});
