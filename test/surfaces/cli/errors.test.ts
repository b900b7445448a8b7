import { describe, expect, it } from "vitest";
import { cliSandbox, hasStackTrace, runCaptured } from "./harness.js";

/** Every error prints one line starting `skillgate: ` and never a stack trace. */
function expectOneLine(text: string): void {
  expect(text.startsWith("skillgate: ")).toBe(true);
  expect(text.endsWith("\n")).toBe(true);
  expect(text.slice(0, -1)).not.toContain("\n");
  expect(hasStackTrace(text)).toBe(false);
}

describe("CLI errors", () => {
  it.each([
    [["frobnicate"], "unknown command 'frobnicate'"],
    [["lsit"], "unknown command 'lsit' (Did you mean list?)"],
    [["list", "--bogus"], "unknown option '--bogus'"],
    [["explain"], "missing required argument 'name'"],
    [["validate"], "missing required argument 'dir'"],
    [["paths", "extra"], "too many arguments for 'paths'. Expected 0 arguments but got 1."],
  ])("%j is a usage error: exit 2, one line", async (argv, message) => {
    const result = await cliSandbox().run(argv);
    expect(result.code).toBe(2);
    expect(result.out).toBe("");
    expectOneLine(result.err);
    expect(result.err).toBe(`skillgate: ${message} (run skillgate --help for usage)\n`);
  });

  it("no command prints the help on stderr and exits 2", async () => {
    const result = await runCaptured([]);
    expect(result.code).toBe(2);
    expect(result.out).toBe("");
    expect(result.err).toContain("Usage: skillgate [options] [command]");
  });

  it("--help and --version exit 0 on stdout", async () => {
    const help = await runCaptured(["--help"]);
    expect(help.code).toBe(0);
    expect(help.err).toBe("");
    for (const command of ["list", "explain", "doctor", "index", "search", "validate", "paths"])
      expect(help.out).toMatch(new RegExp(`^  ${command} `, "m"));
    const version = await runCaptured(["--version"]);
    expect(version).toEqual({ code: 0, out: "0.1.0\n", err: "" });
    const commandHelp = await runCaptured(["index", "--help"]);
    expect(commandHelp.code).toBe(0);
    expect(commandHelp.out).toContain("--budget <chars>");
    const helpCommand = await runCaptured(["help", "index"]);
    expect(helpCommand.code).toBe(0);
    expect(helpCommand.out).toContain("--budget <chars>");
    expect((await runCaptured(["help"])).code).toBe(0);
  });

  it.each([["list"], ["explain", "x"], ["index"], ["search", "x"], ["paths"]])(
    "a broken configuration stops %s with one line and exit 1",
    async (...argv) => {
      const sandbox = cliSandbox();
      sandbox.writeConfig("skills:\n  disabled: [a]\n  disabled: [b]\nunknown: 1\n");
      const result = await sandbox.run(argv);
      expect(result.code).toBe(1);
      expect(result.out).toBe("");
      expectOneLine(result.err);
      expect(result.err).toMatch(
        /^skillgate: configuration .*config\.yaml is invalid: .*\[invalid_config\]\n$/,
      );
      expect(result.err).toContain("Map keys must be unique");
    },
  );

  it("wrong types and unknown keys in the configuration are named", async () => {
    const sandbox = cliSandbox();
    sandbox.writeConfig("skills:\n  hidden: 3\nindex:\n  budget: lots\n  colour: red\n");
    const result = await sandbox.run(["list"]);
    expect(result.code).toBe(1);
    expectOneLine(result.err);
    expect(result.err).toContain('"skills.hidden" must be a list of text');
    expect(result.err).toContain('"index.budget" must be a whole number above 0');
    expect(result.err).toContain('unknown key "index.colour"');
  });

  it("leaves process.exitCode as the caller had it", async () => {
    const before = process.exitCode;
    const sandbox = cliSandbox();
    sandbox.writeConfig("nonsense: 1\n");
    expect((await sandbox.run(["list"])).code).toBe(1);
    expect((await sandbox.run(["validate", "/nonexistent-skill-folder"])).code).toBe(1);
    expect(process.exitCode).toBe(before);
  });
});
