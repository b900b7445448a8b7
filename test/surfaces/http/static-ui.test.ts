import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { rawRequest, startTestServer } from "../../helpers/http-server.js";
import { makeTree } from "../../helpers/skill-tree.js";

/** The built UI at `/`: its files, the SPA fallback, what stays out of reach, and the page without a build. */

function builtUi(): string {
  const folder = join(makeTree("skillgate-ui-"), "ui");
  mkdirSync(join(folder, "assets"), { recursive: true });
  writeFileSync(
    join(folder, "index.html"),
    '<!doctype html><div id="root"></div><script type="module" src="/assets/app-1a2b.js"></script>',
  );
  writeFileSync(join(folder, "assets", "app-1a2b.js"), "console.log('ui');\n");
  writeFileSync(join(folder, "favicon.svg"), "<svg xmlns='http://www.w3.org/2000/svg'/>");
  writeFileSync(join(folder, "..", "secret.txt"), "outside the UI folder");
  return folder;
}

describe("the web UI at /", () => {
  it("serves index.html, hashed assets cached for a year, and index.html for the UI's own paths", async () => {
    const served = await startTestServer({ server: { uiFolder: builtUi() } });
    const { port } = served.server;
    const index = await rawRequest(port, "GET", "/");
    expect(index.status).toBe(200);
    expect(index.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(index.body).toContain('<div id="root">');
    expect(index.headers["cache-control"]).toBe("no-cache");
    const script = await rawRequest(port, "GET", "/assets/app-1a2b.js");
    expect(script.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(script.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect((await rawRequest(port, "GET", "/favicon.svg")).headers["content-type"]).toBe("image/svg+xml");
    for (const page of ["/skills/demo", "/review", "/skills/demo/files/scripts/run.py/edit"]) {
      const answer = await rawRequest(port, "GET", page);
      expect(answer.status, page).toBe(200);
      expect(answer.body).toContain('<div id="root">');
    }
  });

  it("answers 404 for a missing file and never serves outside the UI folder", async () => {
    const served = await startTestServer({ server: { uiFolder: builtUi() } });
    const { port } = served.server;
    for (const path of [
      "/assets/missing.js",
      "/%2e%2e/secret.txt",
      "/..%2fsecret.txt",
      "/assets/%2e%2e/%2e%2e/secret.txt",
    ]) {
      const answer = await rawRequest(port, "GET", path);
      expect(answer.body, path).not.toContain("outside the UI folder");
      expect(answer.status, path).toBe(404);
    }
  });

  it("says to run npm run build when there is no built UI, and the API still works", async () => {
    const served = await startTestServer({ server: { uiFolder: join(makeTree("skillgate-no-ui-"), "ui") } });
    const page = await rawRequest(served.server.port, "GET", "/");
    expect(page.status).toBe(503);
    expect(page.body).toContain("npm run build");
    expect((await served.fetch("/api/openapi.json")).status).toBe(200);
  });
});
