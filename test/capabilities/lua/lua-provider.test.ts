import { mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentInvokeRequest } from "../../../src/capabilities/lua/lua-host-api.js";
import { LuaCapabilityProvider } from "../../../src/capabilities/lua/lua-provider.js";
import { LuaRuntime } from "../../../src/capabilities/lua/lua-runtime.js";
import type { JsonValue } from "../../../src/core/safe-json.js";
import { fixtureLoader } from "../generations/reload-project.js";
import { testContext } from "./lua-test-context.js";

const FIXTURE = resolve("test/fixtures/capabilities/config-lint");
const MANIFEST = join(FIXTURE, "config/capabilities/config-lint-skill.yaml");
const providers: LuaCapabilityProvider[] = [];
afterEach(async () => {
  for (const provider of providers.splice(0)) await provider.retire(undefined);
});

async function providerFor(
  source: string | undefined,
  invokeAgent?: (request: AgentInvokeRequest) => Promise<JsonValue>,
) {
  const manifest = await fixtureLoader(FIXTURE)(MANIFEST);
  const runtime = await LuaRuntime.create({
    skill: manifest.descriptor.id,
    source: source ?? readFileSync(manifest.scriptPath, "utf8"),
    chunkName: "config_lint.lua",
    ...(invokeAgent === undefined ? {} : { invokeAgent: (request) => invokeAgent(request) }),
  });
  const provider = new LuaCapabilityProvider(
    manifest.descriptor,
    manifest.permissions,
    manifest.entry,
    runtime,
    1,
  );
  providers.push(provider);
  return provider;
}

function workspace(): string {
  const folder = mkdtempSync(join(tmpdir(), "lua-ws-"));
  writeFileSync(join(folder, "app.json"), JSON.stringify({ version: 1 }));
  return folder;
}

describe("the seed's Lua manifest and its invoke_agent call as a working fixture", () => {
  it("lints a workspace file and calls workflow.code_review through the pipeline hook", async () => {
    const requests: AgentInvokeRequest[] = [];
    const provider = await providerFor(undefined, async (request) => {
      requests.push(request);
      return { summary: "looks fine", findings: [] };
    });
    const folder = workspace();
    const context = testContext({ workspace: folder, permissions: provider.permissions });
    expect((await provider.healthCheck(context)).ok).toBe(true);
    const answer = await provider.invoke({ path: "app.json" }, context);
    expect(answer).toEqual({
      summary: "1 findings; review: looks fine",
      findings: [{ rule: "name", message: "name is missing" }],
    });
    expect(requests).toEqual([
      {
        capability: "workflow.code_review",
        provider: "code-review-skill",
        payload: { scope: "current_diff", severity: "major" },
        timeoutMs: 120000,
      },
    ]);
  });

  it("refuses a capability the manifest does not list with capability_not_allowed", async () => {
    const provider = await providerFor(
      `function invoke(ctx, p) return ctx.tools.invoke_agent({ capability = "shell.exec", payload = { cmd = "id" } }) end`,
      async () => ({}),
    );
    const context = testContext({ permissions: provider.permissions });
    await expect(provider.invoke({ path: "x" }, context)).rejects.toMatchObject({
      code: "capability_not_allowed",
    });
  });
});

describe("ctx.fs inside the effective roots", () => {
  it("Audit: Skill writes workspace through approved API → Touched paths recorded", async () => {
    const provider = await providerFor(
      `function invoke(ctx, p)
         local text = ctx.fs.read("app.json")
         ctx.fs.write("reports/lint.txt", "checked " .. #text .. " bytes")
         return { summary = "ok", findings = {} }
       end`,
    );
    const folder = workspace();
    const context = testContext({
      workspace: folder,
      permissions: { ...provider.permissions, fsWrite: ["workspace"] },
    });
    // The manifest grants no write root; the effective write roots are the narrower of call and provider.
    await expect(provider.invoke({ path: "app.json" }, context)).rejects.toMatchObject({
      code: "path_not_allowed",
    });
    expect(readdirSync(folder)).toEqual(["app.json"]);

    const writer = new LuaCapabilityProvider(
      provider.descriptor,
      { ...provider.permissions, fsWrite: ["workspace"] },
      { entry: "invoke" },
      provider.runtime,
      1,
    );
    const writing = testContext({ workspace: folder, permissions: writer.permissions });
    expect(await writer.invoke({ path: "app.json" }, writing)).toEqual({ summary: "ok", findings: [] });
    expect(readFileSync(join(folder, "reports/lint.txt"), "utf8")).toBe("checked 13 bytes");
    expect(writing.touchedPaths).toEqual([
      { path: join(folder, "app.json"), access: "read" },
      { path: join(folder, "reports/lint.txt"), access: "write" },
    ]);
  });

  const outside = mkdtempSync(join(tmpdir(), "lua-outside-"));
  writeFileSync(join(outside, "secret.txt"), "secret");
  it.each([
    ["a parent segment", "../secret.txt", "path_not_allowed"],
    ["a nested parent segment", "a/../../secret.txt", "path_not_allowed"],
    ["an absolute path outside the roots", join(outside, "secret.txt"), "path_not_allowed"],
    ["/etc/passwd", "/etc/passwd", "path_not_allowed"],
    ["a backslash", "..\\secret.txt", "path_not_allowed"],
    ["a NUL", "app\u0000.json", "path_not_allowed"],
    ["a symlink to a file outside", "link.txt", "symlink_not_allowed"],
    ["a symlinked folder", "linked/secret.txt", "symlink_not_allowed"],
    ["a missing file", "missing.txt", "not_found"],
    ["a folder", "sub", "path_not_allowed"],
    ["a file over the size limit", "big.txt", "file_too_large"],
  ])("ctx.fs.read refuses %s with %s, and writing it writes nothing", async (_label, path, code) => {
    const provider = await providerFor(
      `function invoke(ctx, p) if p.write then ctx.fs.write(p.path, "x") else ctx.fs.read(p.path) end return {} end`,
    );
    const folder = workspace();
    symlinkSync(join(outside, "secret.txt"), join(folder, "link.txt"));
    symlinkSync(outside, join(folder, "linked"));
    mkdirSync(join(folder, "sub"));
    writeFileSync(join(folder, "big.txt"), Buffer.alloc(1024 * 1024 + 1));
    const before = readdirSync(folder).sort();
    const permissions = { ...provider.permissions, fsWrite: ["workspace"] };
    const writer = new LuaCapabilityProvider(
      provider.descriptor,
      permissions,
      { entry: "invoke" },
      provider.runtime,
      1,
    );
    const context = testContext({ workspace: folder, permissions });
    await expect(writer.invoke({ path }, context)).rejects.toMatchObject({ code });
    if (code !== "not_found" && code !== "file_too_large") {
      await expect(writer.invoke({ path, write: true }, context)).rejects.toMatchObject({
        code: code === "path_not_allowed" && path === "sub" ? "path_not_allowed" : code,
      });
    }
    expect(readdirSync(folder).sort()).toEqual(before);
    expect(readFileSync(join(outside, "secret.txt"), "utf8")).toBe("secret");
    expect(context.touchedPaths).toEqual([]);
  });
});
