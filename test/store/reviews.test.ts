import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/core/clock.js";
import { MAX_REVIEWED_CHATS, REVIEWS_FILE, SkillReviews, skillReviews } from "../../src/store/reviews.js";
import { Store } from "../../src/store/store.js";
import { openTestStore, refusal, snapshot } from "./store-helpers.js";

/** The reviews file: reviewed chats per owner, at most 2,000 each, oldest dropped, shared between processes. */

describe("skill-reviews.json", () => {
  it("records reviewed chats per owner, oldest first, in <data>/skills/skill-reviews.json", async () => {
    const { store, data } = await openTestStore();
    const clock = new ManualClock(Date.parse("2026-02-03T04:05:06.000Z"));
    const reviews = skillReviews(store, { clock });
    expect(await reviews.reviewedChats("alice")).toEqual([]);
    expect(await reviews.markChatsReviewed("alice", ["c1", "c2"])).toEqual({ marked: 2, dropped: 0 });
    clock.advance(1_000);
    await reviews.markChatsReviewed("bob", ["c1"]);
    expect(await reviews.isReviewed("alice", "c2")).toBe(true);
    expect(await reviews.isReviewed("bob", "c2")).toBe(false);
    expect(JSON.parse(readFileSync(join(data, "skills", REVIEWS_FILE), "utf8"))).toEqual({
      version: 1,
      owners: {
        alice: [
          { chat: "c1", reviewed: "2026-02-03T04:05:06.000Z" },
          { chat: "c2", reviewed: "2026-02-03T04:05:06.000Z" },
        ],
        bob: [{ chat: "c1", reviewed: "2026-02-03T04:05:07.000Z" }],
      },
    });
    expect(await store.reconcile()).toEqual([]);
  });

  it("marking a chat again moves it to the newest end with the new time", async () => {
    const { store } = await openTestStore();
    const clock = new ManualClock(0);
    const reviews = skillReviews(store, { clock });
    await reviews.markChatsReviewed("alice", ["a", "b", "c"]);
    clock.advance(5_000);
    await reviews.markChatsReviewed("alice", ["a"]);
    expect((await reviews.reviewedChats("alice")).map((entry) => [entry.chat, entry.reviewed])).toEqual([
      ["b", "1970-01-01T00:00:00.000Z"],
      ["c", "1970-01-01T00:00:00.000Z"],
      ["a", "1970-01-01T00:00:05.000Z"],
    ]);
  });

  it(`keeps at most ${MAX_REVIEWED_CHATS} chats per owner, dropping the oldest`, async () => {
    const { store } = await openTestStore();
    const reviews = skillReviews(store);
    const ids = (from: number, count: number) =>
      Array.from({ length: count }, (_, index) => `chat-${from + index}`);
    await reviews.markChatsReviewed("alice", ids(0, 1_500));
    expect(await reviews.markChatsReviewed("alice", ids(1_500, 700))).toEqual({ marked: 700, dropped: 200 });
    const kept = await reviews.reviewedChats("alice");
    expect(kept).toHaveLength(MAX_REVIEWED_CHATS);
    expect(kept[0]?.chat).toBe("chat-200");
    expect(kept.at(-1)?.chat).toBe("chat-2199");
    expect(await reviews.isReviewed("alice", "chat-199")).toBe(false);
    await reviews.markChatsReviewed("bob", ["x"]);
    expect(await reviews.reviewedChats("alice")).toHaveLength(MAX_REVIEWED_CHATS);
  });

  it("two stores on one data folder marking at once lose nothing", async () => {
    const { store, data, builtins } = await openTestStore();
    const other = await Store.open({ dataFolder: data, builtinFolder: builtins });
    await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        (index % 2 === 0 ? skillReviews(store) : skillReviews(other)).markChatsReviewed("alice", [
          `chat-${index}`,
        ]),
      ),
    );
    expect((await skillReviews(store).reviewedChats("alice")).map((entry) => entry.chat).sort()).toEqual(
      Array.from({ length: 20 }, (_, index) => `chat-${index}`).sort(),
    );
  });

  it("keeps an owner named __proto__ as an ordinary owner", async () => {
    const { store, data } = await openTestStore();
    const reviews = new SkillReviews(store.folder);
    await reviews.markChatsReviewed("__proto__", ["c1"]);
    expect(await reviews.isReviewed("__proto__", "c1")).toBe(true);
    expect(await reviews.reviewedChats("alice")).toEqual([]);
    expect(Object.keys(JSON.parse(readFileSync(join(data, "skills", REVIEWS_FILE), "utf8")).owners)).toEqual([
      "__proto__",
    ]);
  });

  it.each([
    ["an empty owner", "", ["c1"]],
    ["an owner with a control character", "al\u0000ice", ["c1"]],
    ["a chat id over 200 characters", "alice", ["c".repeat(201)]],
    ["a chat id that is not text", "alice", [7]],
    ["chat ids that are not a list", "alice", "c1"],
  ])("refuses %s with invalid_argument and writes nothing", async (_title, owner, chats) => {
    const { store, data } = await openTestStore();
    const before = snapshot(data);
    await refusal(
      () => skillReviews(store).markChatsReviewed(owner as string, chats as unknown as string[]),
      "invalid_argument",
    );
    expect(snapshot(data)).toEqual(before);
  });

  it("a file edited into another shape is store_corrupt, not silently replaced", async () => {
    const { store, data } = await openTestStore();
    writeFileSync(join(data, "skills", REVIEWS_FILE), '{"version":1,"owners":{"alice":"c1"}}');
    await refusal(() => skillReviews(store).reviewedChats("alice"), "store_corrupt");
    await refusal(() => skillReviews(store).markChatsReviewed("alice", ["c2"]), "store_corrupt");
    expect(readFileSync(join(data, "skills", REVIEWS_FILE), "utf8")).toBe(
      '{"version":1,"owners":{"alice":"c1"}}',
    );
  });
});
