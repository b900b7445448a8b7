import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSkillgate } from "../../src/app/skillgate.js";
import { removeTree } from "../../src/core/remove-tree.js";
import { silentLogger } from "../../src/observe/logger.js";
import type { ApprovalRequest } from "../../src/policy/approvals.js";
import { buildWheel, npmProject, packNpmPackage, writeSourceArchive } from "../helpers/local-packages.js";
import { isolatedFolders, makeTree, writeSkill } from "../helpers/skill-tree.js";
import { requireBubblewrap } from "../runners/sandbox/harness.js";

let packagesTree: string | undefined;
afterAll(() => {
  if (packagesTree !== undefined) removeTree(packagesTree);
});

/** The wheels, source archive and tarball, made once for the file (each test only reads them). */
let packages: { wheels: string; tarballs: string; marker: string; integrity: string };

beforeAll(() => {
  requireBubblewrap();
  const tree = realpathSync(mkdtempSync(join(tmpdir(), "skillgate-packages-")));
  packagesTree = tree;
  const wheels = join(tree, "wheels");
  buildWheel(wheels, "tinypkg", "1.0.0", "from-the-wheel");
  buildWheel(wheels, "otherpkg", "2.0.0", "other");
  writeSourceArchive(wheels, "sourceonly", "1.0.0");
  const tarballs = join(tree, "tarballs");
  const marker = join(tree, "postinstall-ran");
  const { integrity } = packNpmPackage(
    tarballs,
    "tiny-left",
    "1.0.0",
    'module.exports = (s) => "<" + s;\n',
    marker,
  );
  packages = { wheels, tarballs, marker, integrity };
}, 120_000);

/** A PEP 723 script that imports the wheel it declares and prints where it came from. */
const PEP723 = `# /// script
# requires-python = ">=3.9"
# dependencies = [
#   "tinypkg>=1",  # the local wheel
# ]
# ///
import tinypkg
print("value", tinypkg.VALUE, tinypkg.__file__)
`;

const IMPORTS = `import tinypkg, otherpkg
print(tinypkg.VALUE, otherpkg.VALUE)
`;

/**
 * Tries to change the environment: mode, a new folder, a removal. The kernel checks for a
 * read-only mount before the file's own permissions for each, so EROFS shows the mount.
 */
const WRITES = `import errno, os, tinypkg
folder = os.path.dirname(tinypkg.__file__)
for name, attempt in [("chmod", lambda: os.chmod(tinypkg.__file__, 0o666)), ("mkdir", lambda: os.mkdir(os.path.join(folder, "planted"))), ("remove", lambda: os.remove(tinypkg.__file__))]:
    try:
        attempt()
        print(name, "done")
    except OSError as error:
        print(name, errno.errorcode[error.errno])
`;

interface Setup {
  readonly tree: string;
  readonly folders: ReturnType<typeof isolatedFolders>;
  readonly project: string;
  readonly skills: string;
  readonly wheels: string;
  readonly tarballs: string;
  readonly marker: string;
  readonly integrity: string;
}

function setUp(): Setup {
  const tree = makeTree();
  const folders = isolatedFolders(tree);
  const { wheels, tarballs, marker, integrity } = packages;
  mkdirSync(folders.config, { recursive: true });
  writeFileSync(
    join(folders.config, "config.yaml"),
    `packages:\n  python:\n    find_links: ${wheels}\n  node:\n    tarballs: ${tarballs}\n`,
  );
  const project = join(tree, "project");
  return {
    tree,
    folders,
    project,
    skills: join(project, ".agents", "skills"),
    wheels,
    tarballs,
    marker,
    integrity,
  };
}

function skillgateFor(setup: Setup, answer: "once" | "decline" = "once") {
  const asked: ApprovalRequest[] = [];
  const skillgate = createSkillgate({
    ...setup.folders,
    roots: [setup.project],
    builtins: false,
    logger: silentLogger,
    approve: async (request) => {
      asked.push(request);
      return answer;
    },
  });
  return { skillgate, asked };
}

function readSkill(skills: string, name: string, files: Record<string, string>): string {
  return writeSkill(skills, name, {
    frontMatter: { name, description: `Skill ${name}.`, metadata: { "skillgate.tier": "read" } },
    files,
  });
}

