import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { storeSourceOf } from "../../src/app/capability-setup.js";
import { decideRegistration } from "../../src/capabilities/decide.js";
import { discoverCapabilities } from "../../src/capabilities/discover.js";
import { createCatalog } from "../../src/catalog/catalog.js";
import type { SkillDecision } from "../../src/catalog/decisions.js";
import { INDEX_VERSION } from "../../src/store/index-file.js";
import { seedAdapterManifest, withField, yamlOf } from "../helpers/capability-manifests.js";
import { capabilityTree, decisionOf, inspectTree, writeIn } from "../helpers/capability-tree.js";
import { writeSkill } from "../helpers/skill-tree.js";

const ADAPTER = "config/adapters/code-review-skill.yaml";
const CODEX_FOLDERS = "skills:\n  user_folders: [~/.codex/skills]\n";

describe("registration decisions", () => {
  it("switches: the manifest's enabled, config.yaml's provider and capability switches, the catalog's", () => {
    const tree = capabilityTree({ seed: true });
    writeIn(tree, ADAPTER, yamlOf(withField(seedAdapterManifest(), "enabled", false)));
    expect(decisionOf(inspectTree(tree), "code-review-skill").decision).toMatchObject({
      status: "disabled",
      reasons: ["disabled_by_manifest"],
    });
    writeIn(tree, ADAPTER, yamlOf(seedAdapterManifest()));
    writeIn(
      tree,
      "config/config.yaml",
      `${CODEX_FOLDERS}capabilities:\n  providers:\n    code-review-skill: { enabled: false }\n`,
    );
    expect(decisionOf(inspectTree(tree), "code-review-skill").decision).toMatchObject({
      status: "disabled",
      reasons: ["disabled_by_config"],
    });
    writeIn(
      tree,
      "config/config.yaml",
      `${CODEX_FOLDERS}capabilities:\n  capabilities:\n    workflow.code_review: { enabled: false }\n`,
    );
    const off = decisionOf(inspectTree(tree), "code-review-skill");
    expect(off.decision).toMatchObject({ status: "disabled", reasons: ["disabled_by_config"] });
    expect(off.capabilities).toEqual([]);
    writeIn(tree, "config/config.yaml", `${CODEX_FOLDERS}  disabled: [code-review]\n`);
    expect(decisionOf(inspectTree(tree), "code-review-skill").decision).toMatchObject({
      status: "disabled",
      reasons: ["disabled_by_config"],
    });
  });

  it("ids that name Object's own members are plain ids; __proto__ is not an id", () => {
    const tree = capabilityTree({ seed: true });
    writeIn(tree, ADAPTER, yamlOf(withField(seedAdapterManifest(), "id", "constructor")));
    expect(decisionOf(inspectTree(tree), "constructor").decision.status).toBe("registered");
    writeIn(tree, ADAPTER, yamlOf(withField(seedAdapterManifest(), "id", "__proto__")));
    const refused = decisionOf(inspectTree(tree), "manifest:code-review-skill");
    expect(refused.decision.status).toBe("rejected");
    expect(refused.problems.map((item) => [item.code, item.field])).toContainEqual(["invalid_field", "id"]);
  });

  it("an adapter whose skill the catalog did not find is skill_not_found; a wrong skill.id is invalid", () => {
    const tree = capabilityTree({ seed: true });
    // Inside the config folder (an allowed root) but in no skills folder the catalog searches.
    writeIn(tree, "config/loose/code-review/SKILL.md", "---\nname: code-review\ndescription: Loose.\n---\n");
    writeIn(
      tree,
      ADAPTER,
      yamlOf(withField(seedAdapterManifest(), "skill.path", "loose/code-review/SKILL.md")),
    );
    expect(decisionOf(inspectTree(tree), "code-review-skill").decision.reasons).toEqual(["skill_not_found"]);
    // Without the owner's folder among the skill folders, the seed's path is outside every root.
    writeIn(tree, ADAPTER, yamlOf(seedAdapterManifest()));
    writeIn(tree, "config/config.yaml", "");
    expect(decisionOf(inspectTree(tree), "code-review-skill").decision.reasons).toEqual(["path_not_allowed"]);
    writeIn(tree, "config/config.yaml", CODEX_FOLDERS);
    writeIn(tree, ADAPTER, yamlOf(withField(seedAdapterManifest(), "skill.id", "other-skill")));
    const wrong = decisionOf(inspectTree(tree), "code-review-skill");
    expect(wrong.decision.status).toBe("rejected");
    expect(wrong.problems.map((item) => item.field)).toContain("skill.id");
  });

  it("a manifest cannot lift a skill above where it lies: the lower of the claimed and the found level", () => {
    const tree = capabilityTree({ seed: true });
    writeIn(tree, ADAPTER, yamlOf(withField(seedAdapterManifest(), "skill.source", "builtin")));
    expect(decisionOf(inspectTree(tree), "code-review-skill").descriptor?.trustLevel).toBe("user_folder");
    writeIn(tree, ADAPTER, yamlOf(withField(seedAdapterManifest(), "skill.source", "imported")));
    expect(decisionOf(inspectTree(tree), "code-review-skill").descriptor?.trustLevel).toBe("imported");
  });

  it("a project's adapter manifest is at most project trust, and may not reach the owner's config folder", () => {
    const tree = capabilityTree({ seed: true });
    writeIn(
      tree,
      "project/.skillgate/adapters/review.yaml",
      yamlOf(withField(seedAdapterManifest(), "id", "project-review")),
    );
    const decision = decisionOf(inspectTree(tree, { project: true }), "project-review");
    expect(decision.descriptor?.trustLevel).toBe("project");
    writeIn(tree, "config/secret.json", '{"type": "object"}');
    writeIn(
      tree,
      "project/.skillgate/adapters/review.yaml",
      yamlOf(
        withField(
          withField(seedAdapterManifest(), "id", "project-review"),
          "skill.input_schema",
          join(tree.config, "secret.json"),
        ),
      ),
    );
    expect(decisionOf(inspectTree(tree, { project: true }), "project-review").decision.reasons).toEqual([
      "path_not_allowed",
    ]);
  });

  it("a store skill's trust comes from the store's record of how it got there", () => {
    const tree = capabilityTree();
    const store = join(tree.data, "skills");
    writeIn(
      tree,
      "data/skills/index.json",
      JSON.stringify({
        version: INDEX_VERSION,
        revision: 1,
        updated: "2026-01-01T00:00:00.000Z",
        skills: {
          mine: { enabled: true, source: "owner", updated: "2026-01-01T00:00:00.000Z", hash: "a".repeat(64) },
          zipped: { enabled: true, source: "zip", updated: "2026-01-01T00:00:00.000Z", hash: "b".repeat(64) },
          drafted: {
            enabled: true,
            source: "assistant",
            updated: "2026-01-01T00:00:00.000Z",
            hash: "c".repeat(64),
          },
        },
      }),
    );
    const sourceOf = storeSourceOf(store);
    const decision = (name: string, source: string) => ({ name, source }) as SkillDecision;
    expect(sourceOf(decision("mine", "store"))).toBe("store:owner");
    expect(sourceOf(decision("zipped", "store"))).toBe("store:zip");
    expect(sourceOf(decision("drafted", "store"))).toBe("store:assistant");
    expect(sourceOf(decision("unknown", "store"))).toBe("store");
    expect(sourceOf(decision("mine", "user"))).toBe("user");
    expect(storeSourceOf(join(tree.tree, "nowhere"))(decision("mine", "store"))).toBe("store");
  });
});

