import { readFile, stat } from "node:fs/promises";
import { extname, join, normalize, sep } from "node:path";
import { Hono } from "hono";
import { html } from "hono/html";
import { packageRoot } from "../../core/package-root.js";

/** Where `npm run build` puts the web UI: `<package>/dist/ui`. */
export function defaultUiFolder(): string {
  return join(packageRoot(), "dist", "ui");
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".map": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".webp": "image/webp",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
  ".webmanifest": "application/manifest+json",
};

/** Paths that belong to the server, never to the UI's fallback. */
const SERVER_PATHS = /^\/(?:api|mcp|login)(?:\/|$)/;

/**
 * The built web UI at `/`: files of `uiFolder` by path (`assets/` are content-hashed by the
 * build, so they are cached for a year; everything else is revalidated), and `index.html` for
 * any other page path, so the UI's own routes load on a reload (SPA fallback). A path with a
 * file extension that is not there is 404. Without a build, every page is a 503 that says to
 * run `npm run build`. The UI is public (it holds no data); its API calls need the session.
 */
export function staticUiRoutes(uiFolder: string): Hono {
  const routes = new Hono();
  routes.on(["GET", "HEAD"], "*", async (c, next) => {
    const path = c.req.path;
    if (SERVER_PATHS.test(path)) return next();
    const file = await uiFile(uiFolder, path);
    if (file !== undefined) {
      c.header("Content-Type", CONTENT_TYPES[extname(file)] ?? "application/octet-stream");
      c.header(
        "Cache-Control",
        path.startsWith("/assets/") ? "public, max-age=31536000, immutable" : "no-cache",
      );
      return c.body(await readFile(file));
    }
    if (extname(path) !== "") return c.text("not found", 404);
    const index = join(uiFolder, "index.html");
    const page = await readFile(index).catch(() => undefined);
    if (page === undefined) return c.html(notBuiltPage(), 503);
    c.header("Cache-Control", "no-cache");
    return c.body(page, 200, { "Content-Type": CONTENT_TYPES[".html"] as string });
  });
  return routes;
}

/** The file a URL path names inside `folder`, when it is a regular file there. */
async function uiFile(folder: string, path: string): Promise<string | undefined> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return undefined;
  }
  if (decoded.includes("\0")) return undefined;
  const relative = normalize(decoded === "/" ? "/index.html" : decoded).replace(/^[/\\]+/, "");
  if (relative.startsWith("..") || relative.split(sep).includes("..")) return undefined;
  const file = join(folder, relative);
  if (file !== folder && !file.startsWith(folder + sep)) return undefined;
  const info = await stat(file).catch(() => undefined);
  return info?.isFile() === true ? file : undefined;
}

function notBuiltPage() {
  return html`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>skillgate: the web UI is not built</title></head>
<body>
<main>
<h1>The web UI is not built</h1>
<p>This package has no <code>dist/ui</code>. Run <code>npm run build</code> in the package folder, then reload this page.</p>
<p>The API (<code>/api</code>) and MCP (<code>/mcp</code>) work without it.</p>
</main>
</body>
</html>`;
}
