import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { startRedis } from "../../helpers/redis-server.js";
import { INSTALL_SCRIPT } from "../../helpers/required-tools.js";

/**
 * The queue tests' own redis-server (test/helpers/redis-server.ts): each test starts one on a
 * free port and it is stopped after; a machine without redis-server fails (never skips), naming
 * the script that installs it.
 */

const path = process.env.PATH;

afterEach(() => {
  process.env.PATH = path;
});

describe("the test redis-server", () => {
  it("fails naming the install script when redis-server is not installed", async () => {
    process.env.PATH = mkdtempSync(join(tmpdir(), "skillgate-no-redis-"));
    const error = await startRedis().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain("redis-server");
    expect((error as Error).message).toContain(INSTALL_SCRIPT);
  });

  it("starts one of its own on a free port with AOF on, and stops it", async () => {
    const first = await startRedis();
    const second = await startRedis();
    expect(second.port).not.toBe(first.port);
    const client = new Redis(first.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
    client.on("error", () => undefined);
    await client.connect();
    expect(await client.config("GET", "appendonly")).toEqual(["appendonly", "yes"]);
    client.disconnect();
    await first.stop();
    const after = new Redis(first.url, {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    after.on("error", () => undefined);
    await expect(after.connect()).rejects.toThrow();
    after.disconnect();
    await second.stop();
  });
});
