import { describe, expect, it } from "vitest";
import { Store } from "../../../src/store/store.js";
import { startTestServer } from "../../helpers/http-server.js";

/**
 * The review, asks, chats and audit routes inside `skillgate serve`: mounted under `/api`,
 * behind the server's token and CSRF checks, and in the generated OpenAPI document.
 */

describe("the owner routes in skillgate serve", () => {
  it("answer with the token, are refused without it or without the CSRF header, and are documented", async () => {
    const server = await startTestServer({
      builtins: false,
      prepare: async (folders) => {
        const store = await Store.open({ dataFolder: folders.data });
        await store.create("notes", { "SKILL.md": "---\nname: notes\ndescription: Notes.\n---\n\nNotes.\n" });
      },
    });
    const review = await server.json<{ needsReview: number }>("/api/review");
    expect(review).toEqual({ status: 200, body: { drafts: [], plans: [], needsReview: 0 } });
    for (const path of ["/api/approvals", "/api/chats", "/api/audit", "/api/review/chats"])
      expect((await server.json(path)).status, path).toBe(200);
    const noToken = await server.raw("GET", "/api/review");
    expect(noToken.status).toBe(401);
    const noCsrf = await server.raw(
      "POST",
      "/api/review/chats",
      { Authorization: `Bearer ${server.token}`, "Content-Type": "application/json" },
      JSON.stringify({ chats: ["chat-1"] }),
    );
    expect([noCsrf.status, JSON.parse(noCsrf.body).error.code]).toEqual([403, "csrf_missing"]);
    const marked = await server.json("/api/review/chats", { method: "POST", body: { chats: ["chat-1"] } });
    expect(marked.status).toBe(200);
    const document = await server.json<{ paths: Record<string, unknown> }>("/api/openapi.json");
    expect(Object.keys(document.body.paths)).toEqual(
      expect.arrayContaining([
        "/review",
        "/plans/{id}",
        "/plans/{id}/approve",
        "/plans/{id}/reject",
        "/review/chats",
        "/approvals",
        "/approvals/{id}/approve",
        "/approvals/{id}/decline",
        "/chats",
        "/chats/{id}/transcript",
        "/audit",
      ]),
    );
  });
});
