import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isRequestId, SEEN_REQUESTS_FILE, SeenRequests } from "../../../src/nodes/agent/seen-requests.js";
import { makeTree } from "../../helpers/skill-tree.js";

/** The agent's journal of request ids (docs/nodes.md, "A run on the node"). */
describe("the seen request ids", () => {
  it("records each id once, and a new process knows the ids an earlier one recorded", () => {
    const folder = makeTree("skillgate-seen-");
    const seen = new SeenRequests(folder);
    expect(seen.record("req-1")).toBe(true);
    expect(seen.record("req-2")).toBe(true);
    expect(seen.record("req-1")).toBe(false);
    seen.close();
    expect(readFileSync(join(folder, SEEN_REQUESTS_FILE), "utf8")).toBe("req-1\nreq-2\n");
    const again = new SeenRequests(folder);
    expect(again.has("req-1")).toBe(true);
    expect(again.record("req-2")).toBe(false);
    expect(again.record("req-3")).toBe(true);
    again.close();
  });

  it("reads a line torn by a crash as no id and ends it before the next append", () => {
    const folder = makeTree("skillgate-seen-");
    writeFileSync(join(folder, SEEN_REQUESTS_FILE), "req-1\nreq-2\n");
    appendFileSync(join(folder, SEEN_REQUESTS_FILE), "req-3-to");
    const seen = new SeenRequests(folder);
    expect(seen.has("req-2")).toBe(true);
    expect(seen.has("req-3-to")).toBe(false);
    expect(seen.record("req-4")).toBe(true);
    seen.close();
    expect(readFileSync(join(folder, SEEN_REQUESTS_FILE), "utf8")).toBe("req-1\nreq-2\nreq-3-to\nreq-4\n");
    expect(new SeenRequests(folder).has("req-4")).toBe(true);
  });

  it("keeps the newest ids, rewriting the journal when it holds twice as many", () => {
    const folder = makeTree("skillgate-seen-");
    const seen = new SeenRequests(folder, 3);
    for (let index = 1; index <= 7; index += 1) expect(seen.record(`req-${index}`)).toBe(true);
    seen.close();
    const lines = readFileSync(join(folder, SEEN_REQUESTS_FILE), "utf8").split("\n").filter(Boolean);
    expect(lines.length).toBeLessThanOrEqual(6);
    const reopened = new SeenRequests(folder, 3);
    expect(["req-5", "req-6", "req-7"].every((id) => reopened.has(id))).toBe(true);
    expect(reopened.has("req-1")).toBe(false);
  });

  it("holds only printable ids without spaces; a line break can never forge a second id", () => {
    const table: [string, boolean][] = [
      ["0b7c3a52-2f7e-4a43-9d4e-1f0a3c1b2d9e", true],
      ["", false],
      ["has space", false],
      ["two\nids", false],
      ["x".repeat(129), false],
      ["é", false],
    ];
    for (const [id, valid] of table) expect(isRequestId(id), JSON.stringify(id)).toBe(valid);
    const seen = new SeenRequests(makeTree("skillgate-seen-"));
    expect(() => seen.record("two\nids")).toThrow();
    expect(seen.has("ids")).toBe(false);
  });
});
