import { describe, expect, it } from "vitest";
import { DEFAULT_CAPABILITIES_CONFIG } from "../../src/config/capabilities-config.js";
import { parseConfig } from "../../src/config/config.js";
import { isSkillgateError } from "../../src/core/errors.js";

describe("config.yaml's capabilities section", () => {
  it("defaults: read the workspace only, no switches, no priorities", () => {
    expect(parseConfig("", "config.yaml").capabilities).toEqual(DEFAULT_CAPABILITIES_CONFIG);
    expect(DEFAULT_CAPABILITIES_CONFIG.permissions).toEqual({
      readWorkspace: true,
      writeWorkspace: false,
      network: false,
      shell: false,
      env: [],
    });
  });

  it("reads the owner's policy, provider and capability switches and priorities", () => {
    const config = parseConfig(
      [
        "capabilities:",
        "  permissions: { read_workspace: true, write_workspace: true, network: true, shell: false, env: [LANG] }",
        "  providers:",
        "    code-review-skill: { enabled: false, priority: 10 }",
        "  capabilities:",
        "    workflow.code_review: { enabled: true, priority: { code-review-skill: 20 } }",
      ].join("\n"),
      "config.yaml",
    ).capabilities;
    expect(config.permissions).toEqual({
      readWorkspace: true,
      writeWorkspace: true,
      network: true,
      shell: false,
      env: ["LANG"],
    });
    expect(config.providers["code-review-skill"]).toEqual({ enabled: false, priority: 10 });
    expect(config.capabilities["workflow.code_review"]).toEqual({
      enabled: true,
      priority: { "code-review-skill": 20 },
    });
  });

  it("refuses a malformed section with every problem named", () => {
    const table: ReadonlyArray<[string, string]> = [
      ["capabilities: [a]", '"capabilities" must be a mapping'],
      [
        "capabilities:\n  permissions: { network: yes-please }",
        '"capabilities.permissions.network" must be true or false',
      ],
      [
        "capabilities:\n  permissions: { env: [A=B] }",
        '"capabilities.permissions.env" must be a list of environment variable names',
      ],
      ["capabilities:\n  permissions: { sudo: true }", 'unknown key "capabilities.permissions.sudo"'],
      [
        "capabilities:\n  providers: { x: { priority: 5000 } }",
        '"capabilities.providers.x.priority" must be a whole number from -1000 to 1000',
      ],
      ["capabilities:\n  providers: { x: 3 }", '"capabilities.providers.x" must be a mapping'],
      ["capabilities:\n  routing: {}", 'unknown key "capabilities.routing"'],
    ];
    for (const [text, message] of table) {
      let thrown: unknown;
      try {
        parseConfig(text, "config.yaml");
      } catch (error) {
        thrown = error;
      }
      expect(isSkillgateError(thrown, "invalid_config"), text).toBe(true);
      expect((thrown as { data: { problems: string[] } }).data.problems, text).toContain(message);
    }
  });
});
