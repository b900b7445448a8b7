import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { verifyManifest } from "../../../src/nodes/manifest/verify-manifest.js";
import { AGENT_ROUTES, type SignedSkillsManifest, type SkillsManifest } from "../../../src/nodes/protocol.js";
import { hashSkillFolder } from "../../../src/skill/content-hash.js";
import {
  enrol,
  heartbeatBody,
  ScriptedAgent,
  startController,
  writeModeSkill,
} from "../../nodes/controller/controller-harness.js";

function bearer(credential: string): Record<string, string> {
  return { Authorization: `Bearer ${credential}` };
}

function manifestOf(signed: SignedSkillsManifest): SkillsManifest {
  return JSON.parse(Buffer.from(signed.payload, "base64").toString("utf8")) as SkillsManifest;
}

/** Opens the run channel with `headers`; the HTTP status of a refused upgrade, or 101. */
function upgradeStatus(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url, { headers });
    socket.once("open", () => {
      socket.close();
      resolve(101);
    });
    socket.once("unexpected-response", (_request, response) => resolve(response.statusCode ?? 0));
    socket.once("error", () => resolve(0));
  });
}

describe("the agent routes", () => {
  it("enrol gives a credential and the controller's key once; the token is refused after", async () => {
    const { server } = await startController();
    const { token } = (await server.server.context.nodes?.registry.add("lab01")) ?? { token: "" };
    const enrolled = await server.raw(
      "POST",
      AGENT_ROUTES.enrol,
      { "Content-Type": "application/json" },
      JSON.stringify({ name: "lab01", token }),
    );
    expect(enrolled.status).toBe(200);
    const body = JSON.parse(enrolled.body) as {
      name: string;
      credential: string;
      controllerPublicKey: string;
    };
    expect(body.name).toBe("lab01");
    expect(body.credential).toMatch(/^sgn_/);
    expect(body.controllerPublicKey).toContain("BEGIN PUBLIC KEY");
    const again = await server.raw(
      "POST",
      AGENT_ROUTES.enrol,
      { "Content-Type": "application/json" },
      JSON.stringify({ name: "lab01", token }),
    );
    expect(again.status).toBe(401);
    expect(JSON.parse(again.body).error).toMatchObject({
      code: "enrolment_refused",
      data: { reason: "already_enrolled" },
    });
    const registry = readFileSync(join(server.folders.data, "nodes", "registry.json"), "utf8");
    expect(registry).not.toContain(body.credential);
    expect(registry).not.toContain(token);
  });

  it.each([
    ["not JSON", "{", 400, "invalid_argument"],
    ["no token", JSON.stringify({ name: "lab01" }), 400, "invalid_argument"],
    ["a bad name", JSON.stringify({ name: "../lab", token: "x" }), 400, "invalid_node_name"],
    ["an oversized body", JSON.stringify({ name: "lab01", token: "x".repeat(5000) }), 413, "limit_exceeded"],
    ["a wrong token", JSON.stringify({ name: "lab01", token: "guess" }), 401, "enrolment_refused"],
  ])("refuses an enrolment with %s and enrols nothing", async (_label, body, status, code) => {
    const { server } = await startController();
    await server.server.context.nodes?.registry.add("lab01");
    const answer = await server.raw("POST", AGENT_ROUTES.enrol, { "Content-Type": "application/json" }, body);
    expect(answer.status).toBe(status);
    expect(JSON.parse(answer.body).error.code).toBe(code);
    expect(server.server.context.nodes?.registry.get("lab01")?.enrolled).toBe(false);
  });

  it("gives a node the manifest of its own skills: node and sandbox ones in scope, never local ones", async () => {
    const { server } = await startController({ configYaml: "nodes:\n  skills:\n    boxed: [lab02]\n" });
    const lab01 = await enrol(server, "lab01");
    const lab02 = await enrol(server, "lab02");
    const first = await server.raw("GET", AGENT_ROUTES.manifest, bearer(lab01));
    expect(first.status).toBe(200);
    const one = manifestOf(JSON.parse(first.body));
    expect(one.node).toBe("lab01");
    expect(one.skills.map((skill) => skill.name)).toEqual(["remote"]);
    const two = manifestOf(JSON.parse((await server.raw("GET", AGENT_ROUTES.manifest, bearer(lab02))).body));
    expect(two.skills.map((skill) => skill.name)).toEqual(["boxed", "remote"]);
    expect(two.skills.find((skill) => skill.name === "remote")?.hash).toBe(
      hashSkillFolder(join(server.folders.skills, "remote")).hash,
    );
  });

  it("signs manifests with the key enrolment hands out; packages match their SHA-256; heartbeats say when to sync", async () => {
    const { server } = await startController();
    const { token } = (await server.server.context.nodes?.registry.add("lab01")) ?? { token: "" };
    const enrolled = await fetch(`${server.origin}${AGENT_ROUTES.enrol}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ name: "lab01", token }),
    });
    const { credential, controllerPublicKey } = (await enrolled.json()) as {
      credential: string;
      controllerPublicKey: string;
    };
    const signed = JSON.parse((await server.raw("GET", AGENT_ROUTES.manifest, bearer(credential))).body);
    const verdict = verifyManifest(signed, controllerPublicKey, {
      node: "lab01",
      lastSequence: 0,
      now: Date.now(),
    });
    expect(verdict.ok).toBe(true);
    const manifest = manifestOf(signed);
    const remote = manifest.skills.find((skill) => skill.name === "remote");
    const fetched = await fetch(`${server.origin}${AGENT_ROUTES.packages}/remote@${remote?.hash}`, {
      headers: bearer(credential),
    });
    const bytes = Buffer.from(await fetched.arrayBuffer());
    expect(fetched.headers.get("content-type")).toBe("application/gzip");
    expect(bytes.length).toBe(remote?.size);
    expect(createHash("sha256").update(bytes).digest("hex")).toBe(remote?.sha256);
    const beat = async () =>
      JSON.parse(
        (
          await server.raw(
            "POST",
            AGENT_ROUTES.heartbeat,
            { ...bearer(credential), "Content-Type": "application/json" },
            JSON.stringify(heartbeatBody()),
          )
        ).body,
      ).manifestSequence as number;
    // Up to date: the sequence it holds. After an edit: above it, so the agent syncs.
    expect(await beat()).toBe(manifest.sequence);
    writeModeSkill(server.folders.skills, "remote", "node", "echo edited\n");
    expect(await beat()).toBeGreaterThan(manifest.sequence);
  });

  it("serves a package only from the calling node's current manifest, and refuses a stale hash", async () => {
    const { server } = await startController({ configYaml: "nodes:\n  skills:\n    boxed: [lab02]\n" });
    const lab01 = await enrol(server, "lab01");
    const lab02 = await enrol(server, "lab02");
    const manifest = manifestOf(
      JSON.parse((await server.raw("GET", AGENT_ROUTES.manifest, bearer(lab02))).body),
    );
    const boxed = manifest.skills.find((skill) => skill.name === "boxed");
    const remote = manifest.skills.find((skill) => skill.name === "remote");
    const path = (name: string, hash: string) => `${AGENT_ROUTES.packages}/${name}@${hash}`;
    expect((await server.raw("GET", path("boxed", boxed?.hash ?? ""), bearer(lab02))).status).toBe(200);
    // lab01's scope leaves boxed out: another node's package is refused.
    const other = await server.raw("GET", path("boxed", boxed?.hash ?? ""), bearer(lab01));
    expect(other.status).toBe(404);
    expect(JSON.parse(other.body).error).toMatchObject({
      code: "node_package_refused",
      data: { reason: "package_not_found" },
    });
    // An edit moves the store's hash on: the old package is stale.
    writeModeSkill(server.folders.skills, "remote", "node", "echo edited\n");
    const stale = await server.raw("GET", path("remote", remote?.hash ?? ""), bearer(lab02));
    expect(stale.status).toBe(404);
    expect(JSON.parse(stale.body).error.data.reason).toBe("package_stale");
    for (const reference of ["remote", "remote@abc", `../x@${"a".repeat(64)}`, `REMOTE@${"a".repeat(64)}`]) {
      const answer = await server.raw(
        "GET",
        `${AGENT_ROUTES.packages}/${encodeURIComponent(reference)}`,
        bearer(lab02),
      );
      expect(answer.status).toBe(400);
    }
  });

  it("takes a heartbeat of the calling node only, and checks its shape", async () => {
    const { server } = await startController();
    const lab01 = await enrol(server, "lab01");
    const ok = await server.raw(
      "POST",
      AGENT_ROUTES.heartbeat,
      { ...bearer(lab01), "Content-Type": "application/json" },
      JSON.stringify(heartbeatBody({ remote: "a".repeat(64) })),
    );
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toEqual({ manifestSequence: expect.any(Number) });
    expect(server.server.context.nodes?.hub.state("lab01")).toMatchObject({
      skills: { remote: "a".repeat(64) },
    });
    for (const bad of [
      "{",
      JSON.stringify({ ...heartbeatBody(), skills: { remote: "not-a-hash" } }),
      JSON.stringify({ ...heartbeatBody(), features: "skills" }),
      JSON.stringify({ ...heartbeatBody(), skills: { remote: "a".repeat(64) }, extra: "x".repeat(300_000) }),
    ]) {
      const answer = await server.raw(
        "POST",
        AGENT_ROUTES.heartbeat,
        { ...bearer(lab01), "Content-Type": "application/json" },
        bad,
      );
      expect([400, 413]).toContain(answer.status);
    }
    expect(server.server.context.nodes?.hub.state("lab01")?.skills).toEqual({ remote: "a".repeat(64) });
  });

  it("refuses an owner token, no credential and a removed node's credential on every agent route and the channel", async () => {
    const { server } = await startController();
    const lab01 = await enrol(server, "lab01");
    const channel = `${server.origin.replace("http", "ws")}${AGENT_ROUTES.channel}`;
    const routes: Array<[string, string]> = [
      ["GET", AGENT_ROUTES.manifest],
      ["GET", `${AGENT_ROUTES.packages}/remote@${"a".repeat(64)}`],
      ["POST", AGENT_ROUTES.heartbeat],
    ];
    for (const headers of [bearer(server.token), {}]) {
      for (const [method, path] of routes) {
        const answer = await server.raw(
          method,
          path,
          { ...headers, "Content-Type": "application/json" },
          method === "GET" ? undefined : "{}",
        );
        expect(answer.status, `${method} ${path} ${answer.body}`).toBe(401);
        expect(JSON.parse(answer.body).error.code).toBe("node_unauthorized");
      }
      expect(await upgradeStatus(channel, headers)).toBe(401);
    }
    expect(await upgradeStatus(channel, bearer(lab01))).toBe(101);
    // A browser page of another site cannot open the channel, even with a credential.
    expect(await upgradeStatus(channel, { ...bearer(lab01), Origin: "https://evil.example" })).toBe(403);
    const agent = await ScriptedAgent.connect(server, lab01);
    await server.fetch("/api/nodes/lab01", { method: "DELETE" });
    await new Promise<void>((resolve) => agent.socket.once("close", () => resolve()));
    expect(agent.closed?.code).toBe(4002);
    expect((await server.raw("GET", AGENT_ROUTES.manifest, bearer(lab01))).status).toBe(401);
    expect(await upgradeStatus(channel, bearer(lab01))).toBe(401);
  });

  it("answers 500 to an upgrade whose check throws, and keeps serving", async () => {
    const { server } = await startController();
    const lab01 = await enrol(server, "lab01");
    const channel = `${server.origin.replace("http", "ws")}${AGENT_ROUTES.channel}`;
    const registry = server.server.context.nodes?.registry;
    if (registry === undefined) throw new Error("the controller has no nodes");
    const authenticate = registry.authenticate.bind(registry);
    // A fault inside the check (a bug, a disk error) must not escape the server's upgrade event.
    registry.authenticate = () => {
      throw new Error("the check failed");
    };
    expect(await upgradeStatus(channel, bearer(lab01))).toBe(500);
    registry.authenticate = authenticate;
    expect(await upgradeStatus(channel, bearer(lab01))).toBe(101);
  });

  it("refuses a node credential on every owner route the OpenAPI document lists, and on /mcp", async () => {
    // Each refused credential counts as a failed login; the test makes more than the default allows.
    const { server } = await startController({ server: { loginAttempts: { maxFailures: 1000 } } });
    const lab01 = await enrol(server, "lab01");
    const document = await server.json<{ paths: Record<string, Record<string, unknown>> }>(
      "/api/openapi.json",
    );
    expect(Object.keys(document.body.paths)).toContain("/nodes");
    let checked = 0;
    for (const [path, operations] of Object.entries(document.body.paths)) {
      const concrete = `/api${path.replace(/\{[^}]+\}/g, "x")}`;
      for (const method of Object.keys(operations)) {
        const answer = await server.raw(
          method.toUpperCase(),
          concrete,
          { ...bearer(lab01), "Content-Type": "application/json", "X-Skillgate-CSRF": "1" },
          method === "get" || method === "delete" ? undefined : "{}",
        );
        expect(answer.status, `${method} ${concrete} ${answer.body}`).toBe(401);
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(20);
    const mcp = await server.raw(
      "POST",
      "/mcp",
      { ...bearer(lab01), "Content-Type": "application/json" },
      "{}",
    );
    expect(mcp.status).toBe(401);
    expect((await server.raw("GET", "/api/openapi.json", bearer(lab01))).status).toBe(401);
  });

  it("closes a channel that does not say hello with the protocol first", async () => {
    const { server } = await startController();
    const lab01 = await enrol(server, "lab01");
    const socket = new WebSocket(`${server.origin.replace("http", "ws")}${AGENT_ROUTES.channel}`, {
      headers: bearer(lab01),
    });
    await new Promise<void>((resolve) => socket.once("open", () => resolve()));
    const closed = new Promise<number>((resolve) => socket.once("close", (code) => resolve(code)));
    socket.send(JSON.stringify({ type: "hello", protocol: 99 }));
    expect(await closed).toBe(4003);
    expect(server.server.context.nodes?.hub.state("lab01")?.connected).toBe(false);
  });
});
