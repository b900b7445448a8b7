import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createSkillgate, type SkillgateOptions } from "../../src/app/skillgate.js";
import { silentLogger } from "../../src/observe/logger.js";
import type { ApprovalRequest } from "../../src/policy/approvals.js";
import type { RunResult } from "../../src/runners/contract.js";
import { requireTools } from "../helpers/required-tools.js";
import { hashOf, runnerTree, writeSkillFolder } from "./helpers.js";

/**
 * run_skill_script through createSkillgate's default router: arguments, classification,
 * policy, approval, hash check, snapshot, the local runner.
 */
function setUp(options: { trusted?: string[]; execution?: "local" | "sandbox" } = {}) {
  const tree = runnerTree();
  const config = join(tree.root, "config");
  mkdirSync(config, { recursive: true });
  writeFileSync(
    join(config, "config.yaml"),
    `runners:\n  local:\n    trusted: [${(options.trusted ?? ["demo"]).join(", ")}]\n`,
  );
  const project = join(tree.root, "project");
  const folder = writeSkillFolder(join(project, ".agents", "skills"), "demo", {
    "scripts/run.sh": "echo ran $SKILLGATE_SKILL_ARGS\n",
  });
  writeFileSync(
    join(folder, "SKILL.md"),
    `---\nname: demo\ndescription: A demo skill.\nmetadata:\n  skillgate.execution: ${options.execution ?? "local"}\n---\nRun scripts/run.sh.\n`,
  );
  return { ...tree, config, project, folder };
}

/** A Skillgate over a set-up tree: no built-ins, no audit file, every ask answered "once" unless `options` says otherwise. */
function skillgateOver(
  place: { readonly config: string; readonly data: string; readonly project: string },
  options: SkillgateOptions = {},
) {
  return createSkillgate({
    config: place.config,
    data: place.data,
    roots: [place.project],
    builtins: false,
    audit: false,
    approve: async () => "once",
    ...options,
  });
}

describe("run_skill_script through the default router", () => {
  it("an approved call of a trusted local skill runs and the script's output comes back", async () => {
    const { config, data, project } = setUp();
    const results: RunResult[] = [];
    const skillgate = skillgateOver(
      { config, data, project },
      { logger: silentLogger, observeRuns: { onResult: (_request, result) => results.push(result) } },
    );
    try {
      const turn = skillgate.createTurn({ chatId: "test" });
      const answer = await turn.call("run_skill_script", {
        skill: "demo",
        script: "scripts/run.sh",
        arguments: '{"x": 1}',
      });
      expect(answer.status).toBe("ok");
      expect(answer.text).toContain('ran {"x":1}');
      expect(results[0]).toMatchObject({ status: "ok", stdout: 'ran {"x":1}\n' });
    } finally {
      skillgate.close();
    }
  });

  it("a file swapped in the live folder while the person was being asked does not run", async () => {
    const { config, data, project, folder, root } = setUp();
    const marker = join(root, "swapped-ran");
    const asked: ApprovalRequest[] = [];
    const skillgate = skillgateOver(
      { config, data, project },
      {
        approve: async (request) => {
          asked.push(request);
          writeFileSync(join(folder, "scripts/run.sh"), `touch ${marker}\n`);
          return "once";
        },
      },
    );
    try {
      const turn = skillgate.createTurn({ chatId: "test" });
      const answer = await turn.call("run_skill_script", { skill: "demo", script: "scripts/run.sh" });
      expect(asked).toHaveLength(1);
      expect(answer.status).toBe("refused");
      expect(answer.text).toMatch(/^HOST: demo changed after this call was approved/);
      expect(answer.text).toMatch(/\[skill_changed\]$/);
      expect(existsSync(marker)).toBe(false);
    } finally {
      skillgate.close();
    }
  });

  it("a local skill the owner has not trusted is refused with the way to trust it", async () => {
    const { config, data, project } = setUp({ trusted: ["other-*"] });
    const skillgate = skillgateOver({ config, data, project });
    try {
      const turn = skillgate.createTurn({ chatId: "test" });
      const answer = await turn.call("run_skill_script", { skill: "demo", script: "scripts/run.sh" });
      expect(answer.status).toBe("refused");
      expect(answer.text).toContain("runners.local.trusted");
      expect(answer.text).toMatch(/\[not_trusted\]$/);
    } finally {
      skillgate.close();
    }
  });

  it("the configuration's limits apply: a script past runners.limits.timeout_seconds is timed_out", async () => {
    const { config, data, project, folder } = setUp();
    writeFileSync(
      join(config, "config.yaml"),
      "runners:\n  local:\n    trusted: [demo]\n  limits:\n    timeout_seconds: 1\n",
    );
    writeFileSync(join(folder, "scripts/run.sh"), "sleep 300\n");
    const skillgate = skillgateOver({ config, data, project });
    try {
      const turn = skillgate.createTurn({ chatId: "test" });
      const answer = await turn.call("run_skill_script", { skill: "demo", script: "scripts/run.sh" });
      expect(answer.status).toBe("timed_out");
      expect(answer.text).toContain("HOST: the script ran past its time limit (1 s)");
    } finally {
      skillgate.close();
    }
  });

  it("a sandbox skill runs in the default sandbox from its snapshot, as the sandbox user", async () => {
    requireTools("bwrap", "socat", "prlimit");
    const { config, data, project, folder } = setUp({ execution: "sandbox" });
    writeFileSync(join(folder, "scripts/run.sh"), 'echo "$(id -u) $SKILLGATE_SKILL_ARGS"\n');
    const skillgate = skillgateOver({ config, data, project });
    try {
      const turn = skillgate.createTurn({ chatId: "test" });
      const answer = await turn.call("run_skill_script", {
        skill: "demo",
        script: "scripts/run.sh",
        arguments: { a: 1 },
      });
      expect(answer.status).toBe("ok");
      expect(answer.text).toContain('65534 {"a":1}');
      expect(existsSync(join(data, "runs", "snapshots", hashOf(folder)))).toBe(true);
    } finally {
      skillgate.close();
    }
  });
});
