import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { runSkillScript } from "../../src/app/run-skill-script.js";
import { createSkillgate } from "../../src/app/skillgate.js";
import type { Logger } from "../../src/observe/logger.js";
import { FakeRunner } from "../../src/testing/index.js";
import { isolatedFolders, makeTree, writeSkill } from "../helpers/skill-tree.js";

/** A library writes nothing to its embedder's stderr unless it is given a logger. */

afterEach(() => {
  vi.restoreAllMocks();
});

function project() {
  const tree = makeTree();
  const root = join(tree, "project");
  writeSkill(join(root, ".agents", "skills"), "backup-check", {
    frontMatter: {
      description: "Check a backup.",
      metadata: { parameters_schema: '{"type":"object","properties":{"target":{"type":"string"}}}' },
    },
    files: { "scripts/check.py": "print('checked')\n" },
  });
  return { ...isolatedFolders(tree), roots: [root], builtins: false, runner: new FakeRunner() };
}

/** Everything written to this process's stderr while `work` ran. */
async function stderrDuring(work: () => Promise<unknown>): Promise<string[]> {
  const written: string[] = [];
  vi.spyOn(process.stderr, "write").mockImplementation(((chunk: string | Uint8Array) => {
    written.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
    return true;
  }) as typeof process.stderr.write);
  await work();
  return written;
}

// Arguments sent as JSON text are repaired, which is an information line when a logger is given.
const repairedCall = { skill: "backup-check", script: "scripts/check.py", arguments: '{"target": "nas"}' };

describe("the library's logging", () => {
  it("createSkillgate without a logger writes nothing to stderr, even for a repaired call", async () => {
    const skillgate = createSkillgate({ ...project(), approve: async () => "once" });
    const lines = await stderrDuring(async () => {
      const result = await skillgate.createTurn({ chatId: "c" }).call("run_skill_script", repairedCall);
      expect(result.status).toBe("ok");
    });
    skillgate.close();
    expect(lines).toEqual([]);
  });

  it("runSkillScript without a logger writes nothing to stderr", async () => {
    const lines = await stderrDuring(async () => {
      const outcome = await runSkillScript(project(), {
        skill: "backup-check",
        script: "scripts/check.py",
        argumentsText: '{"target": "nas"}',
        approval: "once",
      });
      expect(outcome.status).toBe("ok");
    });
    expect(lines).toEqual([]);
  });

  it("an audit log that cannot be written is reported to the logger, not to stderr", async () => {
    const options = project();
    // A file where the audit folder should be: every audit write fails.
    mkdirSync(options.data, { recursive: true });
    writeFileSync(join(options.data, "audit"), "not a folder");
    const warnings: string[] = [];
    const logger: Logger = { info: () => {}, warn: (message) => warnings.push(message) };
    const lines = await stderrDuring(async () => {
      for (const given of [undefined, logger]) {
        const skillgate = createSkillgate({
          ...options,
          approve: async () => "once",
          ...(given ? { logger: given } : {}),
        });
        await skillgate.createTurn({ chatId: "c" }).call("load_skill", { skill: "backup-check" });
        skillgate.close();
      }
    });
    expect(lines).toEqual([]);
    expect(warnings).toEqual(["audit events are not being written"]);
  });

  it("a logger that is given gets the information line", async () => {
    const infos: string[] = [];
    const logger: Logger = { info: (message) => infos.push(message), warn: (message) => infos.push(message) };
    const skillgate = createSkillgate({ ...project(), approve: async () => "once", logger });
    await skillgate.createTurn({ chatId: "c" }).call("run_skill_script", repairedCall);
    skillgate.close();
    expect(infos).toEqual([
      "Skill arguments for backup-check/scripts/check.py were coerced from a JSON string.",
    ]);
  });
});
