import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A fake GitHub REST API for tests, served over real HTTP on 127.0.0.1 and a free port.
 * It serves one repository at one ref through the contents endpoint, the way GitHub does:
 * `GET /repos/{owner}/{repo}/contents/{path}?ref={ref}` answers a folder with a JSON array
 * of entries, and a file with its raw bytes when the `Accept` header asks for `raw` (or a
 * JSON object with base64 content otherwise). Faults make it misbehave on chosen requests.
 */

/** A file's content, or a special entry the contents API can list. */
export type FakeEntry =
  | string
  | Buffer
  | { readonly special: "symlink" | "submodule"; readonly target?: string };

/** The repository the fake serves. */
export interface FakeRepository {
  readonly owner: string;
  readonly repo: string;
  readonly ref: string;
  /** Path inside the repository → content. Folders exist by implication. */
  readonly files: Readonly<Record<string, FakeEntry>>;
}

/** How a request can be made to fail. */
export type FaultKind =
  /** Wait `delayMs` (default: until the client gives up) before sending anything. */
  | "slow"
  /** Send headers and then the body a byte at a time, `delayMs` apart (default 50 ms). */
  | "slow_body"
  /** Promise the full Content-Length, send half the body, then drop the connection. */
  | "truncated"
  /** Send `extraBytes` (default 4096) more than the listing declared, without a Content-Length. */
  | "oversize"
  /** 404 with GitHub's JSON message. */
  | "not_found"
  /** 403 with `x-ratelimit-remaining: 0` and a reset time. */
  | "rate_limited"
  /** 403 without rate-limit headers. */
  | "forbidden"
  /** 500. */
  | "server_error"
  /** 200 with `text/html` instead of JSON or raw bytes. */
  | "wrong_content_type"
  /** 302 to another origin. */
  | "redirect_elsewhere";

/** A fault and the requests it applies to. */
export interface Fault {
  readonly kind: FaultKind;
  /** Folder listings, raw file downloads, or both (the default). */
  readonly on?: "listing" | "file" | "any";
  /** Only this repository path (exact); every path when absent. */
  readonly path?: string;
  readonly delayMs?: number;
  readonly extraBytes?: number;
}

/** A request the fake saw. */
export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage["headers"];
}

/** A running fake; mutate `faults`, `extraListing` and `sizeOverrides` between requests. */
export interface FakeGithub {
  /** `http://127.0.0.1:<port>`, to pass as `apiBaseUrl`. */
  readonly baseUrl: string;
  readonly requests: RecordedRequest[];
  faults: Fault[];
  /** Folder path → extra raw entries appended to its listing (hostile names, odd types). */
  extraListing: Record<string, unknown[]>;
  /** Repository path → the size the listing declares instead of the real one. */
  sizeOverrides: Record<string, number>;
  close(): Promise<void>;
}