function environments(setup: Setup): string[] {
  const folder = join(setup.folders.data, "environments");
  return existsSync(folder) ? readdirSync(folder).filter((name) => /^[0-9a-f]{64}$/.test(name)) : [];
}

describe("a skill's declared packages", () => {
  it("a PEP 723 script: the build is asked about (what, from where), runs, and a second run reuses it without asking", async () => {
    const setup = setUp();
    readSkill(setup.skills, "pep", { "scripts/show.py": PEP723 });
    const { skillgate, asked } = skillgateFor(setup);
    const turn = skillgate.createTurn({ chatId: "pep" });
    const loaded = await turn.call("load_skill", { skill: "pep" });
    expect(loaded.text).toContain('<python requirements="tinypkg&gt;=1" declared-in="scripts/show.py"/>');
    const first = await turn.call("run_skill_script", { skill: "pep", script: "scripts/show.py" });
    expect(first.text).toContain("value from-the-wheel /packages/python/tinypkg/__init__.py");
    expect(first.status).toBe("ok");
    expect(asked).toHaveLength(1);
    expect(asked[0]?.detail).toContain("tinypkg>=1");
    expect(asked[0]?.detail).toContain(setup.wheels);
    expect(asked[0]?.detail).toContain("wheels only");
    const built = environments(setup);
    expect(built).toHaveLength(1);
    const folder = join(setup.folders.data, "environments", built[0] as string);
    expect(readFileSync(join(folder, "build.log"), "utf8")).toContain("Successfully installed tinypkg");
    const stamp = statSync(join(folder, "environment.json")).ino;

    const second = await turn.call("run_skill_script", { skill: "pep", script: "scripts/show.py" });
    expect(second.text).toContain("value from-the-wheel");
    expect(asked).toHaveLength(1);
    expect(environments(setup)).toEqual(built);
    expect(statSync(join(folder, "environment.json")).ino).toBe(stamp);
    skillgate.close();
  });

  it("a requirements.txt skill; a changed requirement is a new hash and builds a new environment", async () => {
    const setup = setUp();
    const folder = readSkill(setup.skills, "reqs", {
      "scripts/requirements.txt": "tinypkg==1.0.0\n",
      "scripts/imports.py": "import tinypkg\nprint(tinypkg.VALUE)\n",
    });
    const { skillgate, asked } = skillgateFor(setup);
    const turn = skillgate.createTurn({ chatId: "reqs" });
    const first = await turn.call("run_skill_script", { skill: "reqs", script: "scripts/imports.py" });
    expect(first.text).toContain("from-the-wheel");
    expect(environments(setup)).toHaveLength(1);
    writeFileSync(join(folder, "scripts", "requirements.txt"), "tinypkg==1.0.0\notherpkg\n");
    writeFileSync(join(folder, "scripts", "imports.py"), IMPORTS);
    const second = await turn.call("run_skill_script", { skill: "reqs", script: "scripts/imports.py" });
    expect(second.text).toContain("from-the-wheel other");
    expect(asked).toHaveLength(2);
    expect(asked[1]?.detail).toContain("otherpkg");
    expect(environments(setup)).toHaveLength(2);
    skillgate.close();
  });

  it("refuses a package with no wheel, with its code, and installs nothing (its build script never runs)", async () => {
    const setup = setUp();
    readSkill(setup.skills, "nowheel", {
      "scripts/requirements.txt": "sourceonly\n",
      "scripts/go.py": "print(1)\n",
    });
    const { skillgate } = skillgateFor(setup);
    const result = await skillgate.createTurn({ chatId: "nowheel" }).call("run_skill_script", {
      skill: "nowheel",
      script: "scripts/go.py",
    });
    expect(result.status).toBe("refused");
    expect(result.text).toMatch(
      /^HOST: sourceonly, which nowheel needs, has only a source archive, no wheel,/,
    );
    expect(result.text).toContain("[package_without_wheel]");
    expect(environments(setup)).toEqual([]);
    const folder = join(setup.folders.data, "environments");
    const staging = existsSync(folder) ? readdirSync(folder).filter((name) => name.startsWith(".tmp-")) : [];
    expect(staging).toEqual([]);
    skillgate.close();
  });

  it("a package the folder does not have at all is refused after pip looked, with the same code, and installs nothing", async () => {
    const setup = setUp();
    readSkill(setup.skills, "absent", {
      "scripts/requirements.txt": "absentpkg\n",
      "scripts/go.py": "print(1)\n",
    });
    const { skillgate } = skillgateFor(setup);
    const result = await skillgate.createTurn({ chatId: "absent" }).call("run_skill_script", {
      skill: "absent",
      script: "scripts/go.py",
    });
    expect(result.text).toContain(
      "absentpkg, which absent needs, has no wheel for this Python (or is not there at all)",
    );
    expect(result.text).toContain("[package_without_wheel]");
    expect(environments(setup)).toEqual([]);
    expect(readdirSync(join(setup.folders.data, "environments", "failed"))).toHaveLength(1);
    skillgate.close();
  });

  it("a declined build installs nothing and runs nothing", async () => {
    const setup = setUp();
    readSkill(setup.skills, "declined", { "scripts/show.py": PEP723 });
    const { skillgate, asked } = skillgateFor(setup, "decline");
    const result = await skillgate.createTurn({ chatId: "declined" }).call("run_skill_script", {
      skill: "declined",
      script: "scripts/show.py",
    });
    expect(asked).toHaveLength(1);
    expect(result.status).toBe("declined");
    expect(result.text).not.toContain("from-the-wheel");
    expect(existsSync(join(setup.folders.data, "environments"))).toBe(false);
    skillgate.close();
  });

  it("the environment is read-only inside the sandbox", async () => {
    const setup = setUp();
    readSkill(setup.skills, "writer", {
      "scripts/requirements.txt": "tinypkg\n",
      "scripts/write.py": WRITES,
    });
    const { skillgate } = skillgateFor(setup);
    const result = await skillgate.createTurn({ chatId: "writer" }).call("run_skill_script", {
      skill: "writer",
      script: "scripts/write.py",
    });
    expect(result.text).toContain("chmod EROFS\nmkdir EROFS\nremove EROFS");
    skillgate.close();
  });

  it("the local runner uses the same environment, on PYTHONPATH", async () => {
    const setup = setUp();
    writeFileSync(
      join(setup.folders.config, "config.yaml"),
      `runners:\n  local:\n    trusted: [hosty]\npackages:\n  python:\n    find_links: ${setup.wheels}\n`,
    );
    writeSkill(setup.skills, "hosty", {
      frontMatter: {
        name: "hosty",
        description: "Runs on the host.",
        metadata: { "skillgate.tier": "read", "skillgate.execution": "local" },
      },
      files: { "scripts/show.py": PEP723 },
    });
    const { skillgate, asked } = skillgateFor(setup);
    const result = await skillgate.createTurn({ chatId: "hosty" }).call("run_skill_script", {
      skill: "hosty",
      script: "scripts/show.py",
    });
    const [hash] = environments(setup);
    expect(asked).toHaveLength(1);
    expect(result.text).toContain(
      `value from-the-wheel ${join(setup.folders.data, "environments", hash as string, "python", "tinypkg", "__init__.py")}`,
    );
    skillgate.close();
  });

  it("a Node package.json skill: npm ci --ignore-scripts from the tarball folder; require and import both find it", async () => {
    const setup = setUp();
    const project = npmProject("tiny-left", "1.0.0", setup.integrity);
    readSkill(setup.skills, "nodey", {
      "scripts/package.json": project["package.json"],
      "scripts/package-lock.json": project["package-lock.json"],
      "scripts/pad.js": 'console.log(require("tiny-left")("cjs"));\n',
      "scripts/pad.mjs": 'import pad from "tiny-left";\nconsole.log(pad("esm"));\n',
    });
    const { skillgate, asked } = skillgateFor(setup);
    const turn = skillgate.createTurn({ chatId: "nodey" });
    const cjs = await turn.call("run_skill_script", { skill: "nodey", script: "scripts/pad.js" });
    expect(cjs.text).toContain("<cjs");
    const esm = await turn.call("run_skill_script", { skill: "nodey", script: "scripts/pad.mjs" });
    expect(esm.text).toContain("<esm");
    expect(asked).toHaveLength(1);
    expect(asked[0]?.detail).toContain("npm ci --ignore-scripts");
    expect(existsSync(setup.marker)).toBe(false);
    skillgate.close();
  });
});
