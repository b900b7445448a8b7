import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { tryLock } from "../../../src/core/file-lock.js";
import { STORE_HTTP_STATUS } from "../../../src/store/errors.js";
import { handmadeZip, unixAttributes } from "../../store/import/handmade-zip.js";
import { type ApiAnswer, type ApiServer, startApi, treeListing } from "./api-harness.js";

/**
 * Every store refusal the skills, files and import routes can meet, reached over real HTTP
 * with its exact status from STORE_HTTP_STATUS, and the data folder byte-for-byte unchanged.
 * (draft_locked and the draft and plan codes are the assistant's and the review routes'.)
 */

const KIB = 1024;
const skillFile = (name: string, metadata = "") =>
  `---\nname: ${name}\ndescription: A skill for refusal tests.\n${metadata ? `metadata:\n${metadata}` : ""}---\n\n# ${name}\n`;

interface RefusalCase {
  readonly code: keyof typeof STORE_HTTP_STATUS;
  readonly why: string;
  readonly send: (api: ApiServer, demoHash: string, earlierHash: string) => Promise<ApiAnswer>;
}

const put = (api: ApiServer, path: string, body: unknown) => api.request("PUT", path, body);

const CASES: readonly RefusalCase[] = [
  {
    code: "invalid_skill_name",
    why: "a name with capitals",
    send: (api) => api.request("GET", "/api/skills/Bad_Name"),
  },
  { code: "not_found", why: "no such skill", send: (api) => api.request("GET", "/api/skills/nope") },
  {
    code: "not_found",
    why: "no such file",
    send: (api) => api.request("GET", "/api/skills/demo/files/scripts/missing.py"),
  },
  {
    code: "path_not_allowed",
    why: "a hidden file",
    send: (api) => put(api, "/api/skills/demo/files/.env", { content: "X=1\n" }),
  },
  {
    code: "builtin_read_only",
    why: "a write to a built-in",
    send: (api) => put(api, "/api/skills/json-tools/files/scripts/x.py", { content: "print(1)\n" }),
  },
  {
    code: "skill_exists",
    why: "a taken name",
    send: (api) => api.request("POST", "/api/skills", { name: "demo", description: "Again." }),
  },
  {
    code: "invalid_argument",
    why: "enabling with an 8-hex prefix",
    send: (api, hash) => put(api, "/api/skills/demo/enabled", { enabled: true, hash: hash.slice(0, 8) }),
  },
  {
    code: "unknown_hash",
    why: "enabling with a hash the skill never had",
    send: (api) => put(api, "/api/skills/demo/enabled", { enabled: true, hash: "0".repeat(64) }),
  },
  {
    code: "skill_changed",
    why: "enabling with the hash of an earlier version",
    send: (api, _hash, earlier) => put(api, "/api/skills/demo/enabled", { enabled: true, hash: earlier }),
  },
  {
    code: "skill_changed",
    why: "a file write conditional on an earlier hash",
    send: (api, _hash, earlier) =>
      put(api, "/api/skills/demo/files/scripts/run.py", { content: "x = 1\n", hash: earlier }),
  },
  {
    code: "skill_invalid",
    why: "a SKILL.md whose parameters_schema is not an object schema",
    send: (api) =>
      put(api, "/api/skills/demo/files/SKILL.md", {
        content: skillFile("demo", '  parameters_schema: \'{"type": "string"}\'\n'),
      }),
  },
  {
    code: "skill_invalid",
    why: "a SKILL.md whose front matter never ends",
    send: (api) =>
      put(api, "/api/skills/demo/files/SKILL.md", { content: "---\nname: demo\ndescription: x\n" }),
  },
  {
    code: "script_check_failed",
    why: "a script that does not parse",
    send: (api) => put(api, "/api/skills/demo/files/scripts/run.py", { content: "def (:\n" }),
  },
  {
    code: "file_too_large",
    why: "a text file over 256 KiB",
    send: (api) =>
      put(api, "/api/skills/demo/files/references/big.md", { content: "a".repeat(256 * KIB + 1) }),
  },
  {
    code: "too_many_files",
    why: "a new skill of 201 files",
    send: (api) =>
      api.request("POST", "/api/skills", {
        name: "many",
        description: "Many files.",
        files: Object.fromEntries(
          Array.from({ length: 200 }, (_, index) => [`references/${index}.md`, "x\n"]),
        ),
      }),
  },
  {
    code: "skill_too_large",
    why: "a new skill of more than 5 MiB",
    send: (api) =>
      api.request("POST", "/api/skills", {
        name: "huge",
        description: "Too big.",
        files: Object.fromEntries(
          Array.from({ length: 21 }, (_, index) => [`references/${index}.md`, "b".repeat(250 * KIB)]),
        ),
      }),
  },
  {
    code: "too_many_domains",
    why: "a SKILL.md allowing 51 hosts",
    send: (api) =>
      put(api, "/api/skills/demo/files/SKILL.md", {
        content: skillFile(
          "demo",
          `  skillgate.allowed-domains: [${Array.from({ length: 51 }, (_, index) => `h${index}.example`).join(", ")}]\n`,
        ),
      }),
  },
  {
    code: "zip_too_large",
    why: "a zip body over 5 MiB",
    send: (api) =>
      api.request("POST", "/api/skills/import", new Uint8Array(5 * KIB * KIB + 1), {
        "content-type": "application/zip",
      }),
  },
  {
    code: "symlink_not_allowed",
    why: "a zip holding a symbolic link",
    send: (api) =>
      api.request(
        "POST",
        "/api/skills/import",
        new Uint8Array(
          handmadeZip([
            { name: "SKILL.md", data: Buffer.from(skillFile("linked")) },
            {
              name: "scripts/link",
              data: Buffer.from("/etc/passwd"),
              externalAttributes: unixAttributes(0o120777),
            },
          ]),
        ),
        { "content-type": "application/zip" },
      ),
  },
];

