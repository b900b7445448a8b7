import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { importGithubFolder } from "../../../src/store/import/github-import.js";
import { type ImportErrorCode, isImportRefusal } from "../../../src/store/import/import-errors.js";
import { DEFAULT_IMPORT_LIMITS } from "../../../src/store/import/limits.js";
import { eventually } from "../../helpers/eventually.js";
import {
  type FakeGithub,
  type FakeRepository,
  type Fault,
  startFakeGithub,
} from "../../helpers/fake-github.js";
import { emptyTarget, hexText, listTree, removeTargets, SKILL_MD } from "./zip-fixtures.js";

const SCRIPT = "#!/usr/bin/env python3\nprint('hello')\n";
const BINARY = Buffer.from([0, 1, 2, 255, 254, 10, 13]);
const repository: FakeRepository = {
  owner: "octo",
  repo: "skills",
  ref: "main",
  files: {
    "README.md": "# Many skills\n",
    "skills/demo/SKILL.md": SKILL_MD,
    "skills/demo/scripts/hello.py": SCRIPT,
    "skills/demo/assets/logo.bin": BINARY,
    "skills/demo/references/deep/more/notes.md": "notes\n",
    "skills/other/SKILL.md": SKILL_MD,
  },
};
const DEMO = "https://github.com/octo/skills/tree/main/skills/demo";

const servers: FakeGithub[] = [];
async function fake(
  files: FakeRepository["files"] = repository.files,
  faults: Fault[] = [],
): Promise<FakeGithub> {
  const server = await startFakeGithub({ ...repository, files }, faults);
  servers.push(server);
  return server;
}
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});
afterAll(removeTargets);

/** Imports and returns the refusal code, checking the target and its parent are untouched. */
async function refusal(
  server: FakeGithub,
  options: Parameters<typeof importGithubFolder>[2] = {},
  url = DEMO,
): Promise<{ code: ImportErrorCode | undefined; error: unknown }> {
  const { root, target } = await emptyTarget();
  const error = await importGithubFolder(url, target, { apiBaseUrl: server.baseUrl, ...options }).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(await listTree(root)).toEqual(["target"]);
  return { code: isImportRefusal(error) ? error.code : undefined, error };
}

