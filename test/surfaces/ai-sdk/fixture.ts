import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSkillgate } from "../../../src/app/skillgate.js";
import type { AuditEvent } from "../../../src/observe/events.js";
import { silentLogger } from "../../../src/observe/logger.js";
import type { Approver } from "../../../src/tools/broker.js";
import { isolatedFolders, makeTree, writeSkill } from "../../helpers/skill-tree.js";

/** The script of the fixture's skill: it prints its arguments. */
export const CHECK_SCRIPT = 'echo "checked $SKILLGATE_SKILL_ARGS"\n';

/**
 * skillgate over a temporary project holding one real skill, `backup-check` (tier change,
 * run locally: the owner trusts it in config.yaml, so the local runner runs its script as a
 * child process), with the audit events collected in memory. Nothing is faked but the
 * approver the test passes.
 */
export function backupCheckFixture(approve: Approver) {
  const tree = makeTree();
  const folders = isolatedFolders(tree);
  mkdirSync(folders.config, { recursive: true });
  writeFileSync(join(folders.config, "config.yaml"), "runners:\n  local:\n    trusted: [backup-check]\n");
  const project = join(tree, "project");
  const folder = writeSkill(join(project, ".agents", "skills"), "backup-check", {
    frontMatter: {
      name: "backup-check",
      description: "Check that last night's backup finished.",
      metadata: {
        "skillgate.execution": "local",
        "skillgate.tier": "change",
        parameters_schema:
          '{"type":"object","properties":{"target":{"type":"string"}},"required":["target"]}',
      },
    },
    body: "# Backup check\n\nRun scripts/check.sh with the target to check.\n",
    files: { "scripts/check.sh": CHECK_SCRIPT },
  });
  const events: AuditEvent[] = [];
  const skillgate = createSkillgate({
    ...folders,
    roots: [project],
    builtins: false,
    approve,
    audit: { record: (event) => events.push(event) },
    logger: silentLogger,
  });
  return { skillgate, events, folder, data: folders.data };
}