describe("store refusals over HTTP: each code with its status, and nothing written", () => {
  let api: ApiServer;
  let demoHash = "";
  let earlierHash = "";
  beforeAll(async () => {
    api = await startApi({ lifetime: "file" });
    const first = await api.request("POST", "/api/skills", {
      name: "demo",
      description: "The demo.",
      files: { "scripts/run.py": "print(1)\n" },
    });
    earlierHash = first.body.hash as string;
    const second = await api.request("PUT", "/api/skills/demo/files/scripts/run.py", {
      content: "print(2)\n",
    });
    demoHash = second.body.hash as string;
  });

  for (const [index, refusal] of CASES.entries()) {
    it(`${refusal.code} (${STORE_HTTP_STATUS[refusal.code]}): ${refusal.why} [${index}]`, async () => {
      const before = treeListing(api.data);
      const answer = await refusal.send(api, demoHash, earlierHash);
      expect(answer.body.error?.code).toBe(refusal.code);
      expect(answer.status).toBe(STORE_HTTP_STATUS[refusal.code]);
      expect(treeListing(api.data)).toEqual(before);
    });
  }
});

describe("store refusals that need a store in a particular state", () => {
  it("too_many_skills (413): creating, duplicating or importing past 200 stored skills", async () => {
    const api = await startApi();
    for (let index = 0; index < 200; index++)
      await api.context.store.create(`skill-${index}`, { "SKILL.md": skillFile(`skill-${index}`) });
    const before = treeListing(api.data);
    const created = await api.request("POST", "/api/skills", { name: "one-more", description: "Too many." });
    expect(created.status).toBe(413);
    expect(created.body.error?.code).toBe("too_many_skills");
    const copied = await api.request("POST", "/api/skills/json-tools/duplicate", { to: "one-more" });
    expect(copied.body.error?.code).toBe("too_many_skills");
    expect(treeListing(api.data)).toEqual(before);
    const listed = await api.request("GET", "/api/skills");
    expect((listed.body.skills as unknown[]).length).toBeGreaterThan(200);
  });

  it("store_corrupt (500): an index.json edited into something else", async () => {
    const api = await startApi();
    writeFileSync(join(api.data, "skills", "index.json"), "[1, 2, 3]\n");
    const before = treeListing(api.data);
    for (const answer of [
      await api.request("GET", "/api/skills"),
      await api.request("POST", "/api/skills", { name: "fresh", description: "New." }),
    ]) {
      expect(answer.status).toBe(500);
      expect(answer.body.error?.code).toBe("store_corrupt");
    }
    expect(treeListing(api.data)).toEqual(before);
  });

  it("store_busy (503): another holder keeps the store's lock past the wait", async () => {
    const api = await startApi({ lockWaitMs: 1_500 });
    const created = await api.request("POST", "/api/skills", { name: "demo", description: "The demo." });
    const held = tryLock(join(api.data, "skills", ".lock"), { staleMs: 600_000 });
    expect(held).toBeDefined();
    try {
      const answer = await api.request("PUT", "/api/skills/demo/enabled", {
        enabled: true,
        hash: created.body.hash,
      });
      expect(answer.status).toBe(503);
      expect(answer.body.error?.code).toBe("store_busy");
    } finally {
      held?.release();
    }
    const after = await api.request("GET", "/api/skills/demo");
    expect(after.body.enabled).toBe(false);
  });
});