describe("importGithubFolder over real HTTP", () => {
  it("imports a folder with nested folders, byte for byte", async () => {
    const server = await fake();
    const { target } = await emptyTarget();
    const result = await importGithubFolder(DEMO, target, {
      apiBaseUrl: server.baseUrl,
      token: "secret-token",
    });
    expect(result.files).toEqual([
      "SKILL.md",
      "assets/logo.bin",
      "references/deep/more/notes.md",
      "scripts/hello.py",
    ]);
    expect(await readFile(join(target, "SKILL.md"), "utf8")).toBe(SKILL_MD);
    expect(await readFile(join(target, "scripts/hello.py"), "utf8")).toBe(SCRIPT);
    expect((await readFile(join(target, "assets/logo.bin"))).equals(BINARY)).toBe(true);
    expect((await stat(join(target, "SKILL.md"))).mode & 0o777).toBe(0o644);
    // Listings are walked before any download, and every request is authenticated and named.
    const urls = server.requests.map((request) => request.url);
    expect(urls[0]).toBe("/repos/octo/skills/contents/skills/demo?ref=main");
    const firstRaw = server.requests.findIndex((request) => String(request.headers.accept).includes("raw"));
    expect(
      server.requests.slice(firstRaw).every((request) => String(request.headers.accept).includes("raw")),
    ).toBe(true);
    for (const request of server.requests) {
      expect(request.headers.authorization).toBe("Bearer secret-token");
      expect(request.headers["user-agent"]).toBe("skillgate");
    }
  });

  it("imports the repository root and sends no Authorization without a token", async () => {
    const server = await fake({ "SKILL.md": SKILL_MD, "a.txt": "a" });
    const { target } = await emptyTarget();
    await importGithubFolder("https://github.com/octo/skills/tree/main", target, {
      apiBaseUrl: server.baseUrl,
    });
    expect(await listTree(target)).toEqual(["SKILL.md", "a.txt"]);
    expect(server.requests[0]?.url).toBe("/repos/octo/skills/contents?ref=main");
    expect(server.requests.every((request) => request.headers.authorization === undefined)).toBe(true);
  });

  it("refuses a non-tree address before any request", async () => {
    const server = await fake();
    const { code, error } = await refusal(
      server,
      {},
      "https://github.com/octo/skills/blob/main/skills/demo/SKILL.md",
    );
    expect(code).toBe("invalid_github_url");
    expect(String(error)).toContain("https://github.com/OWNER/REPO/tree/REF/PATH");
    expect(server.requests).toEqual([]);
  });

  const faultCases: { name: string; fault: Fault; code: ImportErrorCode }[] = [
    { name: "slow listing", fault: { kind: "slow" }, code: "github_timeout" },
    { name: "slow file", fault: { kind: "slow", on: "file" }, code: "github_timeout" },
    {
      name: "body trickles past the timeout",
      fault: { kind: "slow_body", on: "listing", delayMs: 200 },
      code: "github_timeout",
    },
    { name: "truncated listing", fault: { kind: "truncated", on: "listing" }, code: "github_truncated" },
    {
      name: "truncated file",
      fault: { kind: "truncated", on: "file", path: "skills/demo/SKILL.md" },
      code: "github_truncated",
    },
    {
      name: "oversize file answer",
      fault: { kind: "oversize", on: "file" },
      code: "github_response_too_large",
    },
    { name: "404", fault: { kind: "not_found" }, code: "github_not_found" },
    { name: "404 on a file", fault: { kind: "not_found", on: "file" }, code: "github_not_found" },
    { name: "403 rate limit", fault: { kind: "rate_limited" }, code: "github_rate_limited" },
    { name: "403 forbidden", fault: { kind: "forbidden" }, code: "github_forbidden" },
    { name: "500", fault: { kind: "server_error" }, code: "github_error" },
    {
      name: "HTML instead of a listing",
      fault: { kind: "wrong_content_type", on: "listing" },
      code: "github_bad_response",
    },
    {
      name: "HTML instead of a file",
      fault: { kind: "wrong_content_type", on: "file" },
      code: "github_bad_response",
    },
    { name: "redirect to another origin", fault: { kind: "redirect_elsewhere" }, code: "github_error" },
  ];

  it.each(faultCases)("$name → $code", async ({ fault, code }) => {
    const server = await fake(repository.files, [fault]);
    const result = await refusal(server, { requestTimeoutMs: 1500 });
    expect(result.code, String(result.error)).toBe(code);
  });

  it("gives the HTTP status and reset time of a rate limit", async () => {
    const server = await fake(repository.files, [{ kind: "rate_limited" }]);
    const { error } = await refusal(server);
    expect(isImportRefusal(error) && error.httpStatus).toBe(429);
    expect(isImportRefusal(error) && error.data.resetAt).toBe("2030-01-01T00:00:00.000Z");
  });

  it("refuses a listing larger than its cap", async () => {
    const server = await fake();
    expect((await refusal(server, { maxListingBytes: 200 })).code).toBe("github_response_too_large");
  });

  it("refuses a missing ref or folder as not found", async () => {
    const server = await fake();
    expect((await refusal(server, {}, "https://github.com/octo/skills/tree/nope/skills/demo")).code).toBe(
      "github_not_found",
    );
    expect((await refusal(server, {}, "https://github.com/octo/skills/tree/main/skills/none")).code).toBe(
      "github_not_found",
    );
  });

  it("refuses a file address as not a folder", async () => {
    const server = await fake();
    const { code } = await refusal(
      server,
      {},
      "https://github.com/octo/skills/tree/main/skills/demo/SKILL.md",
    );
    expect(code).toBe("not_a_folder");
  });

  it("refuses a folder without SKILL.md", async () => {
    const server = await fake({ "skills/demo/README.md": "no skill here" });
    expect((await refusal(server)).code).toBe("missing_skill_file");
  });

  it("counts files before downloading any", async () => {
    const files: Record<string, string> = { "skills/demo/SKILL.md": SKILL_MD };
    for (let index = 0; index < 200; index += 1) files[`skills/demo/f${index}.txt`] = "x";
    const server = await fake(files);
    expect((await refusal(server)).code).toBe("too_many_files");
    expect(server.requests.some((request) => String(request.headers.accept).includes("raw"))).toBe(false);
  });

  it("refuses an oversize file by its listed size without downloading it", async () => {
    const server = await fake({
      "skills/demo/SKILL.md": SKILL_MD,
      "skills/demo/big.txt": hexText(1024 * 1024 + 1),
    });
    expect((await refusal(server)).code).toBe("file_too_large");
    expect(server.requests.some((request) => String(request.headers.accept).includes("raw"))).toBe(false);
  });

  it("refuses a skill over the total limit", async () => {
    const server = await fake({ "skills/demo/SKILL.md": SKILL_MD, "skills/demo/a.txt": "a".repeat(600) });
    const limits = { ...DEFAULT_IMPORT_LIMITS, maxSkillBytes: 500 };
    expect((await refusal(server, { limits })).code).toBe("skill_too_large");
  });

  it("refuses a file whose body is larger than its listed size", async () => {
    const server = await fake();
    server.sizeOverrides = { "skills/demo/scripts/hello.py": 5 };
    expect((await refusal(server)).code).toBe("github_response_too_large");
  });

  it("refuses a file whose body is shorter than its listed size", async () => {
    const server = await fake();
    server.sizeOverrides = { "skills/demo/scripts/hello.py": SCRIPT.length + 10 };
    expect((await refusal(server)).code).toBe("github_truncated");
  });

  it("refuses a maze of empty folders", async () => {
    const files: Record<string, string> = { "skills/demo/SKILL.md": SKILL_MD };
    for (let index = 0; index < 6; index += 1) files[`skills/demo/d${index}/x/y`] = "";
    const server = await fake(files);
    const limits = { ...DEFAULT_IMPORT_LIMITS, maxFiles: 10 };
    expect((await refusal(server, { limits })).code).toBe("too_many_files");
  });

  const hostileItem = (name: string, path: string, type = "file"): unknown => ({
    name,
    path,
    type,
    size: 1,
    sha: "0",
  });
  const hostileListings: { name: string; items: unknown[]; code: ImportErrorCode }[] = [
    { name: "dot-dot name", items: [hostileItem("..", "skills/demo/..")], code: "path_not_allowed" },
    {
      name: "name with a slash",
      items: [hostileItem("../../etc/passwd", "skills/demo/../../etc/passwd")],
      code: "path_not_allowed",
    },
    {
      name: "name with a backslash",
      items: [hostileItem("..\\evil", "skills/demo/..\\evil")],
      code: "path_not_allowed",
    },
    {
      name: "path outside the folder",
      items: [hostileItem("evil.txt", "etc/evil.txt")],
      code: "path_not_allowed",
    },
    { name: "absolute path", items: [hostileItem("evil.txt", "/etc/evil.txt")], code: "path_not_allowed" },
    {
      name: "control character",
      items: [hostileItem("a\u0000b", "skills/demo/a\u0000b")],
      code: "path_not_allowed",
    },
    {
      name: "duplicate name",
      items: [hostileItem("SKILL.md", "skills/demo/SKILL.md")],
      code: "duplicate_entry",
    },
    {
      name: "symlink entry",
      items: [hostileItem("link", "skills/demo/link", "symlink")],
      code: "symlink_not_allowed",
    },
    {
      name: "submodule entry",
      items: [hostileItem("sub", "skills/demo/sub", "submodule")],
      code: "unsupported_entry",
    },
    {
      name: "entry without size",
      items: [{ name: "a", path: "skills/demo/a", type: "file" }],
      code: "github_bad_response",
    },
    { name: "entry that is not an object", items: ["SKILL.md"], code: "github_bad_response" },
  ];

  it.each(hostileListings)("refuses a listing with $name → $code", async ({ items, code }) => {
    const server = await fake();
    server.extraListing = { "skills/demo": items };
    expect((await refusal(server)).code).toBe(code);
  });

  it("refuses symlinks and submodules as GitHub lists them", async () => {
    const symlink = await fake({
      ...repository.files,
      "skills/demo/link": { special: "symlink", target: "/etc" },
    });
    expect((await refusal(symlink)).code).toBe("symlink_not_allowed");
    const submodule = await fake({ ...repository.files, "skills/demo/vendor": { special: "submodule" } });
    expect((await refusal(submodule)).code).toBe("unsupported_entry");
  });

  it("stops when the caller cancels", async () => {
    const server = await fake(repository.files, [{ kind: "slow" }]);
    const controller = new AbortController();
    const reason = new Error("cancelled by the owner");
    // Cancel once the import is waiting on GitHub's (slow) answer, not after a guessed delay.
    void eventually("the import reached GitHub", () => server.requests.length > 0).then(() =>
      controller.abort(reason),
    );
    const { error } = await refusal(server, { signal: controller.signal });
    expect(error).toBe(reason);
  });
});
