import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startApi } from "./api-harness.js";

/**
 * The skills and files routes, route by route, over real HTTP on port 0 against a real store
 * (docs/http-api.md, "Skills" and "Files"). Refusals are covered by store-refusals.test.ts
 * and hostile-input.test.ts.
 */

const DISK_SKILL = `---
name: disk-report
description: Reports disk usage of a path.
metadata:
  skillgate.execution: sandbox
  skillgate.tier: read
  parameters_schema:
    scripts/disk.py:
      type: object
      properties:
        path: { type: string }
---

# Disk report
`;
const PASSTHROUGH = 'import os, sys\npath = sys.argv[1]\nos.system("du -sh " + path)\n';

describe("the skills routes", () => {
  it("lists built-ins and stored skills with source, state, hash, author, runner, tier and lint count", async () => {
    const api = await startApi();
    const created = await api.request("POST", "/api/skills", {
      name: "disk-report",
      files: { "SKILL.md": DISK_SKILL, "scripts/disk.py": PASSTHROUGH },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "disk-report", enabled: false, source: "owner" });

    const listed = await api.request("GET", "/api/skills");
    expect(listed.status).toBe(200);
    const skills = listed.body.skills as Record<string, unknown>[];
    expect(listed.body.revision).toBe(1);
    expect(skills.map((skill) => skill.name)).toEqual(
      [...skills.map((skill) => skill.name as string)].sort(),
    );
    expect(skills.find((skill) => skill.name === "disk-report")).toEqual({
      name: "disk-report",
      description: "Reports disk usage of a path.",
      source: "owner",
      enabled: false,
      hash: created.body.hash,
      updated: created.body.updated,
      author: "owner",
      runner: "sandbox",
      tier: "read",
      reviewWarnings: 1,
      loads: true,
    });
    expect(skills.find((skill) => skill.name === "json-tools")).toMatchObject({
      source: "builtin",
      enabled: true,
      author: "builtin",
      runner: "sandbox",
      tier: "read",
    });
  });

  it("shows a skill: SKILL.md, files, governance, each script's schema, hashes, lint and the decision", async () => {
    const api = await startApi();
    const created = await api.request("POST", "/api/skills", {
      name: "disk-report",
      files: { "SKILL.md": DISK_SKILL, "scripts/disk.py": PASSTHROUGH, "scripts/other.sh": "echo hi\n" },
    });
    const detail = await api.request("GET", "/api/skills/disk-report");
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({
      name: "disk-report",
      hash: created.body.hash,
      recordedHash: created.body.hash,
      grant: `skill:disk-report@${String(created.body.hash).slice(0, 8)}`,
      skillFile: DISK_SKILL,
      author: "owner",
      files: [
        { path: "SKILL.md", size: Buffer.byteLength(DISK_SKILL) },
        { path: "scripts/disk.py", size: PASSTHROUGH.length },
        { path: "scripts/other.sh", size: 8 },
      ],
      governance: { execution: "sandbox", tier: "read", allowedDomains: [], network: "none" },
      decision: { decision: "disabled", source: "store", reasons: [{ code: "disabled_in_store" }] },
    });
    expect(detail.body.scripts).toEqual([
      {
        path: "scripts/disk.py",
        language: "python",
        schema: { type: "object", properties: { path: { type: "string" } } },
      },
      {
        path: "scripts/other.sh",
        language: "bash",
        schema: { type: "object", properties: { node: expect.objectContaining({ type: "string" }) } },
      },
    ]);
    expect(detail.body.lintWarnings).toEqual([
      expect.objectContaining({ rule: "command-passthrough", file: "scripts/disk.py", line: 3 }),
    ]);

    // A hand edit: the hash now and the recorded one differ, and the page says both.
    const { writeFileSync } = await import("node:fs");
    writeFileSync(join(api.data, "skills", "disk-report", "scripts", "other.sh"), "echo changed\n");
    const edited = await api.request("GET", "/api/skills/disk-report");
    expect(edited.body.recordedHash).toBe(created.body.hash);
    expect(edited.body.hash).not.toBe(created.body.hash);
  });

  it("creates from a name and description, enables by hash, duplicates, deletes, and publishes an event after each write", async () => {
    const api = await startApi();
    const created = await api.request("POST", "/api/skills", { name: "notes", description: "Keeps notes." });
    expect(created.status).toBe(201);
    const hash = created.body.hash as string;
    const enabled = await api.request("PUT", "/api/skills/notes/enabled", { enabled: true, hash });
    expect(enabled.status).toBe(200);
    expect(enabled.body).toMatchObject({ name: "notes", enabled: true, hash });
    const shown = await api.request("GET", "/api/skills/notes");
    expect(shown.body.decision).toMatchObject({ decision: "registered", source: "store" });

    const disabled = await api.request("PUT", "/api/skills/notes/enabled", { enabled: false });
    expect(disabled.body).toMatchObject({ enabled: false });

    const copy = await api.request("POST", "/api/skills/json-tools/duplicate", { to: "my-json" });
    expect(copy.status).toBe(201);
    expect(copy.body).toMatchObject({ name: "my-json", source: "owner", enabled: false });
    const copied = await api.request("GET", "/api/skills/my-json/files/SKILL.md");
    expect(copied.body.content).toMatch(/^name: my-json$/m);

    const deleted = await api.request("DELETE", `/api/skills/notes?hash=${hash}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ name: "notes", deleted: true });
    expect((await api.request("GET", "/api/skills/notes")).status).toBe(404);

    expect(api.events.map((event) => `${event.type} ${"name" in event ? event.name : ""}`)).toEqual([
      "skill-changed notes",
      "skill-changed notes",
      "skill-changed notes",
      "skill-changed my-json",
      "skill-deleted notes",
    ]);
  });

  it("the OpenAPI document lists every route of this module with its plain path parameters", async () => {
    const api = await startApi();
    const document = await api.request("GET", "/api/openapi.json");
    const paths = document.body.paths as Record<string, Record<string, unknown>>;
    expect(Object.keys(paths["/skills"] ?? {}).sort()).toEqual(["get", "post"]);
    expect(Object.keys(paths["/skills/{name}"] ?? {}).sort()).toEqual(["delete", "get"]);
    expect(Object.keys(paths["/skills/{name}/files/{path}"] ?? {}).sort()).toEqual(["delete", "get", "put"]);
    expect(Object.keys(paths["/skills/{name}/enabled"] ?? {})).toEqual(["put"]);
    expect(Object.keys(paths["/skills/{name}/duplicate"] ?? {})).toEqual(["post"]);
    expect(Object.keys(paths["/skills/import"] ?? {})).toEqual(["post"]);
    expect(Object.keys(paths["/skills/import/github"] ?? {})).toEqual(["post"]);
    expect(Object.keys(paths).some((path) => path.includes(".+"))).toBe(false);
  });
});

describe("the files routes", () => {
  it("reads, writes and removes files at nested paths; a binary file comes back as base64", async () => {
    const api = await startApi();
    const created = await api.request("POST", "/api/skills", {
      name: "demo",
      description: "A demo.",
      files: { "scripts/lib/util.py": "X = 1\n" },
    });
    const read = await api.request("GET", "/api/skills/demo/files/scripts/lib/util.py");
    expect(read.body).toEqual({
      name: "demo",
      path: "scripts/lib/util.py",
      size: 6,
      encoding: "utf8",
      content: "X = 1\n",
      hash: created.body.hash,
    });
    const written = await api.request("PUT", "/api/skills/demo/files/scripts/lib/util.py", {
      content: "X = 2\n",
      hash: created.body.hash,
    });
    expect(written.status).toBe(200);
    expect(readFileSync(join(api.data, "skills", "demo", "scripts", "lib", "util.py"), "utf8")).toBe(
      "X = 2\n",
    );
    const added = await api.request("PUT", "/api/skills/demo/files/references/notes.md", {
      content: "# Notes\n",
    });
    expect(added.status).toBe(200);
    const removed = await api.request(
      "DELETE",
      `/api/skills/demo/files/references/notes.md?hash=${added.body.hash}`,
    );
    expect(removed.status).toBe(200);
    expect((await api.request("GET", "/api/skills/demo/files/references/notes.md")).body.error?.code).toBe(
      "not_found",
    );

    const { writeFileSync } = await import("node:fs");
    writeFileSync(
      join(api.data, "skills", "demo", "scripts", "lib", "blob.bin"),
      Buffer.from([0, 1, 2, 255]),
    );
    const binary = await api.request("GET", "/api/skills/demo/files/scripts/lib/blob.bin");
    expect(binary.body).toMatchObject({
      encoding: "base64",
      content: Buffer.from([0, 1, 2, 255]).toString("base64"),
    });
  });

  it("a broken script is refused with the checker's diagnostics on their lines, and nothing is written", async () => {
    const api = await startApi();
    await api.request("POST", "/api/skills", {
      name: "demo",
      description: "A demo.",
      files: { "scripts/run.py": "print(1)\n" },
    });
    const refused = await api.request("PUT", "/api/skills/demo/files/scripts/run.py", {
      content: "print(1)\ndef broken(:\n",
    });
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatchObject({
      code: "script_check_failed",
      data: { problems: [{ file: "scripts/run.py", line: 2 }] },
    });
    expect(readFileSync(join(api.data, "skills", "demo", "scripts", "run.py"), "utf8")).toBe("print(1)\n");
  });

  it("an edit that breaks parameters_schema or the front matter is refused with the reason, and nothing is written", async () => {
    const api = await startApi();
    await api.request("POST", "/api/skills", { name: "disk-report", files: { "SKILL.md": DISK_SKILL } });
    const broken = DISK_SKILL.replace("type: object\n      properties", "type: string\n      properties");
    const schema = await api.request("PUT", "/api/skills/disk-report/files/SKILL.md", { content: broken });
    expect(schema.status).toBe(400);
    expect(schema.body.error).toMatchObject({
      code: "skill_invalid",
      data: {
        diagnostics: [
          expect.objectContaining({ message: expect.stringContaining('must have "type": "object"') }),
        ],
      },
    });
    const unterminated = await api.request("PUT", "/api/skills/disk-report/files/SKILL.md", {
      content: "---\nname: disk-report\ndescription: x\n",
    });
    expect(unterminated.body.error).toMatchObject({
      code: "skill_invalid",
      data: { diagnostics: [expect.objectContaining({ code: "unterminated_front_matter" })] },
    });
    const renamed = await api.request("PUT", "/api/skills/disk-report/files/SKILL.md", {
      content: DISK_SKILL.replace("name: disk-report", "name: other-name"),
    });
    expect(renamed.body.error?.code).toBe("skill_invalid");
    expect(readFileSync(join(api.data, "skills", "disk-report", "SKILL.md"), "utf8")).toBe(DISK_SKILL);
  });

  it("an owner's edit of an assistant's draft stamps skillgate.last-edit in its SKILL.md", async () => {
    const api = await startApi();
    const { draftSkill } = await import("../../../src/store/drafts/index.js");
    await draftSkill(api.context.store, {
      name: "drafted",
      description: "Drafted by the assistant.",
      body: "# Drafted\n",
      files: { "scripts/run.py": "print(1)\n" },
      sourceChats: ["chat-1"],
      rationale: "Asked twice.",
    });
    const listed = await api.request("GET", "/api/skills");
    expect(
      (listed.body.skills as Record<string, unknown>[]).find((skill) => skill.name === "drafted"),
    ).toMatchObject({
      source: "assistant",
      author: "assistant",
    });
    const written = await api.request("PUT", "/api/skills/drafted/files/scripts/run.py", {
      content: "print(2)\n",
    });
    expect(written.status).toBe(200);
    const detail = await api.request("GET", "/api/skills/drafted");
    expect(detail.body.draft).toMatchObject({
      author: "assistant",
      sourceChats: ["chat-1"],
      lastEdit: expect.any(String),
    });
    expect(detail.body.locked).toBe(true);
  });
});
