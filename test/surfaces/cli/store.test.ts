import { spawnSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeGithub, startFakeGithub } from "../../helpers/fake-github.js";
import { handmadeZip } from "../../store/import/handmade-zip.js";
import { SKILL_MD, yazlZip } from "../../store/import/zip-fixtures.js";
import { cliSandbox, hasStackTrace } from "./harness.js";

const servers: FakeGithub[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

const json = <T>(text: string): T => JSON.parse(text) as T;

describe("skillgate store", () => {
  it("lists the built-ins on a new store, duplicates one, enables it by its full hash, and the catalog offers it", async () => {
    const sandbox = cliSandbox();
    const listed = json<{ skills: { name: string; source: string; enabled: boolean }[] }>(
      (await sandbox.run(["store", "list", "--json"])).out,
    );
    expect(listed.skills.every((skill) => skill.source === "builtin" && skill.enabled)).toBe(true);
    expect(listed.skills.map((skill) => skill.name)).toContain("skill-authoring");

    const duplicated = await sandbox.run(["store", "duplicate", "json-tools", "my-json", "--json"]);
    expect(duplicated.code).toBe(0);
    const change = json<{ name: string; hash: string; enabled: boolean; source: string }>(duplicated.out);
    expect(change).toMatchObject({ name: "my-json", enabled: false, source: "owner" });

    const before = await sandbox.run(["list", "--all", "--json"]);
    const beforeDecision = json<{
      skills: { name: string; decision: string; reasons: { code: string }[] }[];
    }>(before.out).skills.find((skill) => skill.name === "my-json");
    expect(beforeDecision).toMatchObject({ decision: "disabled", reasons: [{ code: "disabled_in_store" }] });

    const wrong = await sandbox.run(["store", "enable", "my-json", "--hash", "0".repeat(64)]);
    expect(wrong.code).toBe(1);
    expect(wrong.err).toMatch(/^skillgate: .*\[unknown_hash\]\n$/);
    expect(hasStackTrace(wrong.err)).toBe(false);

    const shown = json<{ hash: string; files: { path: string }[] }>(
      (await sandbox.run(["store", "show", "my-json", "--json"])).out,
    );
    expect(shown.hash).toBe(change.hash);
    const enabled = await sandbox.run(["store", "enable", "my-json", "--hash", shown.hash]);
    expect(enabled.code).toBe(0);
    expect(enabled.out).toContain("my-json: enabled");

    const after = json<{ skills: { name: string; source: string; decision: string }[] }>(
      (await sandbox.run(["list", "--json"])).out,
    );
    expect(after.skills.find((skill) => skill.name === "my-json")).toMatchObject({
      source: "store",
      decision: "registered",
    });

    expect((await sandbox.run(["store", "disable", "my-json"])).code).toBe(0);
    const removed = await sandbox.run(["store", "rm", "my-json", "--yes", "--json"]);
    expect(json<{ deleted: boolean }>(removed.out).deleted).toBe(true);
    expect((await sandbox.run(["store", "show", "my-json"])).err).toMatch(/\[not_found\]/);
  });

  it("list shows each skill's author, runner, tier and review warnings, as the HTTP API lists them", async () => {
    const sandbox = cliSandbox();
    const listed = json<{ skills: Record<string, unknown>[] }>(
      (await sandbox.run(["store", "list", "--json"])).out,
    );
    expect(listed.skills.find((skill) => skill.name === "json-tools")).toMatchObject({
      source: "builtin",
      author: "builtin",
      runner: "sandbox",
      tier: "read",
      reviewWarnings: expect.any(Number),
      loads: true,
    });
    const text = (await sandbox.run(["store", "list"])).out;
    expect(text.split("\n")[0]?.split(/\s{2,}/)).toEqual([
      "NAME",
      "SOURCE",
      "STATE",
      "HASH",
      "AUTHOR",
      "RUNNER",
      "TIER",
      "WARNINGS",
      "UPDATED",
    ]);
    expect(text).toMatch(
      /^json-tools\s+builtin\s+enabled\s+[0-9a-f]{8}\s+builtin\s+sandbox\s+read\s+\d+\s+-$/m,
    );
  });

  it("show prints the full hash, the grant, the files and the SKILL.md", async () => {
    const sandbox = cliSandbox();
    const result = await sandbox.run(["store", "show", "json-tools"]);
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/^hash: {4}[0-9a-f]{64}$/m);
    expect(result.out).toMatch(/^grant: {3}skill:json-tools@[0-9a-f]{8}$/m);
    expect(result.out).toContain("SKILL.md (");
    expect(result.out).toContain("name: json-tools");
  });

  it("imports a zip as a disabled skill and says how to enable it", async () => {
    const sandbox = cliSandbox();
    const archive = join(sandbox.tree, "demo.zip");
    writeFileSync(
      archive,
      await yazlZip({ "demo/SKILL.md": SKILL_MD, "demo/scripts/run.py": "print('hi')\n" }),
    );
    const result = await sandbox.run(["store", "import", archive]);
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/demo: imported \(disabled\); hash [0-9a-f]{64}/);
    expect(result.out).toMatch(/skillgate store enable demo --hash [0-9a-f]{64}/);
    const listed = json<{ skills: { name: string; source: string; enabled: boolean; origin?: string }[] }>(
      (await sandbox.run(["store", "list", "--json"])).out,
    );
    expect(listed.skills.find((skill) => skill.name === "demo")).toMatchObject({
      source: "zip",
      enabled: false,
      origin: "demo.zip",
    });
  });

  it("imports a local folder (no EISDIR), refuses a link in one, and --replace updates it, saved disabled", async () => {
    const sandbox = cliSandbox();
    const folder = join(sandbox.tree, "demo");
    mkdirSync(join(folder, "scripts"), { recursive: true });
    writeFileSync(join(folder, "SKILL.md"), SKILL_MD);
    writeFileSync(join(folder, "scripts", "run.py"), "print('one')\n");
    const imported = await sandbox.run(["store", "import", folder]);
    expect(imported.err).toBe("");
    expect(imported.code).toBe(0);
    expect(imported.out).toMatch(/demo: imported \(disabled\); hash [0-9a-f]{64}/);
    const firstHash = /--hash ([0-9a-f]{64})/.exec(imported.out)?.[1] ?? "";
    expect((await sandbox.run(["store", "enable", "demo", "--hash", firstHash])).code).toBe(0);

    const taken = await sandbox.run(["store", "import", folder]);
    expect(taken.code).toBe(1);
    expect(taken.err).toMatch(/\[skill_exists\]\n$/);

    writeFileSync(join(folder, "scripts", "run.py"), "print('two')\n");
    const replaced = await sandbox.run(["store", "import", folder, "--replace", "--json"]);
    expect(replaced.code).toBe(0);
    const change = json<{ name: string; enabled: boolean; hash: string; source: string }>(replaced.out);
    expect(change).toMatchObject({ name: "demo", enabled: false, source: "folder" });
    expect(change.hash).not.toBe(firstHash);
    const stale = await sandbox.run(["store", "enable", "demo", "--hash", firstHash]);
    expect(stale.code).toBe(1);
    expect(stale.err).toMatch(/earlier version.*\[skill_changed\]\n$/);
    expect((await sandbox.run(["store", "enable", "demo", "--hash", change.hash])).code).toBe(0);

    symlinkSync("/etc/passwd", join(folder, "passwd"));
    const linked = await sandbox.run(["store", "import", folder, "--replace"]);
    expect(linked.code).toBe(1);
    expect(linked.err).toMatch(/^skillgate: .*\[symlink_not_allowed\]\n$/);
    expect(hasStackTrace(linked.err)).toBe(false);
  });

  it("a mistyped hash is unknown_hash, not 'changed'", async () => {
    const sandbox = cliSandbox();
    const folder = join(sandbox.tree, "demo");
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "SKILL.md"), SKILL_MD);
    const imported = await sandbox.run(["store", "import", folder]);
    const hash = /--hash ([0-9a-f]{64})/.exec(imported.out)?.[1] ?? "";
    const mistyped = `${hash.slice(0, 63)}${hash.endsWith("a") ? "b" : "a"}`;
    const result = await sandbox.run(["store", "enable", "demo", "--hash", mistyped]);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/is not one skill "demo" has ever had.*\[unknown_hash\]\n$/);
    expect(result.err).not.toContain("changed");
  });

  it("refuses a hostile zip with its code and a missing file with not_found, one line each", async () => {
    const sandbox = cliSandbox();
    const archive = join(sandbox.tree, "slip.zip");
    writeFileSync(
      archive,
      handmadeZip([
        { name: "SKILL.md", data: Buffer.from(SKILL_MD) },
        { name: "a/../../evil.txt", data: Buffer.from("x") },
      ]),
    );
    const slip = await sandbox.run(["store", "import", archive]);
    expect(slip.code).toBe(1);
    expect(slip.err).toMatch(/^skillgate: .*\[path_not_allowed\]\n$/);
    const missing = await sandbox.run(["store", "import", join(sandbox.tree, "nope.zip")]);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/^skillgate: no file named .*\[not_found\]\n$/);
    const listed = json<{ skills: { source: string }[] }>(
      (await sandbox.run(["store", "list", "--json"])).out,
    );
    expect(listed.skills.every((skill) => skill.source === "builtin")).toBe(true);
  });

  it("imports from a GitHub folder address through the API", async () => {
    const server = await startFakeGithub({
      owner: "octo",
      repo: "skills",
      ref: "main",
      files: { "skills/demo/SKILL.md": SKILL_MD },
    });
    servers.push(server);
    const sandbox = cliSandbox();
    const result = await sandbox.run([
      "store",
      "import",
      "https://github.com/octo/skills/tree/main/skills/demo",
      "--github-api",
      server.baseUrl,
      "--json",
    ]);
    expect(result.code).toBe(0);
    expect(json<{ name: string; source: string }>(result.out)).toMatchObject({
      name: "demo",
      source: "github",
    });
  });

  it("refuses an address that is not a GitHub folder, showing the expected form", async () => {
    const sandbox = cliSandbox();
    const result = await sandbox.run([
      "store",
      "import",
      "https://github.com/octo/skills/blob/main/SKILL.md",
    ]);
    expect(result.code).toBe(1);
    expect(result.err).toContain("https://github.com/OWNER/REPO/tree/REF/PATH");
    expect(result.err).toMatch(/\[invalid_github_url\]\n$/);
  });

  it("a built-in cannot be deleted or disabled", async () => {
    const sandbox = cliSandbox();
    const removed = await sandbox.run(["store", "rm", "json-tools", "--yes"]);
    expect(removed.code).toBe(1);
    expect(removed.err).toMatch(/\[builtin_read_only\]/);
    expect((await sandbox.run(["store", "disable", "json-tools"])).err).toMatch(/\[builtin_read_only\]/);
  });

  it("a missing --hash is a usage error", async () => {
    const sandbox = cliSandbox();
    const result = await sandbox.run(["store", "enable", "json-tools"]);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/^skillgate: .*--hash/);
  });
});

