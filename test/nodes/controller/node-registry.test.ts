import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/core/clock.js";
import {
  ENROLMENT_TOKEN_TTL_MS,
  MAX_ENROLMENT_FAILURES,
  NodeRegistry,
} from "../../../src/nodes/controller/node-registry.js";

const START = Date.parse("2026-01-01T00:00:00Z");

function setup() {
  const data = mkdtempSync(join(tmpdir(), "skillgate-registry-"));
  const clock = new ManualClock(START);
  const registry = new NodeRegistry({ dataFolder: data, clock });
  return { data, clock, registry, file: join(data, "nodes", "registry.json") };
}

async function codeOf(promise: Promise<unknown>): Promise<{ code: string; reason?: unknown }> {
  try {
    await promise;
  } catch (error) {
    const failed = error as { code: string; data?: { reason?: unknown } };
    return { code: failed.code, reason: failed.data?.reason };
  }
  throw new Error("expected a refusal");
}

describe("the node registry", () => {
  it("writes nothing until a node is added, then a private file holding digests only", async () => {
    const { data, registry, file } = setup();
    expect(registry.list()).toEqual([]);
    expect(readdirSync(data)).toEqual([]);
    const added = await registry.add("lab01");
    expect(added.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(added.expiresAt).toBe(new Date(START + ENROLMENT_TOKEN_TTL_MS).toISOString());
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(data, "nodes")).mode & 0o777).toBe(0o700);
    const text = readFileSync(file, "utf8");
    expect(text).not.toContain(added.token);
    const enrolled = await registry.enrol("lab01", added.token);
    expect(enrolled.credential).toMatch(/^sgn_[A-Za-z0-9_-]{43}$/);
    expect(readFileSync(file, "utf8")).not.toContain(enrolled.credential);
    expect(readFileSync(file, "utf8")).not.toContain(added.token);
    expect(registry.list()).toEqual([
      expect.objectContaining({ name: "lab01", role: "node", enrolled: true, locked: false }),
    ]);
  });

  it("gives the token once: a second enrolment with it is refused, and the credential authenticates its node only", async () => {
    const { registry } = setup();
    const lab = await registry.add("lab01");
    const worker = await registry.add("w1", { role: "worker" });
    const labCredential = (await registry.enrol("lab01", lab.token)).credential;
    const workerCredential = (await registry.enrol("w1", worker.token)).credential;
    expect(await codeOf(registry.enrol("lab01", lab.token))).toEqual({
      code: "enrolment_refused",
      reason: "already_enrolled",
    });
    expect(registry.authenticate(labCredential)?.name).toBe("lab01");
    expect(registry.authenticate(workerCredential)).toMatchObject({ name: "w1", role: "worker" });
    expect(registry.authenticate(`${labCredential}x`)).toBeUndefined();
    expect(registry.authenticate("test-owner-token")).toBeUndefined();
    expect(registry.authenticate(lab.token)).toBeUndefined();
  });

  it("refuses an expired token and a wrong one, and locks a name after too many wrong tries", async () => {
    const { registry, clock } = setup();
    const late = await registry.add("late");
    clock.advance(ENROLMENT_TOKEN_TTL_MS);
    expect(await codeOf(registry.enrol("late", late.token))).toEqual({
      code: "enrolment_refused",
      reason: "expired",
    });

    const guessed = await registry.add("guessed");
    for (let attempt = 1; attempt < MAX_ENROLMENT_FAILURES; attempt += 1)
      expect(await codeOf(registry.enrol("guessed", "wrong"))).toEqual({
        code: "enrolment_refused",
        reason: "wrong_token",
      });
    expect(await codeOf(registry.enrol("guessed", "wrong"))).toEqual({
      code: "enrolment_refused",
      reason: "locked",
    });
    // Even the right token no longer works: the owner adds the node again.
    expect(await codeOf(registry.enrol("guessed", guessed.token))).toEqual({
      code: "enrolment_refused",
      reason: "locked",
    });
    expect(registry.get("guessed")).toMatchObject({ locked: true, enrolled: false });
    expect(await codeOf(registry.enrol("nobody", "x"))).toEqual({
      code: "enrolment_refused",
      reason: "unknown_node",
    });
  });

  it("remove revokes the credential at once", async () => {
    const { registry } = setup();
    const added = await registry.add("lab01");
    const { credential } = await registry.enrol("lab01", added.token);
    expect(registry.authenticate(credential)?.name).toBe("lab01");
    await registry.remove("lab01");
    expect(registry.authenticate(credential)).toBeUndefined();
    expect(await codeOf(registry.remove("lab01"))).toEqual({ code: "node_not_found", reason: undefined });
  });

  it("sees another process's change on its next read", async () => {
    const { data, registry } = setup();
    const other = new NodeRegistry({ dataFolder: data });
    expect(registry.list()).toEqual([]);
    await other.add("lab02");
    expect(registry.list().map((node) => node.name)).toEqual(["lab02"]);
    await other.remove("lab02");
    expect(registry.list()).toEqual([]);
  });

  it.each([
    ["", "invalid_node_name"],
    ["Lab01", "invalid_node_name"],
    ["-lab", "invalid_node_name"],
    ["lab_01", "invalid_node_name"],
    ["../etc", "invalid_node_name"],
    ["a".repeat(64), "invalid_node_name"],
    ["__proto__", "invalid_node_name"],
  ])("refuses the name %j with %s and writes nothing", async (name, code) => {
    const { data, registry } = setup();
    expect((await codeOf(registry.add(name))).code).toBe(code);
    expect(readdirSync(data)).toEqual([]);
  });

  it("refuses a second node of the same name", async () => {
    const { registry, file } = setup();
    await registry.add("lab01");
    const before = readFileSync(file, "utf8");
    expect((await codeOf(registry.add("lab01"))).code).toBe("node_exists");
    expect(readFileSync(file, "utf8")).toBe(before);
  });

  it.each([
    ["not JSON", "{"],
    ["another version", JSON.stringify({ version: 2, nodes: [] })],
    ["a bad name", JSON.stringify({ version: 1, nodes: [{ name: "../x", role: "node", addedAt: "" }] })],
    [
      "a bad digest",
      JSON.stringify({
        version: 1,
        nodes: [{ name: "a", role: "node", addedAt: "", credential: { sha256: "zz", enrolledAt: "" } }],
      }),
    ],
    [
      "a name twice",
      JSON.stringify({
        version: 1,
        nodes: [
          { name: "a", role: "node", addedAt: "" },
          { name: "a", role: "node", addedAt: "" },
        ],
      }),
    ],
  ])(
    "refuses a registry file with %s (nodes_registry_corrupt) and leaves it as it is",
    async (_label, text) => {
      const { data, registry, file } = setup();
      mkdirSync(join(data, "nodes"), { recursive: true });
      writeFileSync(file, text);
      expect(() => registry.list()).toThrow(expect.objectContaining({ code: "nodes_registry_corrupt" }));
      expect((await codeOf(registry.add("b"))).code).toBe("nodes_registry_corrupt");
      expect(readFileSync(file, "utf8")).toBe(text);
    },
  );

  it("takes a registry that is there but cannot be read for damaged, never for empty, and writes nothing over it", async () => {
    const { data, registry, file } = setup();
    mkdirSync(join(data, "nodes"), { recursive: true });
    // Over the size limit: an empty read would let the next add write a one-node file over it.
    const big = `${" ".repeat(4 * 1024 * 1024)}{}`;
    writeFileSync(file, big);
    expect(() => registry.list()).toThrow(expect.objectContaining({ code: "nodes_registry_corrupt" }));
    expect((await codeOf(registry.add("b"))).code).toBe("nodes_registry_corrupt");
    expect(readFileSync(file, "utf8")).toBe(big);
  });

  it("never throws when checking a credential: a damaged file is checked against the last good read, or none", async () => {
    const { data, registry, file } = setup();
    const { token } = await registry.add("lab01");
    const { credential } = await registry.enrol("lab01", token);
    expect(registry.authenticate(credential)?.name).toBe("lab01");
    writeFileSync(file, "{ not json");
    expect(() => registry.list()).toThrow(expect.objectContaining({ code: "nodes_registry_corrupt" }));
    // This process read the registry well before: the enrolled node is still known.
    expect(registry.authenticate(credential)?.name).toBe("lab01");
    expect(registry.authenticate("sgn_not-a-credential")).toBeUndefined();
    // Another process (a restarted server) that never read it well accepts no credential.
    const fresh = new NodeRegistry({ dataFolder: data });
    expect(fresh.authenticate(credential)).toBeUndefined();
  });
});
