import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { queueLayout } from "../../src/queue/local/layout.js";
import { RequestSeal } from "../../src/queue/local/request-seal.js";
import { runCaptured } from "../surfaces/cli/harness.js";
import { queueRequest, queueTree } from "./helpers.js";

/**
 * `skillgate queue seal-key [--export FILE]`: where the controller's seal key lives, and a copy
 * for a worker on another host that seals alike; an existing file is never replaced.
 */
describe("skillgate queue seal-key", () => {
  it("prints the key's path, making the key when missing", async () => {
    const { root, data } = queueTree();
    const run = await runCaptured(["--config", join(root, "config"), "--data", data, "queue", "seal-key"]);
    expect(run.code, run.err).toBe(0);
    const keyFile = queueLayout(data).sealKey;
    expect(run.out).toBe(`${keyFile}\n`);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
  });

  it("exports a 0600 copy that seals as the controller's key does, and never replaces a file", async () => {
    const { root, data } = queueTree();
    const target = join(root, "for-worker.key");
    const argv = ["--config", join(root, "config"), "--data", data, "queue", "seal-key", "--export", target];
    const run = await runCaptured(argv);
    expect(run.code, run.err).toBe(0);
    expect(run.out).toContain(`--seal-key ${target}`);
    expect(statSync(target).mode & 0o777).toBe(0o600);
    const request = queueRequest("echo", "a".repeat(64), "scripts/echo.mjs");
    const controller = RequestSeal.open(queueLayout(data).sealKey);
    expect(RequestSeal.open(target).verify(request, controller.seal(request))).toBe(true);
    const before = readFileSync(target, "utf8");
    const again = await runCaptured(argv);
    expect(again.code).not.toBe(0);
    expect(again.err).toContain(`${target} exists already`);
    expect(readFileSync(target, "utf8")).toBe(before);
  });
});
