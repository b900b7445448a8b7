import { readdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { CapabilityProblemCode } from "../../src/capabilities/problems.js";
import type { RegistrationReason } from "../../src/capabilities/types.js";
import { seedAdapterManifest, seedLuaManifest, withField, yamlOf } from "../helpers/capability-manifests.js";
import {
  type CapabilityTree,
  capabilityTree,
  decisionOf,
  inspectTree,
  writeIn,
} from "../helpers/capability-tree.js";
import { makeTree } from "../helpers/skill-tree.js";

const ADAPTER = "config/adapters/code-review-skill.yaml";
const LUA = "project/.skillgate/capabilities/config-lint-skill.yaml";

/** Every file and folder under the tree with its size and change time: what "nothing was written" compares. */
function snapshot(root: string): string[] {
  const entries: string[] = [];
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      const stats = statSync(path, { throwIfNoEntry: false });
      entries.push(`${path} ${stats?.size ?? "-"} ${stats?.ctimeMs ?? "-"}`);
      if (entry.isDirectory()) walk(path);
    }
  };
  walk(root);
  return entries.sort();
}

interface HostileCase {
  readonly name: string;
  /** Writes the hostile manifest into a seed tree; returns the provider id to look at. */
  readonly write: (tree: CapabilityTree) => string;
  readonly code: CapabilityProblemCode;
  readonly reason: RegistrationReason;
}

const adapter = (path: string, to: unknown) => (tree: CapabilityTree) => {
  writeIn(tree, ADAPTER, yamlOf(withField(seedAdapterManifest(), path, to)));
  return path === "id" ? "manifest:code-review-skill" : "code-review-skill";
};
const lua = (path: string, to: unknown) => (tree: CapabilityTree) => {
  writeIn(tree, LUA, yamlOf(withField(seedLuaManifest(), path, to)));
  return path === "id" ? "manifest:config-lint-skill" : "config-lint-skill";
};

const MISSING_ADAPTER: ReadonlyArray<[string, CapabilityProblemCode, RegistrationReason]> = [
  ["id", "missing_field", "invalid_manifest"],
  ["transport", "missing_field", "invalid_manifest"],
  ["skill", "missing_field", "invalid_manifest"],
  ["skill.source", "missing_field", "invalid_manifest"],
  ["skill.id", "missing_field", "invalid_manifest"],
  ["skill.path", "missing_field", "invalid_manifest"],
  ["skill.kind", "missing_field", "invalid_manifest"],
  ["skill.runtime_gate", "missing_field", "invalid_manifest"],
  ["skill.entry", "missing_field", "invalid_manifest"],
  ["skill.input_schema", "capability_missing_schema", "capability_missing_schema"],
  ["skill.output_schema", "capability_missing_schema", "capability_missing_schema"],
  ["capabilities", "missing_field", "invalid_manifest"],
];
const MISSING_LUA: ReadonlyArray<[string, CapabilityProblemCode, RegistrationReason]> = [
  ["id", "missing_field", "invalid_manifest"],
  ["kind", "missing_field", "invalid_manifest"],
  ["capabilities", "missing_field", "invalid_manifest"],
  ["lua", "missing_field", "invalid_manifest"],
  ["lua.script", "missing_field", "invalid_manifest"],
  ["lua.entry", "missing_field", "invalid_manifest"],
  ["runtime_gate", "missing_field", "invalid_manifest"],
  ["input_schema", "capability_missing_schema", "capability_missing_schema"],
  ["output_schema", "capability_missing_schema", "capability_missing_schema"],
];

