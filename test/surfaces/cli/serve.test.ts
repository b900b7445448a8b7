import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { AuditLog } from "../../../src/observe/audit-log.js";
import { eventually } from "../../helpers/eventually.js";
import { makeTree, writeSkill } from "../../helpers/skill-tree.js";
import { childEnvironment, cliMain, ensureBuilt } from "../mcp/built-cli.js";

/** `skillgate serve` as the owner runs it: the built CLI as a child process, stopped by a signal. */

beforeAll(() => ensureBuilt());

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => {});
});

interface Started {
  readonly child: ChildProcessWithoutNullStreams;
  readonly exited: Promise<number | null>;
  readonly out: () => string;
  readonly err: () => string;
}

/** Starts `skillgate serve ARGV` over a tree whose `slow` skill sleeps ten minutes. */
function serve(
  argv: readonly string[],
  env: Record<string, string> = {},
): Started & { tree: string; data: string } {
  const tree = makeTree("skillgate-serve-cli-");
  const home = join(tree, "home");
  const config = join(tree, "config");
  const data = join(tree, "data");
  const project = join(tree, "project");
  mkdirSync(home);
  mkdirSync(config);
  writeFileSync(join(config, "config.yaml"), "runners:\n  local:\n    trusted: [slow]\n");
  writeSkill(join(project, ".agents", "skills"), "slow", {
    frontMatter: {
      name: "slow",
      description: "Takes its time.",
      metadata: { "skillgate.execution": "local", "skillgate.tier": "read" },
    },
    files: {
      "scripts/slow.py": `import time\nopen(${JSON.stringify(join(tree, "started"))}, "w").close()\ntime.sleep(600)\n`,
    },
  });
  const flags = ["--config", config, "--data", data, "--root", project, "--no-builtins"];
  const child = spawn(process.execPath, [cliMain, ...flags, "serve", ...argv], {
    cwd: home,
    env: { ...childEnvironment(home), ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    out += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    err += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  cleanup.push(async () => {
    child.kill("SIGKILL");
    await exited;
  });
  return { child, exited, out: () => out, err: () => err, tree, data };
}

describe("skillgate serve (the built CLI)", () => {
  it("prints the login URL once, logs a browser in, and on SIGTERM interrupts the call in flight and exits 0", async () => {
    const started = serve(["--port", "0"]);
    await eventually("the login URL is printed", () => /log in .*: http:\/\/\S+/.test(started.out()), {
      timeoutMs: 30_000,
    });
    const loginUrl = /(http:\/\/127\.0\.0\.1:\d+\/login\?token=\S+)/.exec(started.out())?.[1] ?? "";
    expect(started.out()).toMatch(/^skillgate: serving at http:\/\/127\.0\.0\.1:\d+\/\n/);
    const base = new URL("/", loginUrl);
    const token = new URL(loginUrl).searchParams.get("token") ?? "";
    const login = await fetch(loginUrl, { redirect: "manual" });
    expect(login.status).toBe(303);
    expect(login.headers.get("location")).toBe("/");

    const transport = new StreamableHTTPClientTransport(new URL("/mcp", base), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    });
    const client = new Client({ name: "serve-cli-test", version: "1.0.0" });
    await client.connect(transport);
    cleanup.push(() => client.close());
    const call = client.callTool({
      name: "run_skill_script",
      arguments: { skill: "slow", script: "scripts/slow.py", arguments: {} },
    });
    await eventually("the script started", () => existsSync(join(started.tree, "started")), {
      timeoutMs: 30_000,
    });
    started.child.kill("SIGTERM");
    const result = await call;
    expect(result._meta?.status).toBe("interrupted");
    expect(await started.exited).toBe(0);
    expect(started.err()).toContain("skillgate: SIGTERM: stopping");
    expect(started.err()).toContain("skillgate: stopped\n");
    const finished = new AuditLog({ dataFolder: started.data })
      .query({ type: "tool-call-finished" })
      .filter((event) => event.tool === "run_skill_script");
    expect(finished.map((event) => event.status)).toEqual(["interrupted"]);
    expect(existsSync(join(started.data, "skills", ".lock"))).toBe(false);
  });

  it("takes the token from SKILLGATE_SERVE_TOKEN and prints no token", async () => {
    const started = serve(["--port", "0"], { SKILLGATE_SERVE_TOKEN: "env-owner-token" });
    await eventually("the server is up", () => started.out().includes("log in at"), { timeoutMs: 30_000 });
    expect(started.out()).not.toContain("env-owner-token");
    const base = /serving at (http:\/\/\S+)/.exec(started.out())?.[1] ?? "";
    const answer = await fetch(`${base}api/openapi.json`, {
      headers: { Authorization: "Bearer env-owner-token" },
    });
    expect(answer.status).toBe(200);
    started.child.kill("SIGINT");
    expect(await started.exited).toBe(0);
  });

  it("refuses --host 0.0.0.0 without a chosen token: one line, exit 1", async () => {
    const started = serve(["--host", "0.0.0.0", "--port", "0"]);
    expect(await started.exited).toBe(1);
    expect(started.err()).toBe(
      "skillgate: refusing to serve on 0.0.0.0 without a token you chose: give --token or SKILLGATE_SERVE_TOKEN, or bind to 127.0.0.1 [invalid_argument]\n",
    );
  });
});
