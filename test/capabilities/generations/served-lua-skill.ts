import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * A Lua skill in a server's configuration folder, as an owner writes one from
 * docs/capabilities.md: `<config>/capabilities/echo-skill.yaml`, its script in `<config>/lua/`
 * and its schemas in `<config>/schemas/`. Its answer names the script's version, so a test
 * sees which generation answered.
 */

/** The manifest's id and the capability it serves. */
export const ECHO_SKILL = "echo-skill";
export const ECHO_CAPABILITY = "workflow.echo";

const MANIFEST = `id: echo-skill
kind: lua_skill
version: 1.0.0
description: Multiplies n by its version.

capabilities:
  - workflow.echo

lua:
  script: lua/echo.lua
  entry: invoke
  health_check: health_check

runtime_gate:
  allowed_modes:
    - normal
  disallow_team_worker: true

input_schema: schemas/echo.input.json
output_schema: schemas/echo.output.json

permissions:
  fs:
    read: []
    write: []
  network: false
  shell: false
  adapters:
    capabilities: []

limits:
  timeout_ms: 30000
  concurrency: 4
`;

/** A script answering `{ version, product = n * version }`. */
export function echoScript(version: number): string {
  return `VERSION = ${version}
function health_check(ctx) return true end
function invoke(ctx, payload)
  return { version = VERSION, product = payload.n * VERSION }
end
`;
}

/** The files of the skill under `config`, and helpers to edit them as an owner would. */
export function writeEchoSkill(config: string) {
  const manifestPath = join(config, "capabilities", "echo-skill.yaml");
  const scriptPath = join(config, "lua", "echo.lua");
  for (const folder of ["capabilities", "lua", "schemas"])
    mkdirSync(join(config, folder), { recursive: true });
  writeFileSync(manifestPath, MANIFEST);
  writeFileSync(scriptPath, echoScript(1));
  writeFileSync(
    join(config, "schemas", "echo.input.json"),
    JSON.stringify({
      type: "object",
      required: ["n"],
      properties: { n: { type: "integer" } },
      additionalProperties: false,
    }),
  );
  writeFileSync(
    join(config, "schemas", "echo.output.json"),
    JSON.stringify({
      type: "object",
      required: ["version", "product"],
      properties: { version: { type: "integer" }, product: { type: "integer" } },
    }),
  );
  return {
    manifestPath,
    scriptPath,
    /** A second manifest beside the first (`echo-two`, serving `workflow.echo_two`) over the same script. */
    addSecondManifest: () => {
      const path = join(config, "capabilities", "echo-two.yaml");
      writeFileSync(
        path,
        MANIFEST.replace("id: echo-skill", "id: echo-two").replace(
          "  - workflow.echo\n",
          "  - workflow.echo_two\n",
        ),
      );
      return path;
    },
    writeScript: (source: string) => writeFileSync(scriptPath, source),
    /** Lets the skill read the workspace: a widening reload, which waits for the owner. */
    widenToWorkspaceReads: () =>
      writeFileSync(
        manifestPath,
        readFileSync(manifestPath, "utf8").replace("    read: []", "    read:\n      - workspace"),
      ),
  };
}
