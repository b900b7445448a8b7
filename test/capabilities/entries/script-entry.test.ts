import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scriptEntryProvider } from "../../../src/capabilities/entries/script-entry.js";
import type { Caller } from "../../../src/capabilities/pipeline/invocation.js";
import { CapabilityPipeline } from "../../../src/capabilities/pipeline/invoke.js";
import { RunnerRouter } from "../../../src/runners/router.js";
import { SandboxRunner } from "../../../src/runners/sandbox/sandbox-runner.js";
import { SnapshotStore } from "../../../src/runners/snapshot.js";
import { hashOf, runnerTree, writeSkillFolder } from "../../runners/helpers.js";
import { requireBubblewrap } from "../../runners/sandbox/harness.js";
import { descriptor, memoryIndex, NO_PERMISSIONS } from "../helpers/memory-index.js";

// Each script reads its JSON arguments from stdin, as every skillgate script does.
const SCRIPTS = {
  "scripts/review.py":
    "import json, sys\nargs = json.load(sys.stdin)\nprint(json.dumps({'summary': 'reviewed ' + args['scope'], 'findings': [args.get('severity', 'all')]}))\n",
  "scripts/not-json.py": "print('this is not json')\n",
  "scripts/wrong-shape.py": "import json\nprint(json.dumps({'summary': 1}))\n",
  "scripts/fails.py": "import sys\nsys.exit(3)\n",
};

const caller: Caller = {
  kind: "turn",
  agentId: "chat-1",
  runtimeMode: "normal",
  interactive: true,
  scope: { kind: "chat", id: "chat-1" },
};

const sandbox = new SandboxRunner({ prestart: false });
beforeAll(() => requireBubblewrap());
afterAll(() => sandbox.close());

function pipelineFor(script: string) {
  const tree = runnerTree();
  const folder = writeSkillFolder(tree.skills, "code-review", SCRIPTS);
  const snapshots = new SnapshotStore({ dataFolder: tree.data });
  const router = new RunnerRouter({ snapshots, runners: { sandbox } });
  const provider = scriptEntryProvider({
    descriptor: descriptor({ id: "code-review-skill", limits: { timeoutMs: 30_000, maxConcurrency: 2 } }),
    permissions: NO_PERMISSIONS,
    skill: {
      name: "code-review",
      folder,
      hash: hashOf(folder),
      execution: "sandbox",
      network: "none",
      allowedDomains: [],
    },
    script,
    language: "python",
    runner: router,
  });
  return new CapabilityPipeline({ index: memoryIndex([provider]), skillFolders: () => [tree.skills] });
}

describe("script entry", () => {
  it("runs the script in the sandbox with the validated payload and answers its JSON stdout", async () => {
    const result = await pipelineFor("scripts/review.py").invoke(
      { capability: "workflow.code_review", payload: { scope: "current_diff", severity: "major" } },
      caller,
    );
    expect(result.ok && result.output).toEqual({ summary: "reviewed current_diff", findings: ["major"] });
    expect(result.record.outputBytes).toBeGreaterThan(0);
  });

  it("refuses stdout that is not JSON with output_invalid", async () => {
    const result = await pipelineFor("scripts/not-json.py").invoke(
      { capability: "workflow.code_review", payload: { scope: "workspace" } },
      caller,
    );
    expect(!result.ok && result.refusal.code).toBe("output_invalid");
  });

  it("refuses JSON outside the output schema with output_invalid", async () => {
    const result = await pipelineFor("scripts/wrong-shape.py").invoke(
      { capability: "workflow.code_review", payload: { scope: "workspace" } },
      caller,
    );
    expect(!result.ok && result.refusal.code).toBe("output_invalid");
  });

  it("fails a non-zero exit with capability_failed", async () => {
    const result = await pipelineFor("scripts/fails.py").invoke(
      { capability: "workflow.code_review", payload: { scope: "workspace" } },
      caller,
    );
    expect(!result.ok && result.refusal).toMatchObject({
      code: "capability_failed",
      message: expect.stringMatching(/exited 3/),
    });
  });
});
