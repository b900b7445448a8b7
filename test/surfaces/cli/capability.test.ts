import { cpSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { seedAdapterManifest, withField, yamlOf } from "../../helpers/capability-manifests.js";
import { SEED_004_FIXTURE } from "../../helpers/capability-tree.js";
import { writeSkill } from "../../helpers/skill-tree.js";
import { type CliSandbox, cliSandbox } from "./harness.js";

/** A CLI sandbox holding seed 004's fixture: the adapter manifest over code-review, the Lua manifest in the project. */
function seedSandbox(): CliSandbox {
  const sandbox = cliSandbox();
  cpSync(SEED_004_FIXTURE, sandbox.tree, { recursive: true });
  return sandbox;
}

const DETAIL_KEYS = [
  "decision",
  "source",
  "schemas",
  "runtime_gate",
  "permissions",
  "conflicts",
  "diagnostics",
  "capabilities",
  "priority",
  "generation",
  "limits",
];

describe("skillgate capability list", () => {
  it("--json: every capability with its providers in router order; project manifests only with the opt-in", async () => {
    const sandbox = seedSandbox();
    const plain = await sandbox.run(["capability", "list", "--json"]);
    expect(plain.code).toBe(0);
    expect(plain.err).toBe("");
    const parsed = JSON.parse(plain.out) as {
      runtime: string;
      capabilities: Array<{ capability: string; providers: Array<Record<string, unknown>> }>;
    };
    expect(parsed.runtime).toBe("normal");
    expect(parsed.capabilities.map((route) => route.capability)).toEqual(["workflow.code_review"]);
    expect(parsed.capabilities[0]?.providers).toEqual([
      {
        id: "code-review-skill",
        kind: "workflow_skill",
        status: "registered",
        reasons: ["registered"],
        detail: "registered for normal",
        source: "adapter-manifest",
        scope: "config",
        trust_level: "user_folder",
        capabilities: ["workflow.code_review"],
        registered_to: ["normal"],
        location: join(sandbox.config, "adapters", "code-review-skill.yaml"),
      },
    ]);
    const opted = JSON.parse(
      (await sandbox.run(["--project-extensions", "capability", "list", "--json"])).out,
    ) as typeof parsed;
    expect(opted.capabilities.map((route) => route.capability)).toEqual([
      "workflow.code_review",
      "workflow.config_lint",
    ]);
  });

  it("text: a table per capability; registered providers first, then the rest in router order", async () => {
    const sandbox = seedSandbox();
    sandbox.writeConfig(
      "skills:\n  user_folders: [~/.codex/skills]\ncapabilities:\n  providers:\n    second-review: { priority: 5 }\n",
    );
    const second = withField(
      withField(seedAdapterManifest(), "id", "second-review"),
      "permissions.network",
      true,
    );
    writeFileSync(
      join(sandbox.config, "adapters", "a-first.yaml"),
      yamlOf(withField(seedAdapterManifest(), "id", "a-first")),
    );
    writeFileSync(join(sandbox.config, "adapters", "second-review.yaml"), yamlOf(second));
    const result = await sandbox.run(["capability", "list"]);
    expect(result.code).toBe(0);
    const lines = result.out.split("\n");
    expect(lines[0]).toBe("workflow.code_review");
    expect(lines[1]?.trim().split(/\s{2,}/)).toEqual([
      "ID",
      "KIND",
      "DECISION",
      "REASONS",
      "CAPABILITIES",
      "LOCATION",
    ]);
    expect(
      lines.slice(2, 5).map((line) =>
        line
          .trim()
          .split(/\s{2,}/)
          .slice(0, 4),
      ),
    ).toEqual([
      ["a-first", "workflow_skill", "registered", "registered"],
      ["code-review-skill", "workflow_skill", "registered", "registered"],
      ["second-review", "workflow_skill", "rejected", "policy_denied"],
    ]);
  });

  it("says where manifests go when there are none", async () => {
    const sandbox = cliSandbox();
    const result = await sandbox.run(["capability", "list"]);
    expect(result.code).toBe(0);
    expect(result.out).toContain("No capabilities. Adapter manifests go in <config>/adapters/*.yaml");
  });
});

describe("skillgate capability inspect", () => {
  it("a provider, --json: decision, source, schemas, gate, permissions, conflicts, diagnostics, then generation, digest and limits", async () => {
    const sandbox = seedSandbox();
    const result = await sandbox.run(["capability", "inspect", "code-review-skill", "--json"]);
    expect(result.code).toBe(0);
    const parsed = JSON.parse(result.out) as {
      kind: string;
      runtime: string;
      provider: Record<string, unknown>;
    };
    expect(parsed.kind).toBe("provider");
    expect(Object.keys(parsed.provider)).toEqual(DETAIL_KEYS);
    expect(parsed.provider).toMatchObject({
      decision: {
        id: "code-review-skill",
        status: "registered",
        runtime: "normal",
        registered_to: ["normal"],
      },
      source: {
        kind: "workflow_skill",
        trust_level: "user_folder",
        skill: "code-review",
        entry: { type: "sampling" },
      },
      runtime_gate: { allowedModes: ["normal"], admits: ["normal"], row: "workflow_admitted" },
      permissions: {
        effective: {
          fsRead: ["workspace"],
          fsWrite: [],
          network: false,
          shell: false,
          env: [],
          adapterCapabilities: [],
        },
        sandbox: { network: false, workspace: "read", readableRoots: [], writableRoots: [], env: [] },
        denied: [],
      },
      conflicts: [],
      diagnostics: [],
      generation: 1,
      limits: { timeoutMs: 120000, maxConcurrency: 1, maxPromptBytes: 100000 },
    });
    expect((parsed.provider.source as { manifest_digest: string }).manifest_digest).toMatch(/^[0-9a-f]{64}$/);
  });

  it("a capability, text: its providers in router order, each in the explain order", async () => {
    const sandbox = seedSandbox();
    const result = await sandbox.run(["capability", "inspect", "workflow.code_review"]);
    expect(result.code).toBe(0);
    expect(result.out.split("\n")[0]).toBe("workflow.code_review: 1 provider(s) in router order");
    const at = (text: string) => result.out.indexOf(text);
    const order = [
      "1. code-review-skill: registered",
      "source:",
      "schemas:",
      "runtime gate:",
      "permissions:",
      "conflicts:",
      "diagnostics:",
      "generation:",
      "limits:",
    ];
    for (const [index, text] of order.entries()) {
      expect(at(text), text).toBeGreaterThan(-1);
      if (index > 0) expect(at(text), text).toBeGreaterThan(at(order[index - 1] as string));
    }
    expect(result.out).toContain("limits:       timeout 120000 ms, concurrency 1, prompt 100000 bytes");
  });

  it("--runtime team: the normal-only adapter is shown, not registered", async () => {
    const sandbox = seedSandbox();
    const result = await sandbox.run([
      "capability",
      "inspect",
      "code-review-skill",
      "--runtime",
      "team",
      "--json",
    ]);
    const parsed = JSON.parse(result.out) as {
      provider: { decision: { status: string; reasons: string[] } };
    };
    expect(parsed.provider.decision).toMatchObject({
      status: "display_only",
      reasons: ["runtime_gate_mismatch"],
    });
  });

  it("an unknown id is not_found; an unknown runtime is refused by the parser", async () => {
    const sandbox = seedSandbox();
    const unknown = await sandbox.run(["capability", "inspect", "nothing-here"]);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain("[not_found]");
    const runtime = await sandbox.run(["capability", "list", "--runtime", "root"]);
    expect(runtime.code).toBe(2);
  });
});

describe("list, explain and doctor show capability decisions", () => {
  it("list: the capability section in text, every decision in JSON", async () => {
    const sandbox = seedSandbox();
    const text = await sandbox.run(["list"]);
    expect(text.code).toBe(0);
    expect(text.out).toContain("Capabilities (normal runtime):");
    expect(text.out).toMatch(
      /code-review-skill\s+workflow_skill\s+registered\s+registered\s+workflow\.code_review/,
    );
    const json = JSON.parse((await sandbox.run(["list", "--json"])).out) as {
      capabilities: Array<{ id: string; status: string }>;
    };
    expect(json.capabilities.map((item) => [item.id, item.status])).toEqual([
      ["code-review-skill", "registered"],
    ]);
  });

  it("explain a provider id: the decision first, then source, schemas, gate, permissions, conflicts, diagnostics", async () => {
    const sandbox = seedSandbox();
    const result = await sandbox.run(["explain", "code-review-skill"]);
    expect(result.code).toBe(0);
    const lines = result.out.split("\n");
    expect(lines[0]).toBe("code-review-skill: registered (registered) in normal");
    const headings = lines.filter((line) => /^[a-z ]+:$/.test(line));
    expect(headings).toEqual([
      "source:",
      "schemas:",
      "runtime gate:",
      "permissions:",
      "conflicts:",
      "diagnostics:",
    ]);
  });

  it("explain a skill: its capability decisions after what the catalog knows (text and JSON)", async () => {
    const sandbox = seedSandbox();
    const text = await sandbox.run(["explain", "code-review"]);
    expect(text.code).toBe(0);
    expect(text.out).toContain("capability:\n  code-review-skill: registered (registered) in normal");
    const json = JSON.parse((await sandbox.run(["explain", "code-review", "--json"])).out) as {
      capabilities: Array<{ decision: { id: string } }>;
    };
    expect(json.capabilities.map((item) => item.decision.id)).toEqual(["code-review-skill"]);
    // A bare skill shows its own decision: display-only until a manifest gives it schemas.
    writeSkill(sandbox.skills, "bare", { frontMatter: { name: "bare", description: "Bare." } });
    const bare = JSON.parse((await sandbox.run(["explain", "bare", "--json"])).out) as {
      capabilities: Array<{ decision: { id: string; status: string; reasons: string[] } }>;
    };
    expect(bare.capabilities.map((item) => item.decision)).toMatchObject([
      { id: "skill:bare", status: "display_only", reasons: ["capability_missing_schema"] },
    ]);
  });

  it("doctor: a broken manifest is an error with its fix, and the counts and manifest folders are reported", async () => {
    const sandbox = seedSandbox();
    writeFileSync(
      join(sandbox.config, "adapters", "code-review-skill.yaml"),
      yamlOf(withField(seedAdapterManifest(), "skill.output_schema", undefined)),
    );
    const result = await sandbox.run(["doctor", "--json"]);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.out) as {
      problems: Array<{ code: string; subject: string; fix: string }>;
      capabilities: {
        counts: Record<string, number>;
        manifestFolders: Array<{ folder: string; found: number }>;
      };
    };
    expect(report.problems).toContainEqual(
      expect.objectContaining({
        code: "capability_missing_schema",
        subject: "code-review-skill",
        fix: "give the manifest both input_schema and output_schema",
      }),
    );
    expect(report.capabilities.counts.rejected).toBe(1);
    expect(report.capabilities.manifestFolders[0]).toMatchObject({
      folder: join(sandbox.config, "adapters"),
      found: 1,
    });
    const text = await sandbox.run(["doctor"]);
    expect(text.out).toContain("Capabilities (normal runtime):");
    expect(text.out).toContain("code-review-skill: capability_missing_schema:");
  });
});
