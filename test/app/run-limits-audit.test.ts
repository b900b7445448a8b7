import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createSkillgate } from "../../src/app/skillgate.js";
import { queryAuditFolder } from "../../src/observe/audit-read.js";
import { silentLogger } from "../../src/observe/logger.js";
import { CGROUP_PARENT_VARIABLE, hostCgroupSupport } from "../../src/runners/sandbox/cgroup-detect.js";
import { isolatedFolders, makeTree, writeSkill } from "../helpers/skill-tree.js";

const saved = process.env[CGROUP_PARENT_VARIABLE];
afterEach(() => {
  if (saved === undefined) delete process.env[CGROUP_PARENT_VARIABLE];
  else process.env[CGROUP_PARENT_VARIABLE] = saved;
});

async function runOnce(chatId: string) {
  const tree = makeTree();
  const folders = isolatedFolders(tree);
  const project = join(tree, "project");
  writeSkill(join(project, ".agents", "skills"), "counter", {
    frontMatter: { description: "Count.", metadata: { "skillgate.tier": "read" } },
    files: { "scripts/count.py": "print('counted')\n" },
  });
  const skillgate = createSkillgate({ ...folders, roots: [project], builtins: false, logger: silentLogger });
  try {
    const turn = skillgate.createTurn({ chatId });
    const result = await turn.call("run_skill_script", { skill: "counter", script: "scripts/count.py" });
    if (result.text.includes("bubblewrap"))
      throw new Error(`the sandbox is not usable here (${result.text}); run scripts/install-test-deps.sh`);
    const events = queryAuditFolder(join(folders.data, "audit"), { chat: chatId });
    return { result, tree, limits: events.filter((event) => event.type === "run-limits") };
  } finally {
    skillgate.close();
  }
}

describe("a sandboxed run's limits are in the audit trail", () => {
  it("records run-limits with the call's request id and what enforced each limit", async () => {
    delete process.env[CGROUP_PARENT_VARIABLE];
    const { result, limits } = await runOnce("limits-chat");
    expect(result.status).toBe("ok");
    expect(limits).toHaveLength(1);
    const support = hostCgroupSupport();
    expect(limits[0]).toMatchObject({ skill: "counter", requestId: result.requestId });
    expect(limits[0]?.errorKind).toBeUndefined();
    expect(limits[0]?.limits).toMatch(
      support.version === "none"
        ? /^no cgroup; processes rlimit;/
        : new RegExp(`^cgroup ${support.version} \\(`),
    );
    expect(limits[0]?.limits).toContain("file rlimit; tmp tmpfs; time timer; output output-cap");
  });

  it("a cgroup that cannot be made is recorded as cgroup_failed, with rlimits only", async () => {
    const tree = makeTree();
    const notAFolder = join(tree, "not-a-folder");
    writeFileSync(notAFolder, "");
    process.env[CGROUP_PARENT_VARIABLE] = notAFolder;
    const { result, limits } = await runOnce("failed-chat");
    expect(result.status).toBe("ok");
    expect(limits).toHaveLength(1);
    expect(limits[0]).toMatchObject({
      errorKind: "cgroup_failed",
      limits:
        "no cgroup (failed); processes rlimit; memory rlimit; cpus none; file rlimit; tmp tmpfs; time timer; output output-cap",
    });
  });
});
