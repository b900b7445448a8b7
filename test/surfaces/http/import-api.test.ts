import { request as httpRequest } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeGithub, startFakeGithub } from "../../helpers/fake-github.js";
import { SKILL_MD, yazlZip } from "../../store/import/zip-fixtures.js";
import { OWNER_HEADERS, startApi, treeListing } from "./api-harness.js";

/**
 * The import routes over real HTTP (docs/http-api.md, "Import"): a zip body read as a bounded
 * stream, and a GitHub folder through the fake GitHub API (never the internet).
 */

const MIB = 1024 * 1024;
const servers: FakeGithub[] = [];
const savedApi = process.env.SKILLGATE_GITHUB_API;
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  if (savedApi === undefined) delete process.env.SKILLGATE_GITHUB_API;
  else process.env.SKILLGATE_GITHUB_API = savedApi;
});

interface StreamedUpload {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
  /** Body bytes the client had written when the answer's headers arrived. */
  readonly sentWhenAnswered: number;
}

/**
 * POSTs up to `total` bytes of zeros to `url` in 64 KiB chunks, a few milliseconds apart (a
 * slow client), and stops sending as soon as an answer arrives. `declareLength` sends a
 * Content-Length; otherwise the body is chunked and only its bytes can tell its size.
 */
function slowUpload(url: string, total: number, declareLength: boolean): Promise<StreamedUpload> {
  return new Promise((resolve, reject) => {
    const chunk = Buffer.alloc(64 * 1024);
    let sent = 0;
    let answered = false;
    const request = httpRequest(url, {
      method: "POST",
      headers: {
        ...OWNER_HEADERS,
        "content-type": "application/zip",
        ...(declareLength ? { "content-length": String(total) } : {}),
      },
    });
    request.on("response", (response) => {
      answered = true;
      const sentWhenAnswered = sent;
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (text: string) => {
        body += text;
      });
      response.on("end", () => {
        request.destroy();
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body, sentWhenAnswered });
      });
    });
    // Once answered, the server closes the connection; writes after that may fail, as expected.
    request.on("error", (error) => {
      if (!answered) reject(error);
    });
    const next = () => {
      if (answered || request.destroyed) return;
      if (sent >= total) {
        request.end();
        return;
      }
      const piece = chunk.subarray(0, Math.min(chunk.length, total - sent));
      sent += piece.length;
      const flushed = request.write(piece);
      if (flushed) setTimeout(next, 2);
      else request.once("drain", () => setTimeout(next, 2));
    };
    next();
  });
}

