import { describe, expect, it } from "vitest";
import { DEFAULT_CONFIG, parseConfig } from "../../src/config/config.js";
import { isSkillgateError } from "../../src/core/errors.js";

describe("the queue: section of config.yaml", () => {
  it("defaults to the local backend, 1,000 waiting, auto in-process worker, a worker per core", () => {
    const queue = DEFAULT_CONFIG.queue;
    expect(queue).toMatchObject({
      backend: "local",
      capacity: 1000,
      workers: { inProcess: "auto" },
      heartbeatSeconds: 2,
    });
    expect(queue.concurrency).toBeGreaterThanOrEqual(1);
    expect(parseConfig("queue: {}\n", "config.yaml").queue).toEqual(queue);
  });

  it("reads every setting", () => {
    const queue = parseConfig(
      [
        "queue:",
        "  backend: redis",
        "  redis: { url: redis://127.0.0.1:6380/0 }",
        "  capacity: 50",
        "  workers: { in_process: off }",
        "  concurrency: 3",
        "  heartbeat_seconds: 5",
        "  skills:",
        "    heavy-report: { concurrency: 1 }",
        "",
      ].join("\n"),
      "config.yaml",
    ).queue;
    expect(queue).toEqual({
      backend: "redis",
      redis: { url: "redis://127.0.0.1:6380/0" },
      capacity: 50,
      workers: { inProcess: "off" },
      concurrency: 3,
      heartbeatSeconds: 5,
      skills: { "heavy-report": { concurrency: 1 } },
    });
  });

  const hostile: Array<[string, string, RegExp]> = [
    ["an unknown backend", "queue: { backend: sqs }", /"queue.backend" must be local or redis/],
    ["redis without a url", "queue: { backend: redis }", /"queue.redis.url" is required/],
    ["a url of another scheme", "queue: { redis: { url: http://x } }", /redis:\/\/ or rediss:\/\//],
    ["a zero capacity", "queue: { capacity: 0 }", /"queue.capacity" must be a whole number from 1/],
    ["a text concurrency", "queue: { concurrency: many }", /"queue.concurrency" must be a whole number/],
    ["an unknown in_process", "queue: { workers: { in_process: maybe } }", /must be auto, on or off/],
    [
      "a skill name with a slash",
      "queue: { skills: { '../x': { concurrency: 1 } } }",
      /"queue.skills.\.\.\/x" is not a skill name/,
    ],
    [
      "a skill limit of 0",
      "queue: { skills: { a: { concurrency: 0 } } }",
      /"queue.skills.a.concurrency" must be/,
    ],
    ["an unknown key", "queue: { retries: 3 }", /unknown key "queue.retries"/],
    [
      "a prototype key",
      "queue: { skills: { __proto__: { concurrency: 1 } } }",
      /not a skill name|unknown key/,
    ],
  ];
  it.each(hostile)("refuses %s with invalid_config", (_label, text, message) => {
    let caught: unknown;
    try {
      parseConfig(`${text}\n`, "config.yaml");
    } catch (error) {
      caught = error;
    }
    expect(isSkillgateError(caught, "invalid_config")).toBe(true);
    expect((caught as Error).message).toMatch(message);
  });
});
