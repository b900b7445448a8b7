import { spawnSync } from "node:child_process";
import { mkdirSync, realpathSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { createCatalog } from "../../src/catalog/catalog.js";
import { makeTree, writeSkill } from "../helpers/skill-tree.js";

const repository = join(import.meta.dirname, "..", "..");

describe("every test file gets a private home", () => {
  it("HOME, the XDG folders and SKILLGATE_HOME point into a temporary folder of this file", () => {
    const temporary = realpathSync(tmpdir());
    const home = process.env.HOME ?? "";
    expect(home.startsWith(`${temporary}${sep}skillgate-test-home-`)).toBe(true);
    expect(homedir()).toBe(home);
    for (const name of ["XDG_CONFIG_HOME", "XDG_DATA_HOME", "SKILLGATE_HOME"])
      expect(process.env[name]?.startsWith(`${home}${sep}`), name).toBe(true);
    expect(process.env.SKILLGATE_MCP_TOKEN).toBeUndefined();
    expect(process.env.GITHUB_TOKEN).toBeUndefined();
  });

  it("a catalog on its defaults finds no skill of the person running the suite", () => {
    const catalog = createCatalog({ builtins: false });
    expect(catalog.folders.home).toBe(process.env.HOME);
    expect(catalog.discover().skills).toEqual([]);
  });

  it("the MCP HTTP suite still passes when the outer HOME holds skills of its own", () => {
    // The outer home of someone with skills: ~/.agents/skills and a skillgate config folder.
    const outer = makeTree("skillgate-outer-home-");
    for (let index = 0; index < 30; index += 1)
      writeSkill(join(outer, ".agents", "skills"), `mine-${index}`, { files: { "notes.md": "mine\n" } });
    mkdirSync(join(outer, ".config", "skillgate", "skills"), { recursive: true });
    writeSkill(join(outer, ".config", "skillgate", "skills"), "configured-one");
    const environment: NodeJS.ProcessEnv = { ...process.env, HOME: outer };
    for (const name of [
      "XDG_CONFIG_HOME",
      "XDG_DATA_HOME",
      "XDG_CACHE_HOME",
      "XDG_STATE_HOME",
      "SKILLGATE_HOME",
    ])
      delete environment[name];
    // The suite that counted a user's ~/.agents/skills (275 resources where 8 were expected).
    const run = spawnSync(
      process.execPath,
      [join(repository, "node_modules", "vitest", "vitest.mjs"), "run", "test/surfaces/mcp/http.test.ts"],
      { cwd: repository, env: environment, encoding: "utf8" },
    );
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
  }, 300_000);
});
