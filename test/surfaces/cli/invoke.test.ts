import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SEED_004_FIXTURE } from "../../helpers/capability-tree.js";
import { requireBubblewrap } from "../../runners/sandbox/harness.js";
import { cliSandbox } from "./harness.js";

describe("skillgate invoke", () => {
  it("refuses an unknown capability with its code and exit 1", async () => {
    const sandbox = cliSandbox();
    const run = await sandbox.run(["invoke", "workflow.nothing", "--payload", '{"scope":"current_diff"}']);
    expect(run.code).toBe(1);
    expect(run.out).toBe("");
    expect(run.err).toMatch(
      /^skillgate invoke: capability_unknown: HOST: there is no capability "workflow\.nothing"/,
    );
  });

  it("prints the whole result with --json", async () => {
    const sandbox = cliSandbox();
    const run = await sandbox.run(["invoke", "workflow.nothing", "--json"]);
    expect(run.code).toBe(1);
    const result = JSON.parse(run.out) as {
      ok: boolean;
      refusal: { code: string };
      record: Record<string, unknown>;
    };
    expect(result.ok).toBe(false);
    expect(result.refusal.code).toBe("capability_unknown");
    expect(result.record).toMatchObject({
      agentId: "cli",
      capability: "workflow.nothing",
      status: "refused",
    });
  });

  const USAGE: Array<[string, string[]]> = [
    ["a payload that is not JSON", ["--payload", "{scope"]],
    ["an unknown runtime", ["--runtime", "orbit"]],
    ["a timeout that is not a positive number", ["--timeout-ms", "-3"]],
  ];
  for (const [what, flags] of USAGE)
    it(`refuses ${what} with exit 2`, async () => {
      const sandbox = cliSandbox();
      const run = await sandbox.run(["invoke", "workflow.code_review", ...flags]);
      expect(run.code).toBe(2);
      expect(run.err).toMatch(/^skillgate: --/);
    });
});

describe("skillgate invoke through the registry", () => {
  it("finds the seed's adapter manifest and refuses its sampling entry at a terminal with sampling_unavailable", async () => {
    const sandbox = cliSandbox();
    cpSync(SEED_004_FIXTURE, sandbox.tree, { recursive: true });
    const run = await sandbox.run([
      "invoke",
      "workflow.code_review",
      "--payload",
      '{"scope":"current_diff","severity":"major"}',
      "--json",
    ]);
    const result = JSON.parse(run.out) as {
      ok: boolean;
      refusal: { code: string };
      record: Record<string, unknown>;
    };
    expect(result.refusal.code).toBe("sampling_unavailable");
    expect(result.record).toMatchObject({
      provider: "code-review-skill",
      skillKind: "workflow_skill",
      runtimeGate: "normal",
    });
    expect(run.code).toBe(1);
  });

  it("runs a script entry in the sandbox and prints its output; a hostile payload is refused before it runs", async () => {
    requireBubblewrap();
    const sandbox = cliSandbox();
    sandbox.writeConfig("skills:\n  user_folders:\n    - ~/.codex/skills\n");
    const skill = join(sandbox.home, ".codex", "skills", "review");
    mkdirSync(join(skill, "scripts"), { recursive: true });
    writeFileSync(
      join(skill, "SKILL.md"),
      "---\nname: review\ndescription: Reviews a scope.\n---\nReview it.\n",
    );
    writeFileSync(
      join(skill, "scripts", "review.py"),
      "import json, sys\nargs = json.load(sys.stdin)\nprint(json.dumps({'summary': 'reviewed ' + args['scope'], 'findings': []}))\n",
    );
    mkdirSync(join(sandbox.config, "adapters"), { recursive: true });
    writeFileSync(
      join(sandbox.config, "adapters", "review.yaml"),
      [
        "id: review-skill",
        "transport: skill",
        "skill:",
        "  source: codex",
        "  id: review",
        "  path: ~/.codex/skills/review/SKILL.md",
        "  kind: workflow_skill",
        "  runtime_gate: normal",
        "  entry:",
        "    type: script",
        "    script: scripts/review.py",
        "  input_schema:",
        "    type: object",
        "    required: [scope]",
        "    properties:",
        "      scope: {type: string}",
        "  output_schema:",
        "    type: object",
        "    required: [summary, findings]",
        "capabilities:",
        "  - workflow.review",
        "permissions:",
        "  read_workspace: false",
        "limits:",
        "  timeout_ms: 30000",
        "  max_concurrency: 1",
        "",
      ].join("\n"),
    );
    const run = await sandbox.run(["invoke", "workflow.review", "--payload", '{"scope":"current_diff"}']);
    expect(run.err).toBe("");
    expect(JSON.parse(run.out)).toEqual({ summary: "reviewed current_diff", findings: [] });
    expect(run.code).toBe(0);
    const hostile = await sandbox.run([
      "invoke",
      "workflow.review",
      "--payload",
      '{"scope":"x","more":{"f":"/etc/passwd"}}',
    ]);
    expect(hostile.code).toBe(1);
    expect(hostile.err).toMatch(
      /^skillgate invoke: payload_host_path: HOST: payload: the value at \/more\/f/,
    );
  });
});
