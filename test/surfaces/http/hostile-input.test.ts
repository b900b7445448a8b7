import { request as httpRequest } from "node:http";
import { beforeAll, describe, expect, it } from "vitest";
import { type ApiServer, OWNER_HEADERS, startApi, treeListing } from "./api-harness.js";

/**
 * Hostile input for each route of the skills, files and import API: path traversal in the
 * file path, bad names, bad JSON. Requests are sent byte for byte (no client normalises the
 * path), each answer has its exact status and code, and the data folder is unchanged.
 */

interface HostileCase {
  readonly what: string;
  readonly method: string;
  /** Sent as is after `/api`. */
  readonly path: string;
  readonly body?: string;
  readonly contentType?: string;
  readonly status: number;
  /** The error code; undefined where the router itself answers (no such route). */
  readonly code?: string;
}

const json = (value: unknown) => JSON.stringify(value);
const put = (path: string, content = "x\n") => ({ method: "PUT", path, body: json({ content }) });
const FILES = "/skills/demo/files";

const CASES: readonly HostileCase[] = [
  // Path traversal and other spellings in *path.
  {
    what: "encoded ../ segments",
    ...put(`${FILES}/..%2F..%2Findex.json`),
    status: 400,
    code: "path_not_allowed",
  },
  {
    what: "../ inside the path",
    ...put(`${FILES}/scripts%2F..%2F..%2Fbase%2FSKILL.md`),
    status: 400,
    code: "path_not_allowed",
  },
  {
    what: "an encoded absolute path",
    ...put(`${FILES}/%2Fetc%2Fpasswd`),
    status: 400,
    code: "path_not_allowed",
  },
  { what: "a backslash", ...put(`${FILES}/scripts%5C..%5Cx.py`), status: 400, code: "path_not_allowed" },
  { what: "a NUL", ...put(`${FILES}/scripts/a%00.py`), status: 400, code: "path_not_allowed" },
  { what: "a control character", ...put(`${FILES}/scripts/a%1B.py`), status: 400, code: "path_not_allowed" },
  { what: "a hidden segment", ...put(`${FILES}/.git/config`), status: 400, code: "path_not_allowed" },
  { what: "a drive letter", ...put(`${FILES}/C:%2Fx.md`), status: 400, code: "path_not_allowed" },
  { what: "a segment ending in a dot", ...put(`${FILES}/notes.`), status: 400, code: "path_not_allowed" },
  { what: "an empty segment", ...put(`${FILES}/scripts//a.py`), status: 400, code: "path_not_allowed" },
  {
    what: "a segment over 255 bytes",
    ...put(`${FILES}/${"a".repeat(256)}`),
    status: 400,
    code: "path_not_allowed",
  },
  { what: "text not in NFC", ...put(`${FILES}/e%CC%81.md`), status: 400, code: "path_not_allowed" },
  {
    what: "SKILL.md spelt in another case",
    ...put(`${FILES}/SKILL.MD`),
    status: 400,
    code: "path_not_allowed",
  },
  {
    what: "reading through ..",
    method: "GET",
    path: `${FILES}/..%2F..%2Findex.json`,
    status: 400,
    code: "path_not_allowed",
  },
  {
    what: "removing through ..",
    method: "DELETE",
    path: `${FILES}/..%2Fbase%2FSKILL.md`,
    status: 400,
    code: "path_not_allowed",
  },
  {
    what: "removing SKILL.md",
    method: "DELETE",
    path: `${FILES}/SKILL.md`,
    status: 400,
    code: "skill_invalid",
  },
  // A raw ../ is resolved by URL parsing before routing: it reaches no file route at all.
  { what: "a raw ../ in the address", ...put(`${FILES}/../../../index.json`), status: 404 },
  // Bad names.
  { what: "a name with ..", method: "GET", path: "/skills/..%2F..", status: 400, code: "invalid_skill_name" },
  {
    what: "a name in capitals",
    method: "GET",
    path: "/skills/Demo",
    status: 400,
    code: "invalid_skill_name",
  },
  {
    what: "a name with a leading hyphen",
    method: "DELETE",
    path: "/skills/-demo",
    status: 400,
    code: "invalid_skill_name",
  },
  {
    what: "a name with a double hyphen",
    ...put("/skills/a--b/files/x.md"),
    status: 400,
    code: "invalid_skill_name",
  },
  {
    what: "a name of 65 characters",
    method: "GET",
    path: `/skills/${"a".repeat(65)}`,
    status: 400,
    code: "invalid_skill_name",
  },
  {
    what: "creating a bad name",
    method: "POST",
    path: "/skills",
    body: json({ name: "Bad Name", description: "x" }),
    status: 400,
    code: "invalid_skill_name",
  },
  {
    what: "duplicating onto a bad name",
    method: "POST",
    path: "/skills/base/duplicate",
    body: json({ to: "../x" }),
    status: 400,
    code: "invalid_skill_name",
  },
  {
    what: "enabling a bad name",
    method: "PUT",
    path: "/skills/a_b/enabled",
    body: json({ enabled: false }),
    status: 400,
    code: "invalid_skill_name",
  },
  // Files of a new skill.
  {
    what: "creating with a file outside the skill",
    method: "POST",
    path: "/skills",
    body: json({ name: "fresh", description: "x", files: { "../../x.md": "x" } }),
    status: 400,
    code: "path_not_allowed",
  },
  {
    what: "creating with a NUL in a file",
    method: "POST",
    path: "/skills",
    body: json({ name: "fresh", description: "x", files: { "a.md": "a\u0000b" } }),
    status: 400,
    code: "path_not_allowed",
  },
  {
    what: "creating with a file that is not text",
    method: "POST",
    path: "/skills",
    body: json({ name: "fresh", description: "x", files: { "a.md": 5 } }),
    status: 400,
    code: "invalid_argument",
  },
  {
    what: "creating without a description",
    method: "POST",
    path: "/skills",
    body: json({ name: "fresh" }),
    status: 400,
    code: "skill_invalid",
  },
  // Bad JSON.
  {
    what: "JSON that does not parse",
    method: "POST",
    path: "/skills",
    body: '{"name": ',
    status: 400,
    code: "invalid_json",
  },
  {
    what: "a JSON array",
    method: "POST",
    path: "/skills",
    body: "[]",
    status: 400,
    code: "invalid_argument",
  },
  {
    what: "a body that is not JSON",
    method: "POST",
    path: "/skills",
    body: "name=x",
    contentType: "text/plain",
    status: 415,
    code: "unsupported_media_type",
  },
  {
    what: "no body where one is needed",
    method: "PUT",
    path: "/skills/demo/enabled",
    status: 400,
    code: "invalid_argument",
  },
  {
    what: "enabled as text",
    method: "PUT",
    path: "/skills/demo/enabled",
    body: json({ enabled: "yes", hash: "0".repeat(64) }),
    status: 400,
    code: "invalid_argument",
  },
  {
    what: "enabling without a hash",
    method: "PUT",
    path: "/skills/demo/enabled",
    body: json({ enabled: true }),
    status: 400,
    code: "invalid_argument",
  },
  {
    what: "enabling with a hash in capitals",
    method: "PUT",
    path: "/skills/demo/enabled",
    body: json({ enabled: true, hash: "A".repeat(64) }),
    status: 400,
    code: "invalid_argument",
  },
  {
    what: "a file write without content",
    method: "PUT",
    path: `${FILES}/x.md`,
    body: json({ text: "x" }),
    status: 400,
    code: "invalid_argument",
  },
  {
    what: "a delete with a short hash",
    method: "DELETE",
    path: "/skills/demo?hash=abcd",
    status: 400,
    code: "invalid_argument",
  },
  {
    what: "an import with replace=maybe",
    method: "POST",
    path: "/skills/import?replace=maybe",
    body: "PK",
    contentType: "application/zip",
    status: 400,
    code: "invalid_argument",
  },
  {
    what: "an import as JSON",
    method: "POST",
    path: "/skills/import",
    body: "{}",
    contentType: "application/json",
    status: 400,
    code: "invalid_zip",
  },
  {
    what: "a GitHub import without a url",
    method: "POST",
    path: "/skills/import/github",
    body: json({}),
    status: 400,
    code: "invalid_argument",
  },
  {
    what: "a GitHub url that is a number",
    method: "POST",
    path: "/skills/import/github",
    body: json({ url: 5 }),
    status: 400,
    code: "invalid_argument",
  },
  {
    what: "a GitHub url with an encoded ..",
    method: "POST",
    path: "/skills/import/github",
    body: json({ url: "https://github.com/o/r/tree/main/%2e%2e" }),
    status: 400,
    code: "invalid_github_url",
  },
  {
    what: "a GitHub url with a port",
    method: "POST",
    path: "/skills/import/github",
    body: json({ url: "https://github.com:8443/o/r/tree/main/x" }),
    status: 400,
    code: "invalid_github_url",
  },
];