const HOSTILE: readonly HostileCase[] = [
  ...MISSING_ADAPTER.map(([field, code, reason]) => ({
    name: `adapter manifest without ${field}`,
    write: adapter(field, undefined),
    code,
    reason,
  })),
  ...MISSING_LUA.map(([field, code, reason]) => ({
    name: `Lua manifest without ${field}`,
    write: lua(field, undefined),
    code,
    reason,
  })),
  {
    name: "YAML alias bomb",
    write: (tree) => {
      const levels = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]'];
      for (let level = 1; level < 8; level += 1) {
        const previous = String.fromCharCode(96 + level);
        const name = String.fromCharCode(97 + level);
        levels.push(`${name}: &${name} [${Array(10).fill(`*${previous}`).join(",")}]`);
      }
      writeIn(tree, ADAPTER, `id: code-review-skill\n${levels.join("\n")}\n`);
      return "manifest:code-review-skill";
    },
    code: "yaml_alias_limit",
    reason: "invalid_manifest",
  },
  {
    name: "a manifest over 256 KiB",
    write: (tree) => {
      writeIn(tree, ADAPTER, `${yamlOf(seedAdapterManifest())}# ${"x".repeat(300 * 1024)}\n`);
      return "manifest:code-review-skill";
    },
    code: "file_too_large",
    reason: "invalid_manifest",
  },
  {
    name: "a duplicate key",
    write: (tree) => {
      writeIn(tree, ADAPTER, `id: code-review-skill\nid: again\n`);
      return "manifest:code-review-skill";
    },
    code: "invalid_manifest",
    reason: "invalid_manifest",
  },
  {
    name: "a manifest that is a list",
    write: (tree) => {
      writeIn(tree, ADAPTER, "- a\n- b\n");
      return "manifest:code-review-skill";
    },
    code: "invalid_manifest",
    reason: "invalid_manifest",
  },
  {
    name: "an invalid inline schema",
    write: adapter("skill.output_schema", { type: "object", properties: { summary: { type: 12 } } }),
    code: "invalid_schema",
    reason: "invalid_schema",
  },
  {
    name: "an input schema that is not an object",
    write: adapter("skill.input_schema", { type: "string" }),
    code: "invalid_schema",
    reason: "invalid_schema",
  },
  {
    name: "a schema naming another draft",
    write: adapter("skill.input_schema", {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
    }),
    code: "invalid_schema",
    reason: "invalid_schema",
  },
  {
    name: "a schema file that is not JSON",
    write: (tree) => {
      writeIn(tree, "project/schemas/config_lint.input.json", "{ not json");
      return lua("version", "1.0.1")(tree);
    },
    code: "invalid_schema",
    reason: "invalid_schema",
  },
  {
    name: "a schema file outside the roots",
    write: lua("input_schema", "/etc/hostname"),
    code: "path_not_allowed",
    reason: "path_not_allowed",
  },
  {
    name: "an unknown trust source",
    write: adapter("skill.source", "somewhere"),
    code: "trust_level_unknown",
    reason: "trust_level_unknown",
  },
  {
    name: "a transport other than skill",
    write: adapter("transport", "http"),
    code: "invalid_field",
    reason: "invalid_manifest",
  },
  {
    name: "a kind the adapter cannot have",
    write: adapter("skill.kind", "lua_skill"),
    code: "invalid_field",
    reason: "invalid_manifest",
  },
  {
    name: "an unknown runtime mode",
    write: adapter("skill.runtime_gate", "root"),
    code: "invalid_field",
    reason: "invalid_manifest",
  },
  {
    name: "an entry script leaving the skill",
    write: adapter("skill.entry", { type: "script", script: "../../../etc/passwd" }),
    code: "path_not_allowed",
    reason: "path_not_allowed",
  },
  {
    name: "an entry script that does not exist",
    write: adapter("skill.entry", { type: "script", script: "scripts/missing.py" }),
    code: "path_missing",
    reason: "invalid_manifest",
  },
  {
    name: "a malformed capability name",
    write: adapter("capabilities", ["Workflow Code Review"]),
    code: "invalid_field",
    reason: "invalid_manifest",
  },
  {
    name: "a Lua capability outside workflow.*",
    write: lua("capabilities", ["admin.shell"]),
    code: "invalid_capability_name",
    reason: "invalid_capability_name",
  },
  {
    name: "a Lua script outside the roots",
    write: lua("lua.script", "/etc/hostname"),
    code: "path_not_allowed",
    reason: "path_not_allowed",
  },
  {
    name: "a Lua fs root outside the roots",
    write: lua("permissions.fs.read", ["workspace", "/etc"]),
    code: "path_not_allowed",
    reason: "path_not_allowed",
  },
  {
    name: "a timeout over the bound",
    write: adapter("limits.timeout_ms", 10_000_000),
    code: "invalid_field",
    reason: "invalid_manifest",
  },
  {
    name: "an environment name that is not one",
    write: adapter("permissions.env", ["A=B"]),
    code: "invalid_field",
    reason: "invalid_manifest",
  },
  {
    name: "a manifest that is a link out of its folder",
    write: (tree) => {
      const elsewhere = makeTree("skillgate-elsewhere-");
      writeFileSync(join(elsewhere, "evil.yaml"), yamlOf(withField(seedAdapterManifest(), "id", "evil")));
      symlinkSync(join(elsewhere, "evil.yaml"), join(tree.config, "adapters", "evil.yaml"));
      return "manifest:evil";
    },
    code: "path_not_allowed",
    reason: "path_not_allowed",
  },
  {
    name: "a Lua script that is a link out of the project",
    write: (tree) => {
      const elsewhere = makeTree("skillgate-elsewhere-");
      writeFileSync(join(elsewhere, "evil.lua"), "function invoke() end\n");
      symlinkSync(join(elsewhere, "evil.lua"), join(tree.project, "config", "skills", "linked.lua"));
      return lua("lua.script", "config/skills/linked.lua")(tree);
    },
    code: "path_not_allowed",
    reason: "path_not_allowed",
  },
];

