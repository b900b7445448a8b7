import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { Authoring } from "../../src/app/authoring.js";
import { createSkillgate } from "../../src/app/skillgate.js";
import type { LogFields, Logger } from "../../src/observe/logger.js";
import { type OwnerNotice, sendNotice } from "../../src/observe/notifications.js";
import { FakeRunner } from "../../src/testing/index.js";
import { cliSandbox } from "../surfaces/cli/harness.js";

/**
 * Owner notifications against receivers on loopback that fail, hang and succeed: the good
 * one gets the message in its channel's shape, the others are logged by error type only,
 * the hung one is cut by the timeout, and the write that caused them stands.
 */

interface Received {
  readonly path: string;
  readonly headers: IncomingMessage["headers"];
  readonly body: string;
}

const servers: Server[] = [];
const hung: ServerResponse[] = [];

afterEach(async () => {
  for (const response of hung.splice(0)) response.destroy();
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A receiver: `/ok…` answers 200, `/fail` 500, `/hang` never answers. */
async function receiver(): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on("end", () => {
      received.push({ path: request.url ?? "", headers: request.headers, body });
      if (request.url === "/hang") return void hung.push(response);
      response.statusCode = request.url === "/fail" ? 500 : 200;
      response.end("done");
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

function capturingLogger(): Logger & { lines: Array<{ message: string; fields?: LogFields }> } {
  const lines: Array<{ message: string; fields?: LogFields }> = [];
  const keep = (message: string, fields?: LogFields) =>
    void lines.push({ message, ...(fields ? { fields } : {}) });
  return { lines, info: keep, warn: keep };
}

const NOTICE: OwnerNotice = {
  kind: "draft-saved",
  skill: "disk-report",
  hash: "ab".repeat(32),
  created: true,
};

describe("sendNotice", () => {
  it("delivers to the good channels, logs the failed and hung ones by error type only", async () => {
    const { url, received } = await receiver();
    const logger = capturingLogger();
    const outcomes = await sendNotice(NOTICE, {
      channels: [
        { type: "webhook", url: `${url}/ok-webhook`, token: "secret-token" },
        { type: "ntfy", url: `${url}/ok-topic` },
        { type: "gotify", url: `${url}/ok-gotify/message`, token: "app-token" },
        { type: "webhook", url: `${url}/fail` },
        { type: "webhook", url: `${url}/hang` },
        { type: "webhook", url: "http://127.0.0.1:1/refused" },
      ],
      timeoutMs: 500,
      logger,
    });
    expect(outcomes.map((outcome) => [outcome.ok, outcome.error])).toEqual([
      [true, undefined],
      [true, undefined],
      [true, undefined],
      [false, "http_500"],
      [false, "timeout"],
      [false, "TypeError"],
    ]);
    const webhook = received.find((each) => each.path === "/ok-webhook");
    expect(webhook?.headers.authorization).toBe("Bearer secret-token");
    expect(JSON.parse(webhook?.body ?? "")).toMatchObject({ source: "skillgate", notice: NOTICE });
    const topic = received.find((each) => each.path === "/ok-topic");
    expect(topic?.headers.title).toBe("skillgate: draft disk-report");
    expect(topic?.body).toContain("drafted disk-report (hash abababab)");
    const gotify = received.find((each) => each.path === "/ok-gotify/message");
    expect(gotify?.headers["x-gotify-key"]).toBe("app-token");
    expect(JSON.parse(gotify?.body ?? "")).toMatchObject({
      title: "skillgate: draft disk-report",
      priority: 5,
    });
    // One line per failure (in the order they failed), naming the channel type and the error's type, nothing else.
    expect(logger.lines.map((line) => line.message)).toEqual(Array(3).fill("owner notification failed"));
    expect(
      logger.lines
        .map((line) => line.fields)
        .sort((a, b) => String(a?.error).localeCompare(String(b?.error))),
    ).toEqual([
      { channel: "webhook", error: "http_500" },
      { channel: "webhook", error: "timeout" },
      { channel: "webhook", error: "TypeError" },
    ]);
    expect(JSON.stringify(logger.lines)).not.toContain("127.0.0.1");
  });
});

describe("every door that saves a draft or applies an edit notifies", () => {
  it("the draft_skill tool saves the draft whatever the receivers do, and the good one hears of it", async () => {
    const { url, received } = await receiver();
    const sandbox = cliSandbox();
    sandbox.writeConfig(
      [
        "notifications:",
        "  timeout_seconds: 1",
        "  channels:",
        `    - { type: webhook, url: "${url}/fail" }`,
        `    - { type: webhook, url: "${url}/hang" }`,
        `    - { type: ntfy, url: "${url}/ok-topic" }`,
        "",
      ].join("\n"),
    );
    const logger = capturingLogger();
    const skillgate = createSkillgate({
      config: sandbox.config,
      data: sandbox.data,
      home: sandbox.home,
      roots: [sandbox.project],
      builtins: false,
      runner: new FakeRunner(),
      audit: false,
      logger,
    });
    const heard: OwnerNotice[] = [];
    skillgate.authoring.subscribe((notice) => heard.push(notice));
    const turn = skillgate.createTurn({ chatId: "chat-1" });
    const saved = await turn.call("draft_skill", {
      name: "disk-report",
      description: "Reports disk use.",
      body: "# Disk report\n",
      sourceChats: ["chat-1"],
      rationale: "Asked twice.",
    });
    expect(saved.status, saved.text).toBe("ok");
    const store = await skillgate.openStore();
    const draft = await store.get("disk-report");
    expect(heard).toEqual([{ kind: "draft-saved", skill: "disk-report", hash: draft.hash, created: true }]);
    // The tool did not wait for the channels; they are all reached within the timeout.
    await expect
      .poll(() => received.map((each) => each.path).sort(), { timeout: 5000 })
      .toEqual(["/fail", "/hang", "/ok-topic"]);
    await expect
      .poll(() => logger.lines.filter((line) => line.message === "owner notification failed").length, {
        timeout: 5000,
      })
      .toBe(2);
    expect(received.find((each) => each.path === "/ok-topic")?.body).toContain("disk-report");
    skillgate.close();
  });

  it("skillgate store approve PLAN notifies of the applied edit", async () => {
    const { url, received } = await receiver();
    const sandbox = cliSandbox();
    sandbox.writeConfig(`notifications:\n  channels:\n    - { type: webhook, url: "${url}/ok-webhook" }\n`);
    const { Store } = await import("../../src/store/store.js");
    const { planEdit } = await import("../../src/store/edits/index.js");
    const store = await Store.open({ dataFolder: sandbox.data });
    await store.create("notes", { "SKILL.md": "---\nname: notes\ndescription: Notes.\n---\n\nNotes.\n" });
    const plan = await planEdit(store, {
      skillName: "notes",
      files: { "references/a.md": "A\n" },
      reason: "More.",
    });
    const applied = await sandbox.run(["store", "approve", plan.id]);
    expect(applied.code, applied.err).toBe(0);
    const [message] = received;
    expect(JSON.parse(message?.body ?? "").notice).toEqual({
      kind: "edit-applied",
      skill: "notes",
      hash: plan.resultHash,
      plan: plan.id,
    });
  });

  it("a report never rejects: a listener that throws and a config that cannot be read are dropped", async () => {
    const logger = capturingLogger();
    const authoring = new Authoring({
      config: () => {
        throw new TypeError("config.yaml broke");
      },
      logger,
    });
    authoring.subscribe(() => {
      throw new Error("listener broke");
    });
    const heard: OwnerNotice[] = [];
    authoring.subscribe((notice) => heard.push(notice));
    await expect(authoring.report(NOTICE)).resolves.toEqual([]);
    expect(heard).toEqual([NOTICE]);
    expect(logger.lines).toEqual([{ message: "owner notification skipped", fields: { error: "TypeError" } }]);
  });
});
