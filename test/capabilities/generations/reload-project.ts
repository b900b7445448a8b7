import { cpSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { luaManifestLoader } from "../../../src/capabilities/generations/lua-manifest-loader.js";
import { DEFAULT_CAPABILITIES_CONFIG } from "../../../src/config/capabilities-config.js";

/**
 * The real manifest loader (the descriptor layer) over a fixture project, as the owner's
 * manifest (`owner` trust), with a policy that allows workspace writes and the network, so
 * the widening tests see widened effective permissions rather than a `policy_denied`.
 */
export function fixtureLoader(root: string) {
  const canonical = realpathSync(root);
  return luaManifestLoader({
    scope: "config",
    paths: { base: canonical, home: canonical, allowedRoots: [canonical] },
    config: {
      ...DEFAULT_CAPABILITIES_CONFIG,
      permissions: { readWorkspace: true, writeWorkspace: true, network: true, shell: false, env: [] },
    },
  });
}

/** A copy of the config-lint fixture project in a temporary folder, with helpers to edit it. */
export function reloadProject() {
  const root = mkdtempSync(join(tmpdir(), "lua-reload-"));
  cpSync(resolve("test/fixtures/capabilities/config-lint"), root, { recursive: true });
  const manifestPath = join(root, "config/capabilities/config-lint-skill.yaml");
  const scriptPath = join(root, "config/skills/config_lint.lua");
  return {
    root,
    manifestPath,
    scriptPath,
    writeScript: (source: string) => writeFileSync(scriptPath, source),
    editManifest: (edit: (text: string) => string) =>
      writeFileSync(manifestPath, edit(readFileSync(manifestPath, "utf8"))),
  };
}

/** A script whose answer names its version at the start and the end of the call. */
export function versionedScript(version: number, health = "true"): string {
  return `VERSION = ${version}
function health_check(ctx) return ${health} end
function invoke(ctx, payload)
  local started = VERSION
  local review = ctx.tools.invoke_agent({ capability = "workflow.code_review", payload = { scope = "current_diff" } })
  return { summary = "v" .. started .. "/" .. VERSION, findings = {}, version = started, product = payload.n * VERSION, review = review.summary }
end
`;
}