describe("hostile capability manifests", () => {
  for (const item of HOSTILE) {
    it(`${item.name}: ${item.code} → rejected (${item.reason}), nothing written`, () => {
      const tree = capabilityTree({ seed: true });
      const id = item.write(tree);
      const before = snapshot(tree.tree);
      const decision = decisionOf(inspectTree(tree, { project: true }), id);
      expect(decision.decision.status).toBe("rejected");
      expect(decision.decision.reasons[0]).toBe(item.reason);
      expect(decision.problems.map((found) => found.code)).toContain(item.code);
      expect(decision.providable).toBe(false);
      expect(snapshot(tree.tree)).toEqual(before);
    });
  }

  it("an unknown field is a warning, and the manifest still registers", () => {
    const tree = capabilityTree({ seed: true });
    writeIn(tree, ADAPTER, yamlOf(withField(seedAdapterManifest(), "colour", "blue")));
    const decision = decisionOf(inspectTree(tree), "code-review-skill");
    expect(decision.decision.status).toBe("registered");
    expect(decision.problems).toEqual([
      expect.objectContaining({ code: "unknown_field", severity: "warning", field: "colour" }),
    ]);
  });

  it("two manifests with one id: the later is shadowed, and a project's never takes the owner's", () => {
    const tree = capabilityTree({ seed: true });
    writeIn(tree, "config/adapters/zz-copy.yaml", yamlOf(seedAdapterManifest()));
    writeIn(
      tree,
      "project/.skillgate/adapters/code-review-skill.yaml",
      yamlOf(withField(seedAdapterManifest(), "skill.source", "project")),
    );
    const inspection = inspectTree(tree, { project: true });
    const all = inspection.decisions.filter((item) => item.decision.id === "code-review-skill");
    expect(all.map((item) => [item.candidate.location.replace(tree.tree, ""), item.decision.status])).toEqual(
      [
        ["/config/adapters/code-review-skill.yaml", "registered"],
        ["/config/adapters/zz-copy.yaml", "shadowed"],
        ["/project/.skillgate/adapters/code-review-skill.yaml", "shadowed"],
      ],
    );
    expect(all[1]?.decision.reasons).toEqual(["shadowed_by_precedence"]);
    expect(all[0]?.conflicts.length).toBe(2);
  });

  it("without the project opt-in a project's manifests are not read at all", () => {
    const tree = capabilityTree({ seed: true });
    const inspection = inspectTree(tree, { project: false });
    expect(inspection.decisions.some((item) => item.decision.id === "config-lint-skill")).toBe(false);
    expect(inspection.manifestFolders.map((folder) => folder.scope)).toEqual(["config", "config"]);
  });
});