describe("POST /api/skills/import (a zip body)", () => {
  it("imports a zip as a disabled skill recording the file name, and publishes an event", async () => {
    const api = await startApi();
    const zip = await yazlZip({ "demo/SKILL.md": SKILL_MD, "demo/scripts/run.py": "print('hi')\n" });
    const answer = await api.request("POST", "/api/skills/import?filename=demo.zip", new Uint8Array(zip), {
      "content-type": "application/zip",
    });
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ name: "demo", source: "zip", enabled: false });
    const listed = await api.request("GET", "/api/skills");
    expect(
      (listed.body.skills as Record<string, unknown>[]).find((skill) => skill.name === "demo"),
    ).toMatchObject({
      source: "zip",
      origin: "demo.zip",
      author: "zip",
    });
    expect(api.events).toEqual([{ type: "skill-changed", name: "demo", revision: 1 }]);

    const again = await api.request("POST", "/api/skills/import", new Uint8Array(zip), {
      "content-type": "application/zip",
    });
    expect(again.status).toBe(409);
    expect(again.body.error?.code).toBe("skill_exists");
    const replaced = await api.request(
      "POST",
      "/api/skills/import?replace=true",
      new Uint8Array(await yazlZip({ "SKILL.md": SKILL_MD, "scripts/run.py": "print('new')\n" })),
      { "content-type": "application/octet-stream" },
    );
    expect(replaced.status).toBe(201);
    expect(replaced.body.hash).not.toBe(answer.body.hash);
  });

  it.each([
    ["not a zip", Buffer.from("plain text, not an archive"), 400, "invalid_zip"],
    ["an empty body", Buffer.alloc(0), 400, "invalid_zip"],
    ["a zip without SKILL.md", "no-skill", 422, "missing_skill_file"],
  ])("refuses %s with its code and writes nothing", async (_what, content, status, code) => {
    const api = await startApi();
    const body = content === "no-skill" ? await yazlZip({ "README.md": "# nothing\n" }) : (content as Buffer);
    const before = treeListing(api.data);
    const answer = await api.request("POST", "/api/skills/import", new Uint8Array(body), {
      "content-type": "application/zip",
    });
    expect(answer.status).toBe(status);
    expect(answer.body.error?.code).toBe(code);
    expect(treeListing(api.data)).toEqual(before);
  });

  it("answers 413 zip_too_large while a slow client is still sending a 50 MB body, and closes the connection", async () => {
    const api = await startApi();
    const before = treeListing(api.data);
    const upload = await slowUpload(`${api.url}/api/skills/import`, 50 * MIB, false);
    expect(upload.status).toBe(413);
    expect(JSON.parse(upload.body)).toMatchObject({
      error: { code: "zip_too_large", data: { limit: 5 * MIB } },
    });
    expect(upload.headers.connection).toBe("close");
    // The answer came once the limit was passed, long before the body would have ended.
    expect(upload.sentWhenAnswered).toBeGreaterThan(5 * MIB);
    expect(upload.sentWhenAnswered).toBeLessThan(50 * MIB);
    expect(treeListing(api.data)).toEqual(before);
    // The server is still there for the next client.
    expect((await api.request("GET", "/api/skills")).status).toBe(200);
  });

  it("answers 413 at once when the Content-Length already says more than the limit", async () => {
    const api = await startApi();
    const upload = await slowUpload(`${api.url}/api/skills/import`, 50 * MIB, true);
    expect(upload.status).toBe(413);
    expect(JSON.parse(upload.body).error.code).toBe("zip_too_large");
    expect(upload.sentWhenAnswered).toBeLessThan(50 * MIB);
  });
});

describe("POST /api/skills/import/github", () => {
  const repository = {
    owner: "octo",
    repo: "skills",
    ref: "main",
    files: { "skills/demo/SKILL.md": SKILL_MD, "skills/demo/scripts/run.py": "print('hi')\n" },
  };
  const url = "https://github.com/octo/skills/tree/main/skills/demo";

  it("imports a GitHub folder through the API root the environment names, saved disabled", async () => {
    const github = await startFakeGithub(repository);
    servers.push(github);
    process.env.SKILLGATE_GITHUB_API = github.baseUrl;
    const api = await startApi();
    const answer = await api.request("POST", "/api/skills/import/github", { url });
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ name: "demo", source: "github", enabled: false });
    expect(github.requests.length).toBeGreaterThan(0);
    const detail = await api.request("GET", "/api/skills/demo");
    expect(detail.body).toMatchObject({ origin: url, source: "github" });
    expect(api.events).toEqual([{ type: "skill-changed", name: "demo", revision: 1 }]);
  });

  it.each([
    [
      "an address that is not a GitHub folder",
      "https://gitlab.com/octo/skills/tree/main/x",
      [],
      400,
      "invalid_github_url",
    ],
    ["a local path", "/etc", [], 400, "invalid_github_url"],
    ["a folder GitHub does not have", url, [{ kind: "not_found" as const }], 404, "github_not_found"],
    ["GitHub's rate limit", url, [{ kind: "rate_limited" as const }], 429, "github_rate_limited"],
    ["GitHub failing", url, [{ kind: "server_error" as const }], 502, "github_error"],
  ])(
    "refuses %s with its status and code, and writes nothing",
    async (_what, address, faults, status, code) => {
      const github = await startFakeGithub(repository, faults);
      servers.push(github);
      process.env.SKILLGATE_GITHUB_API = github.baseUrl;
      const api = await startApi();
      const before = treeListing(api.data);
      const answer = await api.request("POST", "/api/skills/import/github", { url: address });
      expect(answer.status).toBe(status);
      expect(answer.body.error?.code).toBe(code);
      expect(treeListing(api.data)).toEqual(before);
    },
  );
});