/** Starts a fake GitHub API for `repository`. */
export async function startFakeGithub(repository: FakeRepository, faults: Fault[] = []): Promise<FakeGithub> {
  const timers = new Set<NodeJS.Timeout>();
  const state = {
    requests: [] as RecordedRequest[],
    faults,
    extraListing: {} as Record<string, unknown[]>,
    sizeOverrides: {} as Record<string, number>,
  };
  const later = (ms: number, action: () => void): void => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      action();
    }, ms);
    timers.add(timer);
  };
  const server = createServer((request, response) => {
    state.requests.push({ method: request.method ?? "", url: request.url ?? "", headers: request.headers });
    handle(repository, state, request, response, later, baseUrl);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    baseUrl,
    get requests() {
      return state.requests;
    },
    get faults() {
      return state.faults;
    },
    set faults(value: Fault[]) {
      state.faults = value;
    },
    get extraListing() {
      return state.extraListing;
    },
    set extraListing(value: Record<string, unknown[]>) {
      state.extraListing = value;
    },
    get sizeOverrides() {
      return state.sizeOverrides;
    },
    set sizeOverrides(value: Record<string, number>) {
      state.sizeOverrides = value;
    },
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface FakeState {
  faults: Fault[];
  extraListing: Record<string, unknown[]>;
  sizeOverrides: Record<string, number>;
}

function handle(
  repository: FakeRepository,
  state: FakeState,
  request: IncomingMessage,
  response: ServerResponse,
  later: (ms: number, action: () => void) => void,
  baseUrl: string,
): void {
  const url = new URL(request.url ?? "/", "http://fake");
  const prefix = `/repos/${repository.owner}/${repository.repo}/contents`;
  const pathname = decodeURIComponent(url.pathname);
  if (request.method !== "GET" || !(pathname === prefix || pathname.startsWith(`${prefix}/`))) {
    sendJson(response, 404, { message: "Not Found" });
    return;
  }
  if (url.searchParams.get("ref") !== repository.ref) {
    sendJson(response, 404, { message: `No commit found for the ref ${url.searchParams.get("ref")}` });
    return;
  }
  const path = pathname.slice(prefix.length).replace(/^\/+|\/+$/g, "");
  const wantsRaw = (request.headers.accept ?? "").includes("raw");
  const entry = repository.files[path];
  const isFile = entry !== undefined && (typeof entry === "string" || Buffer.isBuffer(entry));
  const isFolder =
    !isFile && (path === "" || Object.keys(repository.files).some((key) => key.startsWith(`${path}/`)));
  if (!isFile && !isFolder) {
    sendJson(response, 404, { message: "Not Found" });
    return;
  }
  const kind = isFile && wantsRaw ? "file" : "listing";
  const fault = state.faults.find(
    (candidate) =>
      ((candidate.on ?? "any") === "any" || candidate.on === kind) &&
      (candidate.path === undefined || candidate.path === path),
  );
  const body = isFile
    ? wantsRaw
      ? Buffer.from(entry as string | Buffer)
      : Buffer.from(JSON.stringify(fileObject(repository, path, entry as string | Buffer, baseUrl)))
    : Buffer.from(
        JSON.stringify([
          ...listFolder(repository, path, state, baseUrl),
          ...(state.extraListing[path] ?? []),
        ]),
      );
  const contentType =
    isFile && wantsRaw ? "application/vnd.github.raw+json; charset=utf-8" : "application/json; charset=utf-8";
  if (fault === undefined) send(response, 200, contentType, body);
  else applyFault(fault, response, contentType, body, later);
}

function applyFault(
  fault: Fault,
  response: ServerResponse,
  contentType: string,
  body: Buffer,
  later: (ms: number, action: () => void) => void,
): void {
  switch (fault.kind) {
    case "slow":
      // Without a delay the answer never comes; close() clears the timer either way.
      if (fault.delayMs !== undefined) later(fault.delayMs, () => send(response, 200, contentType, body));
      return;
    case "slow_body": {
      response.writeHead(200, { "content-type": contentType, "content-length": body.length });
      let index = 0;
      const step = (): void => {
        if (response.destroyed) return;
        if (index >= body.length) {
          response.end();
          return;
        }
        response.write(body.subarray(index, index + 1));
        index += 1;
        later(fault.delayMs ?? 50, step);
      };
      step();
      return;
    }
    case "truncated":
      response.writeHead(200, { "content-type": contentType, "content-length": body.length });
      response.write(body.subarray(0, Math.floor(body.length / 2)));
      later(20, () => response.socket?.destroy());
      return;
    case "oversize":
      response.writeHead(200, { "content-type": contentType });
      response.end(Buffer.concat([body, Buffer.alloc(fault.extraBytes ?? 4096, 0x41)]));
      return;
    case "not_found":
      sendJson(response, 404, { message: "Not Found" });
      return;
    case "rate_limited":
      response.setHeader("x-ratelimit-limit", "60");
      response.setHeader("x-ratelimit-remaining", "0");
      response.setHeader("x-ratelimit-reset", String(Math.floor(Date.UTC(2030, 0, 1) / 1000)));
      sendJson(response, 403, { message: "API rate limit exceeded" });
      return;
    case "forbidden":
      sendJson(response, 403, { message: "Resource not accessible" });
      return;
    case "server_error":
      sendJson(response, 500, { message: "Server Error" });
      return;
    case "wrong_content_type":
      send(response, 200, "text/html; charset=utf-8", Buffer.from("<html><body>Sign in</body></html>"));
      return;
    case "redirect_elsewhere":
      response.writeHead(302, { location: "http://127.0.0.2:9/elsewhere" });
      response.end();
      return;
  }
}

function listFolder(
  repository: FakeRepository,
  folder: string,
  state: FakeState,
  baseUrl: string,
): unknown[] {
  const prefix = folder === "" ? "" : `${folder}/`;
  const seen = new Map<string, unknown>();
  for (const [path, entry] of Object.entries(repository.files)) {
    if (!path.startsWith(prefix)) continue;
    const rest = path.slice(prefix.length);
    const name = rest.split("/")[0] ?? rest;
    const childPath = `${prefix}${name}`;
    if (seen.has(name)) continue;
    if (rest.includes("/")) {
      seen.set(name, item(repository, childPath, "dir", 0, baseUrl));
    } else if (typeof entry === "string" || Buffer.isBuffer(entry)) {
      const size = state.sizeOverrides[childPath] ?? Buffer.byteLength(entry);
      seen.set(name, item(repository, childPath, "file", size, baseUrl));
    } else if (entry.special === "symlink") {
      seen.set(name, item(repository, childPath, "symlink", (entry.target ?? "").length, baseUrl));
    } else {
      // GitHub lists a submodule as a "file" whose git_url points at a tree of another repository.
      seen.set(name, {
        ...(item(repository, childPath, "file", 0, baseUrl) as object),
        git_url: `${baseUrl}/repos/other/sub/git/trees/${sha(childPath)}`,
        download_url: null,
      });
    }
  }
  return [...seen.values()];
}

function item(
  repository: FakeRepository,
  path: string,
  type: string,
  size: number,
  baseUrl: string,
): unknown {
  const api = `${baseUrl}/repos/${repository.owner}/${repository.repo}/contents/${path}?ref=${repository.ref}`;
  return {
    name: path.split("/").pop(),
    path,
    sha: sha(path),
    size,
    type,
    url: api,
    html_url: `https://github.com/${repository.owner}/${repository.repo}/${type === "dir" ? "tree" : "blob"}/${repository.ref}/${path}`,
    git_url: `${baseUrl}/repos/${repository.owner}/${repository.repo}/git/${type === "dir" ? "trees" : "blobs"}/${sha(path)}`,
    download_url: type === "file" ? `${baseUrl}/raw/${path}` : null,
    _links: { self: api },
  };
}

function fileObject(
  repository: FakeRepository,
  path: string,
  content: string | Buffer,
  baseUrl: string,
): unknown {
  const bytes = Buffer.from(content);
  return {
    ...(item(repository, path, "file", bytes.length, baseUrl) as object),
    encoding: "base64",
    content: bytes.toString("base64"),
  };
}

function sha(text: string): string {
  return createHash("sha1").update(text).digest("hex");
}

function sendJson(response: ServerResponse, status: number, value: unknown): void {
  send(response, status, "application/json; charset=utf-8", Buffer.from(JSON.stringify(value)));
}

function send(response: ServerResponse, status: number, contentType: string, body: Buffer): void {
  if (response.destroyed) return;
  response.writeHead(status, { "content-type": contentType, "content-length": body.length });
  response.end(body);
}
