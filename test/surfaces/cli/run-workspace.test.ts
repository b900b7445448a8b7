import { spawnSync } from "node:child_process";
import {
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { runSkillScript } from "../../../src/app/run-skill-script.js";
import { parseAuditLine } from "../../../src/observe/audit-line.js";
import type { AuditEvent } from "../../../src/observe/events.js";
import { requireBubblewrap } from "../../runners/sandbox/harness.js";
import { type CliSandbox, cliSandbox } from "./harness.js";

const repository = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

beforeAll(() => requireBubblewrap());

/** A script that reports where it starts, then writes, changes and deletes in the workspace. */
const WRITER = `import json, os
out = {"cwd": os.getcwd(), "done": []}
for action, path in [("write", "out.txt"), ("append", "in.txt"), ("delete", "old.txt")]:
    try:
        if action == "write":
            open(path, "w").write("made\\n")
        elif action == "append":
            open(path, "a").write("more\\n")
        else:
            os.remove(path)
        out["done"].append("ok")
    except OSError as error:
        out["done"].append(error.strerror)
print(json.dumps(out))
`;

/** The project's files and their contents (the skill's own folder left out): what a run may change. */
function projectFiles(project: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (folder: string, prefix: string): void => {
    for (const name of readdirSync(folder).sort()) {
      if (prefix === "" && name === ".agents") continue;
      const path = join(folder, name);
      if (statSync(path).isDirectory()) walk(path, `${prefix}${name}/`);
      else files[`${prefix}${name}`] = readFileSync(path, "utf8");
    }
  };
  walk(project, "");
  return files;
}

/** A project with `in.txt` and `old.txt` and a sandboxed skill `writer` with the given metadata. */
function projectWith(metadata: string): CliSandbox {
  const sandbox = cliSandbox();
  const folder = join(sandbox.skills, "writer");
  mkdirSync(join(folder, "scripts"), { recursive: true });
  writeFileSync(
    join(folder, "SKILL.md"),
    `---\nname: writer\ndescription: Writes in the project.\nmetadata:\n${metadata || "  skillgate.execution: sandbox\n"}---\nRun it.\n`,
  );
  writeFileSync(join(folder, "scripts", "write.py"), WRITER);
  writeFileSync(join(sandbox.project, "in.txt"), "input\n");
  writeFileSync(join(sandbox.project, "old.txt"), "old\n");
  // As root the sandbox user is 65534: the project is given to it, as an owner would.
  if (process.getuid?.() === 0)
    for (const name of ["", "in.txt", "old.txt"]) chownSync(join(sandbox.project, name), 65534, 65534);
  return sandbox;
}

/** `skillgate run …` in a real process (no terminal: an ask is declined unless --yes). */
function runCli(sandbox: CliSandbox, argv: readonly string[]) {
  const result = spawnSync(
    process.execPath,
    ["--import", "tsx", join(repository, "src/surfaces/cli/main.ts"), ...sandbox.flags(), ...argv],
    {
      cwd: repository,
      env: { PATH: process.env.PATH ?? "", HOME: sandbox.home, NO_COLOR: "1" },
      encoding: "utf8",
    },
  );
  return { code: result.status, out: result.stdout, err: result.stderr };
}

function auditEvents(sandbox: CliSandbox): AuditEvent[] {
  const file = join(sandbox.data, "audit", "audit.jsonl");
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .map((line) => parseAuditLine(line))
    .filter((event): event is AuditEvent => event !== undefined);
}

describe("skillgate run with the project as its workspace", () => {
  it("an approved run of a change skill writes in the project; the changes are in the result, on stderr and in the audit", () => {
    const sandbox = projectWith("");
    const result = runCli(sandbox, ["run", "writer", "scripts/write.py", "--yes", "--json"]);
    expect(result.code, result.err).toBe(0);
    const printed = JSON.parse(result.out) as {
      run: { stdout: string; workspaceChanges: unknown };
      text: string;
    };
    expect(JSON.parse(printed.run.stdout)).toEqual({ cwd: sandbox.project, done: ["ok", "ok", "ok"] });
    expect(printed.run.workspaceChanges).toEqual({
      created: ["out.txt"],
      changed: ["in.txt"],
      deleted: ["old.txt"],
      omitted: 0,
      complete: true,
    });
    expect(printed.text).toContain(
      "--- workspace changes ---\ncreated: out.txt\nchanged: in.txt\ndeleted: old.txt",
    );
    expect(projectFiles(sandbox.project)).toEqual({ "in.txt": "input\nmore\n", "out.txt": "made\n" });
    const events = auditEvents(sandbox);
    const changed = events.filter((event) => event.type === "workspace-changed");
    expect(changed.map((event) => [event.change, event.path, event.workspace])).toEqual([
      ["created", "out.txt", sandbox.project],
      ["changed", "in.txt", sandbox.project],
      ["deleted", "old.txt", sandbox.project],
    ]);
    const classified = events.find((event) => event.type === "tool-call-classified");
    expect(changed.every((event) => event.requestId === classified?.requestId)).toBe(true);
  });

  it("prints the changes on stderr after the script's own output", () => {
    const sandbox = projectWith("");
    const result = runCli(sandbox, ["run", "writer", "scripts/write.py", "--yes"]);
    expect(result.code).toBe(0);
    expect(result.err).toBe(
      "skillgate: the run changed the workspace:\n  created: out.txt\n  changed: in.txt\n  deleted: old.txt\n",
    );
  });

  it("the question names the workspace and that the run may write it; a read workspace is named read-only", async () => {
    const asked: string[] = [];
    for (const [metadata, answer] of [
      ["", "with write access to the workspace"],
      ["  skillgate.tier: read\n  skillgate.workspace: write\n", "with write access to the workspace"],
    ] as const) {
      const sandbox = projectWith(metadata);
      const outcome = await runSkillScript(
        { roots: [sandbox.project], config: sandbox.config, data: sandbox.data, builtins: false },
        {
          skill: "writer",
          script: "scripts/write.py",
          approval: "ask",
          workspace: sandbox.project,
          ask: async (request) => {
            asked.push(request.summary);
            return false;
          },
        },
      );
      expect(outcome.status).toBe("declined");
      expect(asked.at(-1)).toBe(`run scripts/write.py of writer (sandbox), ${answer} ${sandbox.project}`);
    }
    const reader = projectWith(
      "  skillgate.tier: read\n  skillgate.workspace: read\n  skillgate.execution: sandbox\n",
    );
    const outcome = await runSkillScript(
      { roots: [reader.project], config: reader.config, data: reader.data, builtins: false },
      { skill: "writer", script: "scripts/write.py", approval: "ask", workspace: reader.project },
    );
    // A read skill is allowed without a question; its run had the workspace read-only.
    expect(outcome.status).toBe("ok");
    expect(outcome.run?.stdout).toContain('"Read-only file system"');
  });

  it("a declined run writes nothing", () => {
    const sandbox = projectWith("");
    const before = projectFiles(sandbox.project);
    const result = runCli(sandbox, ["run", "writer", "scripts/write.py"]);
    expect(result.code).toBe(1);
    expect(result.err).toContain("HOST: the person declined this call");
    expect(projectFiles(sandbox.project)).toEqual(before);
    const asked = auditEvents(sandbox).find((event) => event.type === "approval-requested");
    expect(asked?.answer).toBeUndefined();
    expect(asked?.tier).toBe("change");
  });

  it("a read skill sees the project read-only and is not asked", () => {
    const sandbox = projectWith("  skillgate.tier: read\n");
    const before = projectFiles(sandbox.project);
    const result = runCli(sandbox, ["run", "writer", "scripts/write.py", "--json"]);
    expect(result.code, result.err).toBe(0);
    const printed = JSON.parse(result.out) as { run: { stdout: string; workspaceChanges?: unknown } };
    expect(JSON.parse(printed.run.stdout)).toEqual({
      cwd: sandbox.project,
      done: ["Read-only file system", "Read-only file system", "Read-only file system"],
    });
    expect(printed.run.workspaceChanges).toBeUndefined();
    expect(projectFiles(sandbox.project)).toEqual(before);
  });

  it("a read skill that declares skillgate.workspace: write is asked like a change; declined, it writes nothing", () => {
    const sandbox = projectWith("  skillgate.tier: read\n  skillgate.workspace: write\n");
    const before = projectFiles(sandbox.project);
    const declined = runCli(sandbox, ["run", "writer", "scripts/write.py"]);
    expect(declined.code).toBe(1);
    expect(declined.err).toContain("HOST: the person declined this call");
    expect(projectFiles(sandbox.project)).toEqual(before);
    const approved = runCli(sandbox, ["run", "writer", "scripts/write.py", "--yes"]);
    expect(approved.code, approved.err).toBe(0);
    expect(projectFiles(sandbox.project)).toEqual({ "in.txt": "input\nmore\n", "out.txt": "made\n" });
  });

  it("skillgate.workspace: none runs without it: the script starts in /tmp and the project is not there", () => {
    const sandbox = projectWith("  skillgate.workspace: none\n");
    const result = runCli(sandbox, ["run", "writer", "scripts/write.py", "--yes", "--json"]);
    expect(result.code, result.err).toBe(0);
    const printed = JSON.parse(result.out) as { run: { stdout: string; workspaceChanges?: unknown } };
    expect(JSON.parse(printed.run.stdout)).toEqual({
      cwd: "/tmp",
      // Appending makes a new in.txt in /tmp; there is no old.txt to delete.
      done: ["ok", "ok", "No such file or directory"],
    });
    expect(printed.run.workspaceChanges).toBeUndefined();
    expect(projectFiles(sandbox.project)).toEqual({ "in.txt": "input\n", "old.txt": "old\n" });
  });

  it("explain shows skillgate.workspace, declared or from the tier", () => {
    const fromTier = projectWith("");
    const shown = runCli(fromTier, ["explain", "writer"]);
    expect(shown.out).toContain("  skillgate.workspace        write (from the tier)\n");
    const declared = projectWith("  skillgate.workspace: read\n");
    expect(runCli(declared, ["explain", "writer"]).out).toContain("  skillgate.workspace        read\n");
  });
});