describe("store show on a terminal", () => {
  it("shows an imported SKILL.md's terminal controls escaped (a real pseudo-terminal), raw into a pipe", async () => {
    const sandbox = cliSandbox();
    const folder = join(sandbox.tree, "demo");
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "SKILL.md"), `${SKILL_MD}\u001b]0;pwned\u0007\u001b[2J\n`);
    expect((await sandbox.run(["store", "import", folder])).code).toBe(0);
    const repository = join(import.meta.dirname, "..", "..", "..");
    const command = [process.execPath, "--import", "tsx", join(repository, "src/surfaces/cli/main.ts")];
    const argv = [...command, ...sandbox.flags(), "store", "show", "demo"];
    const env = { PATH: process.env.PATH ?? "", HOME: sandbox.home, NO_COLOR: "1" };
    const quoted = argv.map((part) => `'${part.replace(/'/g, "'\\''")}'`).join(" ");
    const onTerminal = spawnSync("script", ["-qfec", quoted, "/dev/null"], {
      cwd: repository,
      env,
      encoding: "utf8",
    });
    expect(onTerminal.status).toBe(0);
    expect(onTerminal.stdout).toContain("\\x1b]0;pwned\\x07\\x1b[2J");
    expect(onTerminal.stdout).not.toContain("\u001b]0;");
    const piped = spawnSync(argv[0] as string, argv.slice(1), { cwd: repository, env, encoding: "utf8" });
    expect(piped.status).toBe(0);
    expect(piped.stdout).toContain("\u001b]0;pwned\u0007\u001b[2J");
  });
});
