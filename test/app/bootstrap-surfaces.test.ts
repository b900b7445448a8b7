import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bootstrapSkillgate } from "../../src/app/bootstrap.js";
import { silentLogger } from "../../src/observe/logger.js";
import { skillgateTools } from "../../src/surfaces/ai-sdk/tools.js";
import { McpHost } from "../../src/surfaces/mcp/host.js";
import { type CliSandbox, cliSandbox } from "../surfaces/cli/harness.js";
import { connectClient, resultText } from "../surfaces/mcp/harness.js";

/**
 * One owner setup, every surface: a `before_tool` hook in `<config>/hooks.json` that denies
 * `run_*` calls, and an extension in `<config>/extensions` that registers a skill. Each
 * surface (the CLI's `run`, its catalog commands, MCP, the library and the AI SDK tools) must
 * deny the call with the hook's reason and list the extension's skill, because each gets its
 * Skillgate or catalog from the one bootstrap (app/bootstrap.ts).
 */

const DENIAL = "the owner allows no script runs from here";
const EXTENSION_SKILL = "house-style";

/** A local-mode skill `demo`, trusted to run on the host, whose script prints `script-ran`. */
function writeTrustedDemo(sandbox: CliSandbox): void {
  sandbox.writeConfig("runners:\n  local:\n    trusted: [demo]\n");
  const folder = join(sandbox.skills, "demo");
  mkdirSync(join(folder, "scripts"), { recursive: true });
  writeFileSync(
    join(folder, "SKILL.md"),
    "---\nname: demo\ndescription: A demo skill whose script prints a line.\nmetadata:\n  skillgate.execution: local\n---\nRun scripts/hello.sh.\n",
  );
  writeFileSync(join(folder, "scripts", "hello.sh"), "echo script-ran\n");
}

function ownerSetup(): CliSandbox {
  const sandbox = cliSandbox();
  writeTrustedDemo(sandbox);
  writeFileSync(
    join(sandbox.config, "hooks.json"),
    JSON.stringify([
      { event: "before_tool", match: "run_*", command: `echo '${JSON.stringify({ deny: DENIAL })}'` },
    ]),
  );
  mkdirSync(join(sandbox.config, "extensions"), { recursive: true });
  writeFileSync(
    join(sandbox.config, "extensions", "style.js"),
    // reg.skill(name, body, description)
    `export function setup(reg) { reg.skill("${EXTENSION_SKILL}", "Write dense lines with short names.", "How code is written in this house: dense lines."); }\n`,
  );
  return sandbox;
}

function libraryOptions(sandbox: CliSandbox) {
  return {
    config: sandbox.config,
    data: sandbox.data,
    roots: [sandbox.project],
    builtins: false,
    logger: silentLogger,
  };
}

describe("the same hooks and extensions on every surface", () => {
  it("CLI run: the owner's before_tool hook denies the run", async () => {
    const sandbox = ownerSetup();
    const result = await sandbox.run(["run", "demo", "scripts/hello.sh", "--yes"]);
    expect(result.err).toContain(DENIAL);
    expect(result.err).toMatch(/^HOST:/);
    expect(result.out).not.toContain("script-ran");
    expect(result.code).toBe(1);
  });

  it("CLI list, explain, index, search and doctor: the extension's skill is there", async () => {
    const sandbox = ownerSetup();
    const list = JSON.parse((await sandbox.run(["list", "--json"])).out) as { skills: { name: string }[] };
    expect(list.skills.map((skill) => skill.name)).toContain(EXTENSION_SKILL);
    const explain = await sandbox.run(["explain", EXTENSION_SKILL, "--json"]);
    expect(explain.code).toBe(0);
    expect(JSON.parse(explain.out)).toMatchObject({ name: EXTENSION_SKILL, decision: "registered" });
    expect((await sandbox.run(["index"])).out).toContain(EXTENSION_SKILL);
    const search = JSON.parse((await sandbox.run(["search", "dense", "lines", "--json"])).out) as {
      results: { name: string }[];
    };
    expect(search.results.map((hit) => hit.name)).toContain(EXTENSION_SKILL);
    const doctor = JSON.parse((await sandbox.run(["doctor", "--json"])).out) as {
      counts: { registered: number };
    };
    // demo and the extension's skill.
    expect(doctor.counts.registered).toBe(2);
  });

  it("MCP: the hook denies run_skill_script and the extension's skill is listed", async () => {
    const sandbox = ownerSetup();
    const host = await McpHost.open({ ...libraryOptions(sandbox), watchIntervalMs: false });
    try {
      const { client } = await connectClient(host);
      const denied = await client.callTool({
        name: "run_skill_script",
        arguments: { skill: "demo", script: "scripts/hello.sh" },
      });
      expect(resultText(denied)).toMatch(/^HOST:/);
      expect(resultText(denied)).toContain(DENIAL);
      const loaded = await client.callTool({ name: "load_skill", arguments: { skill: EXTENSION_SKILL } });
      expect(resultText(loaded)).toContain("Write dense lines with short names.");
    } finally {
      await host.close();
    }
  });

  it("library and AI SDK tools: the hook denies and the turn's index lists the extension's skill", async () => {
    const sandbox = ownerSetup();
    const skillgate = await bootstrapSkillgate(libraryOptions(sandbox));
    try {
      const turn = skillgate.createTurn({ chatId: "library" });
      expect(turn.skillIndex()).toContain(EXTENSION_SKILL);
      const direct = await turn.call("run_skill_script", { skill: "demo", script: "scripts/hello.sh" });
      expect(direct.status).toBe("denied");
      expect(direct.text).toContain(DENIAL);
      const tools = skillgateTools(turn);
      const execute = tools.run_skill_script?.execute;
      if (execute === undefined) throw new Error("run_skill_script has no execute");
      const viaAiSdk = await execute(
        { skill: "demo", script: "scripts/hello.sh" },
        { toolCallId: "call-1", messages: [] },
      );
      expect(viaAiSdk).toMatchObject({ status: "denied" });
      expect((viaAiSdk as { text: string }).text).toContain(DENIAL);
    } finally {
      skillgate.close();
    }
  });

  it("a project's hooks deny only with the opt-in, on the CLI as over MCP", async () => {
    const sandbox = cliSandbox();
    writeTrustedDemo(sandbox);
    mkdirSync(join(sandbox.project, ".skillgate"), { recursive: true });
    writeFileSync(
      join(sandbox.project, ".skillgate", "hooks.json"),
      JSON.stringify([{ event: "before_tool", command: `echo '${JSON.stringify({ deny: DENIAL })}'` }]),
    );
    const without = await sandbox.run(["run", "demo", "scripts/hello.sh", "--yes"]);
    expect(without.out).toContain("script-ran");
    const opted = await sandbox.run(["--project-extensions", "run", "demo", "scripts/hello.sh", "--yes"]);
    expect(opted.err).toContain(DENIAL);
    expect(opted.out).not.toContain("script-ran");
    const host = await McpHost.open({
      ...libraryOptions(sandbox),
      projectExtensions: true,
      watchIntervalMs: false,
    });
    try {
      const { client } = await connectClient(host);
      const denied = await client.callTool({
        name: "run_skill_script",
        arguments: { skill: "demo", script: "scripts/hello.sh" },
      });
      expect(resultText(denied)).toContain(DENIAL);
    } finally {
      await host.close();
    }
  });
});
