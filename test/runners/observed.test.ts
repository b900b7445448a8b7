import { describe, expect, it } from "vitest";
import type { Runner, RunRequest, RunResult } from "../../src/runners/contract.js";
import { observedRunner } from "../../src/runners/observed.js";
import { refusal } from "../../src/runners/refusal.js";

const result: RunResult = {
  status: "ok",
  exitCode: 0,
  stdout: "out",
  stderr: "",
  stdoutTruncated: false,
  stderrTruncated: false,
  durationMs: 1,
};

/** A runner that streams one chunk through the request's listener and returns `result`. */
const streaming: Runner = {
  admit: (request) => (request.skill === "refused" ? refusal("not_trusted", "no.") : undefined),
  run: async (request) => {
    request.onOutput?.("stdout", "out");
    return result;
  },
};

const request = {
  skill: "demo",
  hash: "0".repeat(64),
  folder: "/nowhere",
  execution: "local",
  script: "scripts/a.sh",
  language: "bash",
  arguments: {},
  limits: { timeoutMs: 1000, maxOutputBytes: 1024 },
} satisfies RunRequest;

describe("observedRunner", () => {
  it("tells the observer the output and the result, and keeps the request's own listener", async () => {
    const seen: string[] = [];
    const own: string[] = [];
    const runner = observedRunner(streaming, {
      onOutput: (stream, chunk) => seen.push(`${stream}:${chunk}`),
      onResult: (_request, ended) => seen.push(`result:${ended.status}`),
    });
    expect(await runner.run({ ...request, onOutput: (_stream, chunk) => own.push(chunk) })).toBe(result);
    expect(seen).toEqual(["stdout:out", "result:ok"]);
    expect(own).toEqual(["out"]);
  });

  it("an observer that throws changes nothing about the run", async () => {
    const runner = observedRunner(streaming, {
      onOutput: () => {
        throw new Error("observer failed");
      },
      onResult: () => {
        throw new Error("observer failed");
      },
    });
    expect(await runner.run(request)).toBe(result);
  });

  it("passes admit through", () => {
    const runner = observedRunner(streaming, {});
    expect(runner.admit?.({ ...request, skill: "refused" })?.code).toBe("not_trusted");
    expect(runner.admit?.(request)).toBeUndefined();
  });
});
