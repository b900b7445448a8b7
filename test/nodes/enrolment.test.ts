import { generateKeyPairSync } from "node:crypto";
import { readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AgentFiles } from "../../src/nodes/agent/agent-files.js";
import { enrolAgent } from "../../src/nodes/agent/enrolment.js";
import { AGENT_ROUTES } from "../../src/nodes/protocol.js";
import { makeTree } from "../helpers/skill-tree.js";

const servers: Server[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

function publicKey(): string {
  return generateKeyPairSync("ed25519").publicKey.export({ type: "spki", format: "pem" }).toString();
}

/** A controller that enrols `name` with `token` once, answering with `key()` and a fresh credential. */
async function enrolmentServer(
  key: () => string,
  answerName?: string,
): Promise<{ url: string; bodies: unknown[] }> {
  const bodies: unknown[] = [];
  let count = 0;
  const server = createServer((request, response) => {
    let text = "";
    request.on("data", (chunk: Buffer) => {
      text += chunk.toString();
    });
    request.on("end", () => {
      const body = JSON.parse(text) as { name: string; token: string };
      bodies.push(body);
      if (
        request.method !== "POST" ||
        request.url !== AGENT_ROUTES.enrol ||
        body.token !== "one-time-token"
      ) {
        response.writeHead(403, { "content-type": "application/json" });
        response.end(JSON.stringify({ error: { code: "enrolment_refused" } }));
        return;
      }
      count += 1;
      response.end(
        JSON.stringify({
          name: answerName ?? body.name,
          credential: `credential-${count}`,
          controllerPublicKey: key(),
        }),
      );
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies };
}

describe("enrolment", () => {
  it("stores the credential and pins the controller's key, 0600", async () => {
    const key = publicKey();
    const { url, bodies } = await enrolmentServer(() => key);
    const files = new AgentFiles(makeTree("skillgate-agent-"));
    const identity = await enrolAgent({ controllerUrl: url, name: "lab01", token: "one-time-token", files });
    expect(identity).toEqual({ name: "lab01", credential: "credential-1", controllerPublicKey: key });
    expect(bodies).toEqual([{ name: "lab01", token: "one-time-token" }]);
    expect(files.identity()).toEqual(identity);
    expect(statSync(files.folder).mode & 0o777).toBe(0o700);
    for (const file of readdirSync(files.folder))
      expect(statSync(join(files.folder, file)).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(files.folder, "credential"), "utf8")).toBe("credential-1\n");
  });

  it("refuses a later enrolment against another key until the owner removes the pinned file", async () => {
    let key = publicKey();
    const { url } = await enrolmentServer(() => key);
    const files = new AgentFiles(makeTree("skillgate-agent-"));
    await enrolAgent({ controllerUrl: url, name: "lab01", token: "one-time-token", files });
    const before = files.identity();
    // The same key again (a re-enrolment against the same controller) is fine.
    await enrolAgent({ controllerUrl: url, name: "lab01", token: "one-time-token", files });
    expect(files.identity()?.credential).toBe("credential-2");
    key = publicKey();
    await expect(
      enrolAgent({ controllerUrl: url, name: "lab01", token: "one-time-token", files }),
    ).rejects.toMatchObject({ code: "controller_key_changed" });
    expect(files.identity()).toEqual({ ...before, credential: "credential-2" });
    rmSync(join(files.folder, "controller-key.pem"));
    const replaced = await enrolAgent({ controllerUrl: url, name: "lab01", token: "one-time-token", files });
    expect(files.identity()).toEqual(replaced);
    expect(replaced.controllerPublicKey).toBe(key);
  });

  it("stores nothing when the token is refused, the key is not Ed25519 or the name differs", async () => {
    const key = publicKey();
    const { url } = await enrolmentServer(() => key);
    const files = new AgentFiles(makeTree("skillgate-agent-"));
    await expect(
      enrolAgent({ controllerUrl: url, name: "lab01", token: "wrong", files }),
    ).rejects.toMatchObject({
      code: "controller_refused",
      data: { status: 403, serverCode: "enrolment_refused" },
    });
    const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 }).publicKey.export({
      type: "spki",
      format: "pem",
    });
    const bad = await enrolmentServer(() => rsa.toString());
    await expect(
      enrolAgent({ controllerUrl: bad.url, name: "lab01", token: "one-time-token", files }),
    ).rejects.toMatchObject({ code: "agent_files_invalid" });
    const renamed = await enrolmentServer(() => key, "lab99");
    await expect(
      enrolAgent({ controllerUrl: renamed.url, name: "lab01", token: "one-time-token", files }),
    ).rejects.toMatchObject({ code: "agent_files_invalid" });
    expect(files.identity()).toBeUndefined();
    expect(files.pinnedKey()).toBeUndefined();
  });
});
