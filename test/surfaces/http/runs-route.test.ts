import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startTestServer, type TestServerFolders } from "../../helpers/http-server.js";
import { requireTools } from "../../helpers/required-tools.js";
import { runCaptured } from "../cli/harness.js";

requireTools("bwrap", "python3");

/** A sandboxed project skill `echo` whose script prints its arguments and exits with `code`. */
function writeEcho(folders: TestServerFolders): void {
  const folder = join(folders.skills, "echo");
  mkdirSync(join(folder, "scripts"), { recursive: true });
  writeFileSync(
    join(folder, "SKILL.md"),
    "---\nname: echo\ndescription: Echoes its arguments for the runs route tests.\n---\nRun scripts/echo.py.\n",
  );
  writeFileSync(
    join(folder, "scripts", "echo.py"),
    "import json, sys\nargs = json.load(sys.stdin)\nprint('args', json.dumps(args, sort_keys=True), flush=True)\nprint('argv', sys.argv[1:])\nprint('note', file=sys.stderr)\nsys.exit(args.get('code', 0))\n",
  );
}

interface Line {
  readonly type: string;
  readonly [key: string]: unknown;
}

function lines(body: string): Line[] {
  return body
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Line);
}

describe("POST /api/runs", () => {
  it("runs through the server's Skillgate, streams NDJSON output lines, then the result; the call is audited", async () => {
    const server = await startTestServer({ prepare: writeEcho, builtins: false });
    const response = await server.fetch("/api/runs", {
      method: "POST",
      body: { skill: "echo", script: "scripts/echo.py", arguments: '{"b": 2, "a": 1}', approval: "once" },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/x-ndjson");
    const answer = lines(await response.text());
    const output = answer.filter((line) => line.type === "output");
    expect(
      output
        .filter((line) => line.stream === "stdout")
        .map((line) => line.chunk)
        .join(""),
    ).toBe('args {"a": 1, "b": 2}\nargv []\n');
    expect(output.some((line) => line.stream === "stderr" && line.chunk === "note\n")).toBe(true);
    const result = answer.at(-1);
    expect(result).toMatchObject({ type: "result", status: "ok", exitCode: 0, unanswerable: false });
    const audit = readFileSync(join(server.folders.data, "audit", "audit.jsonl"), "utf8");
    expect(audit).toContain('"skill":"echo"');
    expect(audit).toContain('"tool":"run_skill_script"');
  });

  it("an ask is declined when the request does not approve: nothing runs, unanswerable is said", async () => {
    const server = await startTestServer({ prepare: writeEcho, builtins: false });
    const response = await server.fetch("/api/runs", {
      method: "POST",
      body: { skill: "echo", script: "scripts/echo.py" },
    });
    const answer = lines(await response.text());
    expect(answer).toHaveLength(1);
    expect(answer[0]).toMatchObject({ type: "result", status: "declined", exitCode: 1, unanswerable: true });
  });

  const hostile: readonly [string, object][] = [
    ["no skill", { script: "scripts/echo.py" }],
    ["an approval that is not one of ask, once, always", { skill: "echo", script: "x.py", approval: "yes" }],
    ["an argv that is not text", { skill: "echo", script: "x.py", argv: [1] }],
    ["arguments that are not text", { skill: "echo", script: "x.py", arguments: { a: 1 } }],
  ];
  for (const [what, body] of hostile)
    it(`refuses a body with ${what}: 400 invalid_argument, nothing audited`, async () => {
      const server = await startTestServer({ prepare: writeEcho, builtins: false });
      const answer = await server.json<{ error: { code: string } }>("/api/runs", { method: "POST", body });
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe("invalid_argument");
      const audit = join(server.folders.data, "audit", "audit.jsonl");
      expect(existsSync(audit) ? readFileSync(audit, "utf8") : "").not.toContain("run_skill_script");
    });

  it("refuses a request without the owner token (401), and one without the CSRF header (403)", async () => {
    const server = await startTestServer({ prepare: writeEcho, builtins: false });
    const body = JSON.stringify({ skill: "echo", script: "scripts/echo.py", approval: "once" });
    const noToken = await server.raw(
      "POST",
      "/api/runs",
      { "Content-Type": "application/json", "X-Skillgate-CSRF": "1" },
      body,
    );
    expect(noToken.status).toBe(401);
    const noCsrf = await server.raw(
      "POST",
      "/api/runs",
      { "Content-Type": "application/json", Authorization: `Bearer ${server.token}` },
      body,
    );
    expect(noCsrf.status).toBe(403);
  });
});

describe("skillgate run --server URL", () => {
  it("prints the same output, messages and exit code as the local run", async () => {
    const server = await startTestServer({ prepare: writeEcho, builtins: false });
    const remote = await runCaptured([
      "run",
      "echo",
      "scripts/echo.py",
      "--server",
      server.origin,
      "--token",
      server.token,
      "--args",
      '{"code": 3}',
      "--yes",
      "--",
      "one",
      "two words",
    ]);
    expect(remote.out).toBe("args {\"code\": 3}\nargv ['one', 'two words']\n");
    expect(remote.err).toBe("note\nskillgate: scripts/echo.py exited with code 3.\n");
    expect(remote.code).toBe(1);
    const local = await runCaptured([
      ...server.folders.flags,
      "--no-builtins",
      "run",
      "echo",
      "scripts/echo.py",
      "--args",
      '{"code": 3}',
      "--yes",
      "--",
      "one",
      "two words",
    ]);
    expect(local).toEqual(remote);
  });

  it("takes the token from SKILLGATE_TOKEN; an ask without --yes is declined with the server's hint", async () => {
    const server = await startTestServer({ prepare: writeEcho, builtins: false });
    process.env.SKILLGATE_TOKEN = server.token;
    try {
      const result = await runCaptured(["run", "echo", "scripts/echo.py", "--server", server.origin]);
      expect(result.out).toBe("");
      expect(result.err).toContain("HOST: the person declined this call");
      expect(result.err).toContain("skillgate: the server cannot ask you over this request; pass --yes");
      expect(result.code).toBe(1);
    } finally {
      delete process.env.SKILLGATE_TOKEN;
    }
  });

  it("a wrong token, an unreachable server and a missing token are each a clear message", async () => {
    const server = await startTestServer({ prepare: writeEcho, builtins: false });
    const wrong = await runCaptured([
      "run",
      "echo",
      "echo.py",
      "--server",
      server.origin,
      "--token",
      "nope",
      "--yes",
    ]);
    expect(wrong.err).toMatch(/^skillgate: the server at http:\/\/127\.0\.0\.1:\d+ refused the owner token/);
    expect(wrong.code).toBe(1);
    const port = server.server.port;
    await server.server.close();
    const away = await runCaptured([
      "run",
      "echo",
      "echo.py",
      "--server",
      `http://127.0.0.1:${port}`,
      "--token",
      "t",
    ]);
    expect(away.err).toMatch(
      /^skillgate: could not reach the server at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/,
    );
    expect(away.code).toBe(1);
    const none = await runCaptured(["run", "echo", "echo.py", "--server", server.origin]);
    expect(none.err).toContain("--server needs the owner token");
    expect(none.code).toBe(2);
  });
});
