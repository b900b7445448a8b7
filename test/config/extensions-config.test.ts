import { describe, expect, it } from "vitest";
import { DEFAULT_CONFIG, parseConfig } from "../../src/config/config.js";
import { problemsOf } from "./config-problems.js";

describe("the extensions section", () => {
  it("defaults: no project extensions, no paths, 10 s and 64 KiB per hook", () => {
    expect(DEFAULT_CONFIG.extensions).toEqual({
      project: false,
      paths: [],
      hooks: { timeoutSeconds: 10, maxOutputBytes: 64 * 1024 },
    });
    expect(parseConfig("extensions:\n", "f").extensions).toEqual(DEFAULT_CONFIG.extensions);
  });

  it("reads the project opt-in, paths and hook limits", () => {
    const config = parseConfig(
      [
        "extensions:",
        "  project: true",
        "  paths: [/opt/ext, ./more.js]",
        "  hooks:",
        "    timeout_seconds: 3",
        "    max_output_bytes: 4096",
        "",
      ].join("\n"),
      "f",
    );
    expect(config.extensions).toEqual({
      project: true,
      paths: ["/opt/ext", "./more.js"],
      hooks: { timeoutSeconds: 3, maxOutputBytes: 4096 },
    });
  });

  it.each([
    ["extensions as a list", "extensions: [a]\n", '"extensions" must be a mapping'],
    ["an unknown key", "extensions:\n  load: all\n", 'unknown key "extensions.load"'],
    [
      "project as text",
      "extensions:\n  project: 'yes please'\n",
      '"extensions.project" must be true or false',
    ],
    [
      "paths as text",
      "extensions:\n  paths: /opt\n",
      '"extensions.paths" must be a list of files or folders',
    ],
    [
      "a blank path",
      "extensions:\n  paths: ['  ']\n",
      '"extensions.paths" must be a list of files or folders',
    ],
    ["hooks as text", "extensions:\n  hooks: fast\n", '"extensions.hooks" must be a mapping'],
    [
      "an unknown hooks key",
      "extensions:\n  hooks:\n    retries: 2\n",
      'unknown key "extensions.hooks.retries"',
    ],
    [
      "a zero timeout",
      "extensions:\n  hooks:\n    timeout_seconds: 0\n",
      '"extensions.hooks.timeout_seconds" must be a whole number from 1 to 3600',
    ],
    [
      "a tiny output cap",
      "extensions:\n  hooks:\n    max_output_bytes: 10\n",
      '"extensions.hooks.max_output_bytes" must be a whole number from 1024 to 16777216',
    ],
  ])("%s is refused with its problem", (_label, text, problem) => {
    expect(problemsOf(text)).toContain(problem);
  });
});
