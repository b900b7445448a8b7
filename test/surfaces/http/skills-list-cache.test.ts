import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { childEnvironment, cliMain, ensureBuilt } from "../mcp/built-cli.js";
import { type ApiServer, startApi } from "./api-harness.js";

/**
 * `GET /api/skills` kept by revision (docs/http-api.md, "Skills"): the list is read once per
 * store and catalog revision and sent as the same bytes with an ETag until one moves. Each
 * way the list can change must show: a write through the API, the CLI in another process,
 * and (with the catalog watch `skillgate serve` runs) a hand edit of a stored skill's files.
 */

ensureBuilt();

const SKILL = (description: string) => `---\nname: notes\ndescription: ${description}\n---\n\n# Notes\n`;

function cli(argv: readonly string[], home: string): Promise<{ code: number | null; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliMain, ...argv], { cwd: home, env: childEnvironment(home) });
    let err = "";
    child.stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString("utf8");
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, err }));
  });
}

function notes(answer: { body: Record<string, unknown> }): Record<string, unknown> | undefined {
  return (answer.body.skills as Record<string, unknown>[]).find((skill) => skill.name === "notes");
}

async function createNotes(api: ApiServer): Promise<string> {
  const created = await api.request("POST", "/api/skills", {
    name: "notes",
    files: { "SKILL.md": SKILL("First words.") },
  });
  expect(created.status).toBe(201);
  return created.body.hash as string;
}

describe("the skills list kept by revision", () => {
  it("answers the same ETag while nothing changed, 304 to If-None-Match, and a new list after an API write", async () => {
    const api = await startApi();
    const hash = await createNotes(api);
    const first = await api.request("GET", "/api/skills");
    const etag = first.headers.get("etag");
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(first.headers.get("content-type")).toBe("application/json");
    expect((await api.request("GET", "/api/skills")).headers.get("etag")).toBe(etag);
    const unchanged = await api.request("GET", "/api/skills", undefined, { "If-None-Match": etag ?? "" });
    expect(unchanged.status).toBe(304);
    expect(unchanged.headers.get("etag")).toBe(etag);

    const enabled = await api.request("PUT", "/api/skills/notes/enabled", { enabled: true, hash });
    expect(enabled.status).toBe(200);
    const after = await api.request("GET", "/api/skills", undefined, { "If-None-Match": etag ?? "" });
    expect(after.status).toBe(200);
    expect(after.headers.get("etag")).not.toBe(etag);
    expect(after.body.revision).toBe((first.body.revision as number) + 1);
    expect(notes(after)).toMatchObject({ enabled: true, hash });

    const deleted = await api.request("DELETE", "/api/skills/notes");
    expect(deleted.status).toBe(200);
    expect(notes(await api.request("GET", "/api/skills"))).toBeUndefined();
  });

  it("shows a write the CLI made in another process on the next request", async () => {
    const api = await startApi();
    await createNotes(api);
    const before = await api.request("GET", "/api/skills");
    const flags = ["--config", api.config, "--data", api.data, "--root", api.project];
    const copied = await cli([...flags, "store", "duplicate", "notes", "notes-copy", "--json"], api.tree);
    expect(copied).toEqual({ code: 0, err: "" });
    const after = await api.request("GET", "/api/skills");
    expect(after.body.revision).toBe((before.body.revision as number) + 1);
    expect((after.body.skills as { name: string }[]).map((skill) => skill.name)).toContain("notes-copy");
    expect(after.headers.get("etag")).not.toBe(before.headers.get("etag"));
  });

  it("with the catalog watch, shows a hand edit of a stored skill's SKILL.md once its notification arrives", async () => {
    const api = await startApi({ watch: true });
    await createNotes(api);
    const host = api.context.host;
    // Until every folder is watched the list is kept per recorded hash only; wait for the watch.
    for (let tries = 0; host.catalogWatchStatus()?.notifications !== "complete"; tries++) {
      expect(tries).toBeLessThan(200);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(notes(await api.request("GET", "/api/skills"))).toMatchObject({ description: "First words." });
    const revision = host.skillgate.catalog.revision.value;
    writeFileSync(join(api.data, "skills", "notes", "SKILL.md"), SKILL("Edited by hand."));
    // The notification is asynchronous (docs/mcp.md, "What a call may miss"): wait for it,
    // then the very next request must show the edit.
    for (let tries = 0; host.skillgate.catalog.revision.value === revision; tries++) {
      expect(tries).toBeLessThan(400);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(notes(await api.request("GET", "/api/skills"))).toMatchObject({ description: "Edited by hand." });
  });
});
