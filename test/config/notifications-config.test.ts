import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/config.js";
import { InvalidConfigError } from "../../src/core/errors.js";

/** The `notifications` section of config.yaml: channels checked when the file is read. */

function problemsOf(text: string): readonly string[] {
  try {
    parseConfig(text, "config.yaml");
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidConfigError);
    return (error as InvalidConfigError).data.problems;
  }
  throw new Error("the text was accepted");
}

describe("notifications config", () => {
  it("reads channels of each type, with tokens and a timeout", () => {
    const config = parseConfig(
      [
        "notifications:",
        "  timeout_seconds: 3",
        "  channels:",
        "    - { type: webhook, url: 'https://hooks.example.net/in', token: abc }",
        "    - { type: ntfy, url: 'http://ntfy.lan/skillgate' }",
        "    - { type: gotify, url: 'https://gotify.lan/message', token: 'A.b-c_1' }",
        "",
      ].join("\n"),
      "config.yaml",
    );
    expect(config.notifications).toEqual({
      timeoutSeconds: 3,
      channels: [
        { type: "webhook", url: "https://hooks.example.net/in", token: "abc" },
        { type: "ntfy", url: "http://ntfy.lan/skillgate" },
        { type: "gotify", url: "https://gotify.lan/message", token: "A.b-c_1" },
      ],
    });
  });

  it.each([
    ["an unknown key", "notifications:\n  retries: 3\n", 'unknown key "notifications.retries"'],
    [
      "channels as a mapping",
      "notifications:\n  channels: {a: b}\n",
      '"notifications.channels" must be a list of channels',
    ],
    [
      "a channel as text",
      "notifications:\n  channels: [hook]\n",
      '"notifications.channels[0]" must be a mapping with type and url',
    ],
    [
      "an unknown type",
      "notifications:\n  channels: [{type: slack, url: 'https://a.b'}]\n",
      '"notifications.channels[0].type" must be one of webhook, ntfy, gotify',
    ],
    [
      "no url",
      "notifications:\n  channels: [{type: ntfy}]\n",
      '"notifications.channels[0].url" must be an http:// or https:// address without user or password',
    ],
    [
      "a file url",
      "notifications:\n  channels: [{type: ntfy, url: 'file:///etc/passwd'}]\n",
      '"notifications.channels[0].url" must be an http:// or https:// address without user or password',
    ],
    [
      "a url with a password",
      "notifications:\n  channels: [{type: ntfy, url: 'https://u:p@ntfy.lan/t'}]\n",
      '"notifications.channels[0].url" must be an http:// or https:// address without user or password',
    ],
    [
      "a token with a space",
      "notifications:\n  channels: [{type: gotify, url: 'https://g.lan/message', token: 'a b'}]\n",
      '"notifications.channels[0].token" must be text of printable characters without spaces (at most 512)',
    ],
    [
      "a token with a line break",
      "notifications:\n  channels: [{type: gotify, url: 'https://g.lan/message', token: \"a\\nb\"}]\n",
      '"notifications.channels[0].token" must be text of printable characters without spaces (at most 512)',
    ],
    [
      "an unknown channel key",
      "notifications:\n  channels: [{type: ntfy, url: 'https://n.lan/t', topic: x}]\n",
      'unknown key "notifications.channels[0].topic"',
    ],
    [
      "a timeout of 0",
      "notifications:\n  timeout_seconds: 0\n",
      '"notifications.timeout_seconds" must be a whole number from 1 to 60',
    ],
    [
      "a timeout of an hour",
      "notifications:\n  timeout_seconds: 3600\n",
      '"notifications.timeout_seconds" must be a whole number from 1 to 60',
    ],
    [
      "eleven channels",
      `notifications:\n  channels:\n${"    - {type: ntfy, url: 'https://n.lan/t'}\n".repeat(11)}`,
      '"notifications.channels" may list at most 10 channels',
    ],
  ])("refuses %s", (_what, text, problem) => {
    expect(problemsOf(text)).toContain(problem);
  });
});