describe("a bare SKILL.md's decision made directly", () => {
  it("equals the full decision in every field, for every runtime and switch", () => {
    const tree = capabilityTree();
    const skills = join(tree.home, ".agents", "skills");
    writeSkill(skills, "plain", { frontMatter: { name: "plain", description: "Plain." } });
    writeSkill(skills, "off", { frontMatter: { name: "off", description: "Off." } });
    writeSkill(skills, "writer", {
      frontMatter: { name: "writer", description: "Writes.", metadata: { "skillgate.workspace": "write" } },
    });
    // Every shape the shared permissions and gates of a bare descriptor come in.
    const metadataOf: Record<string, Record<string, string>> = {
      reader: { "skillgate.tier": "read" },
      bridged: { "skillgate.network": "bridge" },
      domains: { "skillgate.allowed-domains": "example.com" },
      queued: { "skillgate.execution": "queue" },
      "team-worker": { "skillgate.runtime": "team" },
      "plan-worker": { "skillgate.runtime": "plan" },
      switched: {},
    };
    for (const [name, metadata] of Object.entries(metadataOf))
      writeSkill(skills, name, { frontMatter: { name, description: `${name}.`, metadata } });
    writeIn(
      tree,
      "config/config.yaml",
      "skills:\n  disabled: [off]\ncapabilities:\n  providers:\n    skill:switched: { enabled: false }\n",
    );
    const catalog = createCatalog({ config: tree.config, data: tree.data, home: tree.home, builtins: false });
    const found = discoverCapabilities({
      catalog: catalog.discover(),
      folders: catalog.folders,
      roots: [],
      skillRoots: catalog.folderSources().map((source) => source.folder),
      project: false,
    });
    for (const runtime of ["normal", "plan", "job", "team"] as const) {
      const lazy = decideRegistration(found.candidates, { runtime, config: catalog.config.capabilities });
      const eager = decideRegistration(found.candidates, {
        runtime,
        config: catalog.config.capabilities,
        eager: true,
      });
      expect(lazy.length).toBe(10);
      for (const [index, item] of lazy.entries()) {
        const full = eager[index];
        expect(item.decision, `${item.decision.id} in ${runtime}`).toEqual(full?.decision);
        expect(item.permissions, item.decision.id).toEqual(full?.permissions);
        expect(item.gate, item.decision.id).toEqual(full?.gate);
        expect(item.problems, item.decision.id).toEqual(full?.problems);
        expect(item.descriptor?.manifestDigest, item.decision.id).toMatch(/^[0-9a-f]{64}$/);
        expect([item.providable, item.capabilities, item.conflicts]).toEqual([
          full?.providable,
          full?.capabilities,
          full?.conflicts,
        ]);
      }
    }
  });
});
