import { statSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/core/clock.js";
import { MAX_MESSAGE_CHARS } from "../../src/observe/chat-input.js";
import { ChatLog } from "../../src/observe/chat-log.js";
import { DEFAULT_TRANSCRIPT_CHARS, renderTranscript } from "../../src/observe/chat-transcript.js";
import { makeTree } from "../helpers/skill-tree.js";

const opened: ChatLog[] = [];

afterEach(() => {
  for (const log of opened.splice(0)) log.close();
});

function openLog(clock = new ManualClock(Date.parse("2026-01-02T03:04:05.000Z"))): ChatLog {
  const log = ChatLog.open({ dataFolder: makeTree("skillgate-chats-"), clock });
  opened.push(log);
  return log;
}

describe("ChatLog: transcripts", () => {
  it("keeps messages in order with role and time, and moves the chat's activity", () => {
    const clock = new ManualClock(Date.parse("2026-01-02T03:04:05.000Z"));
    const log = openLog(clock);
    log.appendMessage("c1", { role: "user", text: "How full is /srv?" });
    clock.advance(2_000);
    log.appendMessage("c1", { role: "tool", text: "/srv 91%" });
    log.appendMessage("c1", { role: "assistant", text: "91% full.", time: "2026-01-02T03:04:09.000Z" });
    expect(log.getChat("c1")?.updated).toBe("2026-01-02T03:04:07.000Z");
    const transcript = log.readTranscript("c1");
    expect(transcript).toEqual({
      chat: { kind: "chat", id: "c1" },
      messages: [
        { role: "user", text: "How full is /srv?", time: "2026-01-02T03:04:05.000Z", clippedChars: 0 },
        { role: "tool", text: "/srv 91%", time: "2026-01-02T03:04:07.000Z", clippedChars: 0 },
        { role: "assistant", text: "91% full.", time: "2026-01-02T03:04:09.000Z", clippedChars: 0 },
      ],
      totalMessages: 3,
      totalChars: 34,
      shownChars: 34,
      clipped: false,
    });
    expect(renderTranscript(transcript ?? fail())).toBe(
      [
        "[2026-01-02T03:04:05.000Z] user:\nHow full is /srv?",
        "[2026-01-02T03:04:07.000Z] tool:\n/srv 91%",
        "[2026-01-02T03:04:09.000Z] assistant:\n91% full.",
      ].join("\n\n"),
    );
  });

  it("a job has its own transcript; an unknown chat has none", () => {
    const log = openLog();
    log.appendMessage({ kind: "job", id: "nightly" }, { role: "assistant", text: "done" });
    expect(log.readTranscript({ kind: "job", id: "nightly" })?.messages).toHaveLength(1);
    expect(log.readTranscript("nightly")).toBeUndefined();
  });

  it("clips at maxChars: the last message shown is cut, the rest left out, and a note says so", () => {
    const log = openLog();
    for (const text of ["a".repeat(10), "b".repeat(10), "c".repeat(10), "d".repeat(10)])
      log.appendMessage("c1", { role: "user", text });
    const transcript = log.readTranscript("c1", { maxChars: 25 }) ?? fail();
    expect(transcript.messages.map((message) => [message.text, message.clippedChars])).toEqual([
      ["a".repeat(10), 0],
      ["b".repeat(10), 0],
      ["c".repeat(5), 5],
    ]);
    expect(transcript).toMatchObject({ totalMessages: 4, totalChars: 40, shownChars: 25, clipped: true });
    expect(transcript.note).toBe(
      "[transcript clipped: 15 of 40 characters not shown; 3 of 4 messages shown]",
    );
    const text = renderTranscript(transcript);
    expect(text).toContain(`${"c".repeat(5)}\n[… 5 characters not shown]`);
    expect(text.endsWith(transcript.note ?? "")).toBe(true);
    // Exactly the budget, at a message's end, with messages after it: still clipped.
    expect(log.readTranscript("c1", { maxChars: 20 })?.messages).toHaveLength(2);
    expect(log.readTranscript("c1", { maxChars: 20 })?.clipped).toBe(true);
    expect(log.readTranscript("c1", { maxChars: 40 })?.clipped).toBe(false);
  });

  it("never cuts a surrogate pair in half", () => {
    const log = openLog();
    log.appendMessage("c1", { role: "user", text: "ab😀cd" });
    const transcript = log.readTranscript("c1", { maxChars: 3 }) ?? fail();
    expect(transcript.messages[0]?.text).toBe("ab");
    expect(transcript.clipped).toBe(true);
  });

  it(`caps a 10 MB message at ${MAX_MESSAGE_CHARS.toLocaleString("en-US")} characters and says how much was dropped`, () => {
    const log = openLog();
    const huge = "x".repeat(10 * 1024 * 1024);
    log.appendMessage("c1", { role: "tool", text: huge });
    log.appendMessage("c1", { role: "assistant", text: "after" });
    const transcript = log.readTranscript("c1", { maxChars: 1_000_000 }) ?? fail();
    expect(transcript.messages[0]?.text).toBe("x".repeat(MAX_MESSAGE_CHARS));
    expect(transcript.messages[0]?.clippedChars).toBe(huge.length - MAX_MESSAGE_CHARS);
    expect(transcript.messages[1]?.text).toBe("after");
    expect(transcript.totalChars).toBe(huge.length + 5);
    expect(transcript.clipped).toBe(true);
    expect(statSync(log.file).size + statSync(`${log.file}-wal`).size).toBeLessThan(2 * 1024 * 1024);
    const byDefault = log.readTranscript("c1") ?? fail();
    expect(byDefault.shownChars).toBe(DEFAULT_TRANSCRIPT_CHARS);
    expect(byDefault.messages).toHaveLength(1);
  });

  it("keeps NUL, newlines and SQL-looking text exactly; a lone surrogate becomes U+FFFD", () => {
    const log = openLog();
    const texts = [
      "before\u0000after",
      "'); DROP TABLE messages; --",
      '" OR 1=1 --',
      "line one\nline two\r\n\ttabbed",
    ];
    for (const text of texts) log.appendMessage("c1", { role: "user", text });
    log.appendMessage("c1", { role: "user", text: "broken \ud800 pair" });
    const messages = log.readTranscript("c1")?.messages.map((message) => message.text);
    expect(messages).toEqual([...texts, "broken \ufffd pair"]);
    expect(log.readTranscript("c1")?.totalChars).toBe(texts.join("").length + 13);
  });

  it.each([
    [{ maxChars: 0 }, "maxChars"],
    [{ maxChars: 1_000_001 }, "maxChars"],
    [{ maxChars: Number.NaN }, "maxChars"],
  ])("readTranscript refuses %j with invalid_argument", (options, argument) => {
    const log = openLog();
    log.appendMessage("c1", { role: "user", text: "hi" });
    expect(() => log.readTranscript("c1", options)).toThrow(
      expect.objectContaining({ code: "invalid_argument", data: { argument } }),
    );
  });

  it("renders an empty transcript as (no messages)", () => {
    const log = openLog();
    log.openChat("c1");
    expect(renderTranscript(log.readTranscript("c1") ?? fail())).toBe("(no messages)");
  });
});

function fail(): never {
  throw new Error("expected a transcript");
}