/** Sends a request exactly as given (the path byte for byte). */
function raw(api: ApiServer, entry: HostileCase): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const { port } = new URL(api.url);
    const body = entry.body === undefined ? undefined : Buffer.from(entry.body);
    const request = httpRequest({
      host: "127.0.0.1",
      port,
      method: entry.method,
      path: `/api${entry.path}`,
      headers: {
        ...OWNER_HEADERS,
        ...(body !== undefined
          ? { "content-type": entry.contentType ?? "application/json", "content-length": body.length }
          : {}),
      },
    });
    request.on("response", (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        text += chunk;
      });
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body: text }));
    });
    request.on("error", reject);
    request.end(body);
  });
}

describe("hostile input to the skills, files and import routes", () => {
  let api: ApiServer;
  beforeAll(async () => {
    api = await startApi({ lifetime: "file" });
    for (const name of ["demo", "base"])
      expect((await api.request("POST", "/api/skills", { name, description: `The ${name}.` })).status).toBe(
        201,
      );
  });

  for (const entry of CASES) {
    it(`${entry.method} ${entry.what}: ${entry.status}${entry.code ? ` ${entry.code}` : ""}`, async () => {
      const before = treeListing(api.data);
      const answer = await raw(api, entry);
      expect(answer.status).toBe(entry.status);
      if (entry.code !== undefined) expect(JSON.parse(answer.body).error.code).toBe(entry.code);
      expect(treeListing(api.data)).toEqual(before);
    });
  }

  it("a __proto__ key in a body pollutes nothing", async () => {
    const answer = await raw(api, {
      what: "prototype",
      method: "POST",
      path: "/skills",
      body: '{"name": "proto", "description": "x", "__proto__": {"polluted": true}, "files": {"__proto__": "x"}}',
      status: 0,
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect([201, 400]).toContain(answer.status);
  });
});
