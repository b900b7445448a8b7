import { describe, expect, it } from "vitest";
import { DEFAULT_CONFIG, parseConfig } from "../../src/config/config.js";
import { problemsOf } from "./config-problems.js";

describe("the runners section", () => {
  it("defaults: nothing trusted, 60 s, 64 KiB, 50 snapshots", () => {
    expect(DEFAULT_CONFIG.runners).toEqual({
      local: { trusted: [] },
      limits: { timeoutSeconds: 60, maxOutputBytes: 64 * 1024 },
      snapshots: { keep: 50 },
      interpreters: {},
    });
    expect(parseConfig("runners:\n", "f").runners).toEqual(DEFAULT_CONFIG.runners);
  });

  it("reads trusted names and globs, limits and the snapshot count", () => {
    const config = parseConfig(
      [
        "runners:",
        "  local:",
        "    trusted: [backup-tool, 'ops-*']",
        "  limits:",
        "    timeout_seconds: 5",
        "    max_output_bytes: 2048",
        "  snapshots:",
        "    keep: 3",
        "  interpreters:",
        "    python: /opt/python/bin/python3",
        "    node: /home/me/.nvm/versions/node/v20.11.1/bin/node",
        "",
      ].join("\n"),
      "f",
    );
    expect(config.runners).toEqual({
      local: { trusted: ["backup-tool", "ops-*"] },
      limits: { timeoutSeconds: 5, maxOutputBytes: 2048 },
      snapshots: { keep: 3 },
      interpreters: {
        python: "/opt/python/bin/python3",
        node: "/home/me/.nvm/versions/node/v20.11.1/bin/node",
      },
    });
  });

  it.each([
    ["runners as a list", "runners: [a]\n", '"runners" must be a mapping'],
    ["an unknown runners key", "runners:\n  sandboxes: {}\n", 'unknown key "runners.sandboxes"'],
    ["an unknown local key", "runners:\n  local:\n    trust: [a]\n", 'unknown key "runners.local.trust"'],
    ["local as text", "runners:\n  local: yes\n", '"runners.local" must be a mapping'],
    [
      "trusted as text",
      "runners:\n  local:\n    trusted: all\n",
      '"runners.local.trusted" must be a list of skill names or globs',
    ],
    [
      "trusted with a blank name",
      "runners:\n  local:\n    trusted: ['  ']\n",
      '"runners.local.trusted" must be a list of skill names or globs',
    ],
    [
      "a zero timeout",
      "runners:\n  limits:\n    timeout_seconds: 0\n",
      '"runners.limits.timeout_seconds" must be a whole number from 1 to 86400',
    ],
    [
      "a fractional timeout",
      "runners:\n  limits:\n    timeout_seconds: 1.5\n",
      '"runners.limits.timeout_seconds" must be a whole number from 1 to 86400',
    ],
    [
      "an output cap below 1 KiB",
      "runners:\n  limits:\n    max_output_bytes: 10\n",
      '"runners.limits.max_output_bytes" must be a whole number from 1024 to 67108864',
    ],
    [
      "keep as text",
      "runners:\n  snapshots:\n    keep: many\n",
      '"runners.snapshots.keep" must be a whole number from 1 to 10000',
    ],
    ["an unknown limits key", "runners:\n  limits:\n    memory: 1\n", 'unknown key "runners.limits.memory"'],
    [
      "interpreters as a list",
      "runners:\n  interpreters: [python3]\n",
      '"runners.interpreters" must be a mapping',
    ],
    [
      "an interpreter of an unknown language",
      "runners:\n  interpreters:\n    ruby: /usr/bin/ruby\n",
      'unknown key "runners.interpreters.ruby"',
    ],
    ...[
      ["a relative interpreter", "python3"],
      ["an interpreter with ..", "/opt/../root/python3"],
      ["an interpreter with a . part", "/opt/./python3"],
      ["an interpreter path ending in /", "/usr/bin/"],
      ["an interpreter with a line break", '"/usr/bin/python3\\nx"'],
      ["an interpreter with a NUL", '"/usr/bin/python3\\0"'],
      ["an interpreter as a number", "3"],
      ["an interpreter as a list", "[/usr/bin/python3]"],
    ].map(([name, value]): [string, string, string] => [
      name as string,
      `runners:\n  interpreters:\n    python: ${value}\n`,
      '"runners.interpreters.python" must be an absolute path to the interpreter, e.g. /usr/bin/python3',
    ]),
  ])("%s is invalid_config", (_name, text, problem) => {
    expect(problemsOf(text)).toContain(problem);
  });
});
