import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAdapterManifest } from "../../src/capabilities/manifests/adapter-manifest.js";
import { parseLuaManifest } from "../../src/capabilities/manifests/lua-manifest.js";
import { parseManifestText } from "../../src/capabilities/manifests/manifest-file.js";
import { canonicalRoots } from "../../src/capabilities/manifests/manifest-paths.js";
import { capabilityTree, decisionOf, inspectTree, writeIn } from "../helpers/capability-tree.js";

/** Seed 004's two manifest examples, as fixtures that work (test/fixtures/capabilities/seed-004). */
describe("seed 004's manifest examples", () => {
  it("the adapter manifest: every field read, and it registers over the real code-review skill", () => {
    const tree = capabilityTree({ seed: true });
    const file = join(tree.config, "adapters", "code-review-skill.yaml");
    const parsed = parseManifestText(readFileSync(file, "utf8"), file);
    if (!parsed.ok) throw new Error("the example does not parse");
    const result = parseAdapterManifest(parsed.value, file, {
      base: tree.config,
      home: tree.home,
      allowedRoots: canonicalRoots([tree.config, join(tree.home, ".codex", "skills")]),
    });
    expect(result.problems).toEqual([]);
    const skillFile = join(tree.home, ".codex", "skills", "code-review", "SKILL.md");
    expect(result.manifest).toEqual({
      id: "code-review-skill",
      name: "Code Review Skill Adapter",
      version: "1.0.0",
      enabled: true,
      priority: 0,
      skill: {
        source: "codex",
        id: "code-review",
        path: skillFile,
        kind: "workflow_skill",
        runtimeGate: { allowedModes: ["normal"], disallowTeamWorker: false, requiresInteractiveUser: false },
        entry: { type: "sampling" },
        inputSchema: { kind: "inline", schema: result.manifest?.inputSchema },
        outputSchema: { kind: "inline", schema: result.manifest?.outputSchema },
      },
      inputSchema: {
        type: "object",
        required: ["scope"],
        properties: {
          scope: { type: "string", enum: ["current_diff", "workspace"] },
          severity: { type: "string", enum: ["all", "major", "critical"] },
        },
      },
      outputSchema: {
        type: "object",
        required: ["summary", "findings"],
        properties: { summary: { type: "string" }, findings: { type: "array" } },
      },
      capabilities: ["workflow.code_review"],
      permissions: {
        fsRead: ["workspace"],
        fsWrite: [],
        network: false,
        shell: false,
        env: [],
        adapterCapabilities: [],
      },
      limits: { timeoutMs: 120000, maxConcurrency: 1, maxPromptBytes: 100000 },
    });
    const decision = decisionOf(inspectTree(tree), "code-review-skill");
    expect(decision.decision.status).toBe("registered");
    expect(decision.candidate.skill).toEqual({ name: "code-review", catalogDecision: "registered" });
    // The skill it offers is described by the manifest alone, not again as a bare SKILL.md.
    expect(inspectTree(tree).decisions.map((item) => item.decision.id)).toEqual(["code-review-skill"]);
  });

  it("an adapter's script entry names a script of the skill", () => {
    const tree = capabilityTree({ seed: true });
    const text = readFileSync(join(tree.config, "adapters", "code-review-skill.yaml"), "utf8").replace(
      "type: codex_skill",
      "type: script\n    script: scripts/list_changes.py",
    );
    writeIn(tree, "config/adapters/code-review-skill.yaml", text);
    const decision = decisionOf(inspectTree(tree), "code-review-skill");
    expect(decision.decision.status).toBe("registered");
    expect(decision.descriptor?.entry).toEqual({ type: "script", script: "scripts/list_changes.py" });
    expect(decision.descriptor?.skillDirectory).toBe(join(tree.home, ".codex", "skills", "code-review"));
  });

  it("the Lua capability manifest: every field read, file schemas resolved, registered with the project opt-in", () => {
    const tree = capabilityTree({ seed: true });
    const file = join(tree.project, ".skillgate", "capabilities", "config-lint-skill.yaml");
    const parsed = parseManifestText(readFileSync(file, "utf8"), file);
    if (!parsed.ok) throw new Error("the example does not parse");
    const direct = parseLuaManifest(parsed.value, file, {
      base: tree.project,
      home: tree.home,
      allowedRoots: canonicalRoots([tree.project]),
    });
    expect(direct.problems).toEqual([]);
    expect(direct.manifest?.lua).toEqual({
      script: join(tree.project, "config", "skills", "config_lint.lua"),
      entry: "invoke",
      healthCheck: "health_check",
    });
    const decision = decisionOf(inspectTree(tree, { project: true }), "config-lint-skill");
    expect(decision.problems).toEqual([]);
    expect(decision.decision.status).toBe("registered");
    const descriptor = decision.descriptor;
    const script = join(tree.project, "config", "skills", "config_lint.lua");
    expect(descriptor).toMatchObject({
      id: "config-lint-skill",
      kind: "lua_skill",
      source: "capability-manifest",
      scope: "project",
      trustLevel: "project",
      path: script,
      capabilities: ["workflow.config_lint"],
      entry: { type: "lua", script, entry: "invoke", healthCheck: "health_check" },
      runtimeGate: { allowedModes: ["normal"], disallowTeamWorker: true, requiresInteractiveUser: false },
      inputSchema: { kind: "file", path: join(tree.project, "schemas", "config_lint.input.json") },
      outputSchema: { kind: "file", path: join(tree.project, "schemas", "config_lint.output.json") },
      permissions: {
        fsRead: ["workspace"],
        fsWrite: [],
        network: false,
        shell: false,
        env: [],
        adapterCapabilities: ["config.inspect"],
      },
      limits: { timeoutMs: 30000, maxConcurrency: 2 },
      metadata: { version: "1.0.0" },
    });
    expect(decision.candidate.schemas?.input).toMatchObject({ type: "object", required: ["path"] });
    expect(descriptor?.manifestDigest).toMatch(/^[0-9a-f]{64}$/);
    // A team worker is not admitted (disallow_team_worker), so the team runtime only shows it.
    expect(
      decisionOf(inspectTree(tree, { project: true, runtime: "team" }), "config-lint-skill").decision.reasons,
    ).toEqual(["runtime_gate_mismatch"]);
  });

  it("the same Lua manifest in the owner's config folder: paths from <config>, owner trust", () => {
    const tree = capabilityTree({ seed: true });
    const manifest = readFileSync(
      join(tree.project, ".skillgate", "capabilities", "config-lint-skill.yaml"),
      "utf8",
    );
    writeIn(tree, "config/capabilities/config-lint-skill.yaml", manifest);
    for (const file of [
      "config/skills/config_lint.lua",
      "schemas/config_lint.input.json",
      "schemas/config_lint.output.json",
    ])
      writeIn(tree, `config/${file}`, readFileSync(join(tree.project, file), "utf8"));
    const decision = decisionOf(inspectTree(tree), "config-lint-skill");
    expect(decision.decision.status).toBe("registered");
    expect(decision.descriptor?.trustLevel).toBe("owner");
    expect(decision.descriptor?.path).toBe(join(tree.config, "config", "skills", "config_lint.lua"));
  });
});
