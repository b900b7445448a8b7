import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeTree } from "../../../src/core/remove-tree.js";
import { buildWheel } from "../../helpers/local-packages.js";
import { requireBubblewrap } from "../../runners/sandbox/harness.js";
import { cliSandbox } from "./harness.js";

let wheelsTree: string;
let wheels: string;

beforeAll(() => {
  requireBubblewrap();
  wheelsTree = realpathSync(mkdtempSync(join(tmpdir(), "skillgate-deps-wheels-")));
  wheels = join(wheelsTree, "wheels");
  buildWheel(wheels, "tinypkg", "1.0.0", "deps");
}, 120_000);

afterAll(() => removeTree(wheelsTree));

function depsSandbox() {
  const sandbox = cliSandbox();
  sandbox.writeConfig(`packages:\n  python:\n    find_links: ${wheels}\n`);
  const folder = join(sandbox.skills, "needs");
  mkdirSync(join(folder, "scripts"), { recursive: true });
  writeFileSync(
    join(folder, "SKILL.md"),
    "---\nname: needs\ndescription: Needs a package.\nmetadata:\n  skillgate.tier: read\n---\nBody.\n",
  );
  writeFileSync(join(folder, "scripts", "requirements.txt"), "tinypkg\n");
  writeFileSync(join(folder, "scripts", "go.py"), "import tinypkg\nprint(tinypkg.VALUE)\n");
  const environments = (): string[] => {
    const root = join(sandbox.data, "environments");
    return existsSync(root) ? readdirSync(root).filter((name) => /^[0-9a-f]{64}$/.test(name)) : [];
  };
  return { sandbox, environments };
}

describe("skillgate deps", () => {
  it("with no terminal and no --yes the build is declined and nothing is installed", async () => {
    const { sandbox, environments } = depsSandbox();
    const result = await sandbox.run(["deps", "needs"]);
    expect(result.code).toBe(1);
    expect(result.err).toContain("declined; nothing was installed");
    expect(environments()).toEqual([]);
  });

  it("--yes builds ahead; a run then uses it without a build; again reuses it; --rebuild builds it anew", async () => {
    const { sandbox, environments } = depsSandbox();
    const built = await sandbox.run(["deps", "needs", "--yes"]);
    expect(built.code).toBe(0);
    expect(built.out).toContain("needs: environment built in");
    const [hash] = environments();
    const manifest = join(sandbox.data, "environments", hash as string, "environment.json");
    const builtAt = (): string => JSON.parse(readFileSync(manifest, "utf8")).builtAt;
    const first = builtAt();
    // No --yes for the run: a build would be asked (and declined with no terminal); none is needed.
    const run = await sandbox.run(["run", "needs", "scripts/go.py"]);
    expect(run.out).toBe("deps\n");
    expect(run.code).toBe(0);
    const again = await sandbox.run(["deps", "needs", "--yes"]);
    expect(again.out).toContain("its environment is built");
    expect(builtAt()).toBe(first);
    const rebuilt = await sandbox.run(["deps", "needs", "--rebuild", "--yes"]);
    expect(rebuilt.code).toBe(0);
    expect(builtAt()).not.toBe(first);
    expect(environments()).toEqual([hash]);
  });

  it("explain shows what a skill declares", async () => {
    const { sandbox } = depsSandbox();
    const explained = await sandbox.run(["explain", "needs"]);
    expect(explained.out).toContain("packages:\n  python  tinypkg (from scripts/requirements.txt)");
    const json = JSON.parse((await sandbox.run(["explain", "needs", "--json"])).out);
    expect(json.packages.python.requirements).toEqual(["tinypkg"]);
  });

  it("names a skill with no packages and an unknown skill", async () => {
    const { sandbox } = depsSandbox();
    const plain = join(sandbox.skills, "plain");
    mkdirSync(plain, { recursive: true });
    writeFileSync(join(plain, "SKILL.md"), "---\nname: plain\ndescription: No packages.\n---\nBody.\n");
    expect((await sandbox.run(["deps", "plain"])).out).toContain("plain declares no packages.");
    const unknown = await sandbox.run(["deps", "nope"]);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toMatch(/^HOST: /);
  });
});
