import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CONFIG_FILE, ConfigFile, DEFAULT_CONFIG, loadConfig, parseConfig } from "../../src/config/config.js";
import { InvalidConfigError, isSkillgateError } from "../../src/core/errors.js";
import { DEFAULT_INDEX_BUDGET } from "../../src/core/limits.js";
import { makeTree } from "../helpers/skill-tree.js";

/** The error parseConfig throws for `text`, checked to be an InvalidConfigError with code invalid_config. */
function failure(text: string): InvalidConfigError {
  let caught: unknown;
  try {
    parseConfig(text, "/cfg/config.yaml");
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(InvalidConfigError);
  const error = caught as InvalidConfigError;
  expect(error.code).toBe("invalid_config");
  expect(isSkillgateError(error)).toBe(true);
  expect(error.data.file).toBe("/cfg/config.yaml");
  expect(error.message.startsWith("configuration /cfg/config.yaml is invalid: ")).toBe(true);
  expect(error.message).not.toContain("\n");
  return error;
}

describe("ConfigFile", () => {
  it("gives the same object while the file is unchanged, and sees a same-size edit made at once", () => {
    const folder = makeTree();
    writeFileSync(join(folder, CONFIG_FILE), "index:\n  budget: 1111\n");
    const file = new ConfigFile(folder);
    const first = file.current();
    expect(first.index.budget).toBe(1111);
    expect(file.current()).toBe(first);
    // The same size, written within the same clock tick as the first read could be: the
    // stamp cannot tell the two versions apart, so a fresh file is read again on every call.
    writeFileSync(join(folder, CONFIG_FILE), "index:\n  budget: 2222\n");
    const second = file.current();
    expect(second.index.budget).toBe(2222);
    expect(file.current()).toBe(second);
  });

  it("starts from the defaults without a file, and reads one that appears", () => {
    const folder = makeTree();
    const file = new ConfigFile(folder);
    expect(file.current()).toEqual(DEFAULT_CONFIG);
    writeFileSync(join(folder, CONFIG_FILE), "index:\n  budget: 3333\n");
    expect(file.current().index.budget).toBe(3333);
  });
});

describe("loadConfig", () => {
  it("gives the defaults when there is no file or no folder", () => {
    const tree = makeTree();
    expect(loadConfig(tree)).toBe(DEFAULT_CONFIG);
    expect(loadConfig(join(tree, "missing"))).toBe(DEFAULT_CONFIG);
    expect(DEFAULT_CONFIG).toEqual({
      skills: { disabled: [], hidden: [], userFolders: [], projectFolders: [], packages: [] },
      index: { budget: DEFAULT_INDEX_BUDGET },
      discovery: { maxSkillsPerRoot: 20_000, maxFoldersPerRoot: 50_000, maxDepth: 6 },
      policy: { rules: [], approvalTtlSeconds: 600 },
      runners: {
        local: { trusted: [] },
        limits: { timeoutSeconds: 60, maxOutputBytes: 65536 },
        snapshots: { keep: 50 },
        interpreters: {},
      },
      packages: {
        python: {
          kind: "url",
          url: "https://pypi.org/simple",
          hosts: ["pypi.org", "files.pythonhosted.org"],
        },
        node: { kind: "url", url: "https://registry.npmjs.org/", hosts: ["registry.npmjs.org"] },
        keep: 20,
        buildTimeoutSeconds: 600,
      },
      extensions: { project: false, paths: [], hooks: { timeoutSeconds: 10, maxOutputBytes: 65536 } },
      notifications: { timeoutSeconds: 5, channels: [] },
      nodes: { skills: {}, manifestTtlSeconds: 600 },
      queue: {
        backend: "local",
        redis: {},
        capacity: 1000,
        workers: { inProcess: "auto" },
        concurrency: DEFAULT_CONFIG.queue.concurrency,
        skills: {},
        heartbeatSeconds: 2,
      },
      capabilities: {
        permissions: { readWorkspace: true, writeWorkspace: false, network: false, shell: false, env: [] },
        capabilities: {},
        providers: {},
      },
    });
  });

  it("reads config.yaml from the config folder", () => {
    const tree = makeTree();
    writeFileSync(join(tree, CONFIG_FILE), "skills:\n  disabled: [old-*]\nindex:\n  budget: 1200\n");
    const config = loadConfig(tree);
    expect(config.skills.disabled).toEqual(["old-*"]);
    expect(config.index.budget).toBe(1200);
  });

  it("a config.yaml that cannot be read is invalid_config, not the defaults", () => {
    const tree = makeTree();
    mkdirSync(join(tree, CONFIG_FILE));
    expect(() => loadConfig(tree)).toThrow(InvalidConfigError);
    expect(() => loadConfig(tree)).toThrow(/cannot be read \(EISDIR\)/);
  });
});

describe("parseConfig", () => {
  it("an empty file or one of comments gives the defaults", () => {
    expect(parseConfig("", "f")).toBe(DEFAULT_CONFIG);
    expect(parseConfig("# nothing yet\n", "f")).toBe(DEFAULT_CONFIG);
    expect(parseConfig("skills:\nindex:\n", "f")).toEqual(DEFAULT_CONFIG);
  });

  it("reads every key", () => {
    const config = parseConfig(
      [
        "skills:",
        "  disabled: [legacy-*, old-one]",
        "  hidden:",
        "    - draft",
        "  user_folders: [~/.claude/skills, ~/.codex/skills]",
        "  project_folders: [.claude/skills]",
        "  packages: [team-skills, '@scope/more-skills']",
        "index:",
        "  budget: 4000",
        "",
      ].join("\n"),
      "f",
    );
    expect(config).toEqual({
      skills: {
        disabled: ["legacy-*", "old-one"],
        hidden: ["draft"],
        userFolders: ["~/.claude/skills", "~/.codex/skills"],
        projectFolders: [".claude/skills"],
        packages: ["team-skills", "@scope/more-skills"],
      },
      index: { budget: 4000 },
      discovery: DEFAULT_CONFIG.discovery,
      policy: { rules: [], approvalTtlSeconds: 600 },
      runners: DEFAULT_CONFIG.runners,
      packages: DEFAULT_CONFIG.packages,
      extensions: DEFAULT_CONFIG.extensions,
      notifications: DEFAULT_CONFIG.notifications,
      nodes: DEFAULT_CONFIG.nodes,
      queue: DEFAULT_CONFIG.queue,
      capabilities: DEFAULT_CONFIG.capabilities,
    });
  });

  it.each([
    ["an unknown top-level key", "skill:\n  disabled: [a]\n", 'unknown key "skill"'],
    ["an unknown skills key", "skills:\n  disable: [a]\n", 'unknown key "skills.disable"'],
    ["an unknown index key", "index:\n  size: 3\n", 'unknown key "index.size"'],
    ["a __proto__ key", "__proto__:\n  polluted: yes\n", 'unknown key "__proto__"'],
    ["skills as a list", "skills: [a]\n", '"skills" must be a mapping'],
    ["index as text", "index: big\n", '"index" must be a mapping'],
    ["disabled as text", "skills:\n  disabled: legacy\n", '"skills.disabled" must be a list of text'],
    ["hidden with a number", "skills:\n  hidden: [a, 3]\n", '"skills.hidden" must be a list of text'],
    [
      "packages with an empty name",
      "skills:\n  packages: ['']\n",
      '"skills.packages" must be a list of text',
    ],
    [
      "user_folders as a mapping",
      "skills:\n  user_folders: {a: b}\n",
      '"skills.user_folders" must be a list of text',
    ],
    ["a budget of 0", "index:\n  budget: 0\n", '"index.budget" must be a whole number above 0'],
    ["a negative budget", "index:\n  budget: -5\n", '"index.budget" must be a whole number above 0'],
    ["a fractional budget", "index:\n  budget: 1.5\n", '"index.budget" must be a whole number above 0'],
    ["a budget as text", "index:\n  budget: '4000'\n", '"index.budget" must be a whole number above 0'],
    ["a list at the top", "- skills\n", "the file must be a mapping"],
    ["text at the top", "just words\n", "the file must be a mapping"],
    ["a duplicate key", "skills:\n  disabled: [a]\n  disabled: [b]\n", "Map keys must be unique"],
    ["a duplicate top-level key", "index:\n  budget: 1\nindex:\n  budget: 2\n", "Map keys must be unique"],
    ["broken YAML", "skills:\n  disabled: [a\n", "at line 3, column 1"],
  ])("%s is invalid_config", (_label, text, problem) => {
    const error = failure(text);
    expect(error.data.problems.length).toBeGreaterThan(0);
    expect(error.data.problems.join("; ")).toContain(problem);
  });

  it("lists every problem at once", () => {
    const error = failure("extra: 1\nskills:\n  disabled: 3\n  what: x\nindex:\n  budget: -1\n");
    expect(error.data.problems).toEqual([
      'unknown key "extra"',
      '"skills.disabled" must be a list of text',
      '"index.budget" must be a whole number above 0',
      'unknown key "skills.what"',
    ]);
  });

  it("a duplicate key problem is one clean line", () => {
    const error = failure("skills:\n  disabled: [a]\n  disabled: [b]\n");
    expect(error.data.problems).toEqual(["Map keys must be unique at line 3, column 3"]);
  });

  it("an alias bomb is refused without expanding it", () => {
    const lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (const [name, previous] of [
      ["b", "a"],
      ["c", "b"],
      ["d", "c"],
      ["e", "d"],
      ["f", "e"],
      ["g", "f"],
    ])
      lines.push(`${name}: &${name} [${Array(9).fill(`*${previous}`).join(",")}]`);
    const error = failure(`${lines.join("\n")}\n`);
    expect(error.data.problems).toEqual([expect.stringContaining("Excessive alias count")]);
  });

  it("does not pollute Object.prototype", () => {
    try {
      parseConfig("__proto__:\n  polluted: yes\nskills:\n  __proto__:\n    polluted: yes\n", "f");
    } catch {
      // expected: unknown keys
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("the documented example", () => {
  it("the configuration shown in docs/skills.md parses", () => {
    const docs = readFileSync(
      join(dirname(fileURLToPath(import.meta.url)), "..", "..", "docs", "skills.md"),
      "utf8",
    );
    const section = docs.slice(docs.indexOf("## Configuration"));
    const example = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
    expect(example).toBeDefined();
    const config = parseConfig(example ?? "", "docs/skills.md");
    expect(config.skills.packages).toEqual(["@acme/ops-skills"]);
    expect(config.index.budget).toBe(8000);
  });
});
