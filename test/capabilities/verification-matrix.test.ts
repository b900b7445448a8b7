import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { seedAdapterManifest, withField, yamlOf } from "../helpers/capability-manifests.js";
import { capabilityTree, decisionOf, inspectTree, writeIn } from "../helpers/capability-tree.js";
import { makeTree, writeSkill } from "../helpers/skill-tree.js";

/** Seed 004's verification matrix: the rows the descriptors and decisions own, one test each, named after the row. */
describe("seed 004 verification matrix", () => {
  it("Discovery: Trusted workflow Skill with explicit manifest → registered", () => {
    const tree = capabilityTree({ seed: true });
    const decision = decisionOf(inspectTree(tree), "code-review-skill");
    expect(decision.decision).toEqual({
      id: "code-review-skill",
      status: "registered",
      reasons: ["registered"],
      detail: "registered for normal",
      registeredTo: ["normal"],
    });
    expect(decision.descriptor?.trustLevel).toBe("user_folder");
    expect(decision.capabilities).toEqual(["workflow.code_review"]);
    expect(decision.permissions?.effective).toEqual({
      fsRead: ["workspace"],
      fsWrite: [],
      network: false,
      shell: false,
      env: [],
      adapterCapabilities: [],
    });
  });

  it("Discovery: User-local Skill without schema → display_only", () => {
    const tree = capabilityTree();
    writeSkill(join(tree.home, ".agents", "skills"), "notes", {
      frontMatter: { name: "notes", description: "Keeps notes." },
    });
    const decision = decisionOf(inspectTree(tree), "skill:notes");
    expect(decision.decision.status).toBe("display_only");
    expect(decision.decision.reasons[0]).toBe("capability_missing_schema");
    expect(decision.descriptor?.kind).toBe("workflow_skill");
    expect(decision.descriptor?.trustLevel).toBe("user_folder");
    expect(decision.providable).toBe(false);
  });

  it("Discovery: runtime_worker in normal mode → display_only", () => {
    const tree = capabilityTree();
    writeSkill(join(tree.home, ".agents", "skills"), "swarm-worker", {
      frontMatter: {
        name: "swarm-worker",
        description: "A worker of the team runtime.",
        metadata: { "skillgate.runtime": "team" },
      },
    });
    const normal = decisionOf(inspectTree(tree), "skill:swarm-worker");
    expect(normal.descriptor?.kind).toBe("runtime_worker");
    expect(normal.decision.status).toBe("display_only");
    expect(normal.decision.reasons).toEqual(["runtime_worker_display_only"]);
    // In its own runtime it is registered, and to that runtime only.
    const team = decisionOf(inspectTree(tree, { runtime: "team" }), "skill:swarm-worker");
    expect(team.decision.status).toBe("registered");
    expect(team.decision.registeredTo).toEqual(["team"]);
  });

  it("Schema: Missing output schema → capability_missing_schema", () => {
    const tree = capabilityTree({ seed: true });
    writeIn(
      tree,
      "config/adapters/code-review-skill.yaml",
      yamlOf(withField(seedAdapterManifest(), "skill.output_schema", undefined)),
    );
    const decision = decisionOf(inspectTree(tree), "code-review-skill");
    expect(decision.decision.status).toBe("rejected");
    expect(decision.decision.reasons[0]).toBe("capability_missing_schema");
    expect(decision.problems.map((item) => [item.code, item.field])).toContainEqual([
      "capability_missing_schema",
      "skill.output_schema",
    ]);
    expect(decision.providable).toBe(false);
  });

  it("Policy: Skill requests workspace write but policy denies it → policy_denied", () => {
    const tree = capabilityTree({ seed: true });
    writeIn(
      tree,
      "config/adapters/code-review-skill.yaml",
      yamlOf(withField(seedAdapterManifest(), "permissions.write_workspace", true)),
    );
    const denied = decisionOf(inspectTree(tree), "code-review-skill");
    expect(denied.decision.status).toBe("rejected");
    expect(denied.decision.reasons).toEqual(["policy_denied"]);
    expect(denied.permissions?.denied).toEqual([
      "writes workspace; capabilities.permissions.write_workspace is false",
    ]);
    // The owner allowing it registers it, with the write among the effective permissions.
    writeIn(
      tree,
      "config/config.yaml",
      "skills:\n  user_folders: [~/.codex/skills]\ncapabilities:\n  permissions:\n    write_workspace: true\n",
    );
    const allowed = decisionOf(inspectTree(tree), "code-review-skill");
    expect(allowed.decision.status).toBe("registered");
    expect(allowed.permissions?.effective.fsWrite).toEqual(["workspace"]);
  });

  it("Runtime gate: Team-only Skill in normal runtime → runtime_gate_mismatch", () => {
    const tree = capabilityTree({ seed: true });
    writeIn(
      tree,
      "config/adapters/code-review-skill.yaml",
      yamlOf(withField(seedAdapterManifest(), "skill.runtime_gate", { allowed_modes: ["team"] })),
    );
    const normal = decisionOf(inspectTree(tree), "code-review-skill");
    expect(normal.decision.status).toBe("display_only");
    expect(normal.decision.reasons).toEqual(["runtime_gate_mismatch"]);
    expect(normal.gate?.row.row).toBe("workflow_gate_mismatch");
    // Registered to the runtime its gate admits, and only there.
    expect(normal.decision.registeredTo).toEqual(["team"]);
    const team = decisionOf(inspectTree(tree, { runtime: "team" }), "code-review-skill");
    expect(team.decision.status).toBe("registered");
  });

  it("Security: Manifest path escapes allowed roots → path_not_allowed", () => {
    const tree = capabilityTree({ seed: true });
    // A real skill, outside every allowed root: the config folder, the skill folders, the project.
    const elsewhere = makeTree("skillgate-elsewhere-");
    writeSkill(elsewhere, "code-review", { frontMatter: { name: "code-review", description: "Elsewhere." } });
    const outside = join(elsewhere, "code-review", "SKILL.md");
    for (const path of [outside, "../../etc/passwd", "~/../../outside/SKILL.md"]) {
      writeIn(
        tree,
        "config/adapters/code-review-skill.yaml",
        yamlOf(withField(seedAdapterManifest(), "skill.path", path)),
      );
      const decision = decisionOf(inspectTree(tree), "code-review-skill");
      expect(decision.decision.status, path).toBe("rejected");
      expect(decision.decision.reasons[0], path).toBe("path_not_allowed");
    }
    // A link inside a skills folder that leads out of the roots is judged by where it leads.
    symlinkSync(join(elsewhere, "code-review"), join(tree.home, ".codex", "skills", "linked"));
    writeIn(
      tree,
      "config/adapters/code-review-skill.yaml",
      yamlOf(withField(seedAdapterManifest(), "skill.path", "~/.codex/skills/linked/SKILL.md")),
    );
    const linked = decisionOf(inspectTree(tree), "code-review-skill");
    expect(linked.decision.status).toBe("rejected");
    expect(linked.decision.reasons[0]).toBe("path_not_allowed");
  });
});
