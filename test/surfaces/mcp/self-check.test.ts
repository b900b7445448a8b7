import { beforeAll, describe, expect, it } from "vitest";
import { mcpSelfCheck } from "../../../src/surfaces/mcp/self-check.js";
import { cliSandbox } from "../cli/harness.js";
import { ensureBuilt } from "./built-cli.js";
import { mcpTree } from "./harness.js";

/** `skillgate doctor`'s check that `skillgate mcp` starts and answers initialize over stdio. */

beforeAll(() => ensureBuilt());

/** A stand-in for the CLI: a Node script given as the entry, so each failure can be staged. */
const script = (source: string) => [process.execPath, "-e", source];

describe("mcpSelfCheck", () => {
  it("starts the real skillgate mcp with the caller's flags and reports the answer", async () => {
    const tree = mcpTree();
    const result = await mcpSelfCheck({ globalArguments: tree.flags });
    expect(result.detail).toMatch(/^skillgate mcp answered initialize in \d+ ms$/);
    expect(result.ok).toBe(true);
  });

  it("a process that writes anything but MCP messages to stdout is a problem", async () => {
    const result = await mcpSelfCheck({
      entry: script("process.stdout.write('hello\\n'); setInterval(() => {}, 1000)"),
    });
    expect(result).toEqual({
      ok: false,
      detail: "skillgate mcp wrote something other than MCP messages to stdout: hello",
    });
  });

  it("a process that exits before answering is a problem with its last stderr line", async () => {
    const result = await mcpSelfCheck({
      entry: script("console.error('skillgate: configuration is broken'); process.exit(3)"),
    });
    expect(result).toEqual({
      ok: false,
      detail: "skillgate mcp exited (code 3) before answering: skillgate: configuration is broken",
    });
  });

  it("a process that never answers is a problem after the time-out", async () => {
    const result = await mcpSelfCheck({ entry: script("setInterval(() => {}, 1000)"), timeoutMs: 300 });
    expect(result).toEqual({ ok: false, detail: "skillgate mcp did not answer initialize within 300 ms" });
  });

  it("a server that warned its catalog watch is incomplete answers, and the detail says why", async () => {
    const warnThenAnswer = [
      "console.error('skillgate: warn: catalog notifications incomplete: the slow re-check covers the rest reason=\"ENOSPC: the system\\'s inotify watch limit (fs.inotify.max_user_watches) is reached\"');",
      "process.stdin.on('data', () => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'skillgate' } } }) + '\\n'));",
      "process.stdin.on('end', () => process.exit(0));",
    ].join("\n");
    const result = await mcpSelfCheck({ entry: script(warnThenAnswer) });
    expect(result.ok).toBe(true);
    expect(result.detail).toMatch(
      /^skillgate mcp answered initialize in \d+ ms; skillgate: warn: catalog notifications incomplete: the slow re-check covers the rest reason="ENOSPC: /,
    );
  });

  it("a process that answers but does not exit when its input closes is a problem", async () => {
    const answerAndStay = [
      "process.stdin.on('data', () => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'skillgate' } } }) + '\\n'));",
      "setInterval(() => {}, 1000);",
    ].join("\n");
    const result = await mcpSelfCheck({ entry: script(answerAndStay) });
    expect(result.ok).toBe(false);
    expect(result.detail).toMatch(/answered initialize in \d+ ms, but did not exit when its input closed$/);
  });
});

describe("skillgate doctor", () => {
  it("lists the MCP check among its checks", async () => {
    const sandbox = cliSandbox();
    const result = await sandbox.run(["doctor", "--json"]);
    const report = JSON.parse(result.out) as { checks: Array<{ name: string; ok: boolean; detail: string }> };
    expect(report.checks.find((check) => check.name === "mcp")).toEqual({
      name: "mcp",
      ok: true,
      detail: expect.stringMatching(/^skillgate mcp answered initialize in \d+ ms$/),
    });
    expect(result.code).toBe(0);
    const text = await sandbox.run(["doctor"]);
    expect(text.out).toMatch(/^✓ skillgate mcp answered initialize in \d+ ms$/m);
  });

  it("does not start skillgate mcp when the configuration is broken", async () => {
    const sandbox = cliSandbox();
    sandbox.writeConfig("skills: [oops]\n");
    const result = await sandbox.run(["doctor", "--json"]);
    const report = JSON.parse(result.out) as { checks: Array<{ name: string; ok: boolean; detail: string }> };
    expect(report.checks.find((check) => check.name === "mcp")).toEqual({
      name: "mcp",
      ok: false,
      detail: "skillgate mcp not tried: fix the configuration first",
    });
    expect(result.code).toBe(1);
  });
});
