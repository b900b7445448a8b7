import { describe, expect, it } from "vitest";
import {
  createTerminalTextFilter,
  escapeJsonControls,
  escapeTerminalControls,
} from "../../src/core/terminal-text.js";

const ESC = "\u001b";
const BEL = "\u0007";

describe("escapeTerminalControls", () => {
  const cases: readonly (readonly [string, string, string])[] = [
    ["plain text", "hello world", "hello world"],
    ["newline and tab pass", "a\tb\nc\n", "a\tb\nc\n"],
    ["unicode text passes", "naïve – 日本語 😀", "naïve – 日本語 😀"],
    ["window title (OSC 0, BEL)", `${ESC}]0;pwned${BEL}`, "\\x1b]0;pwned\\x07"],
    ["window title (OSC 2, ST)", `${ESC}]2;pwned${ESC}\\`, "\\x1b]2;pwned\\x1b\\"],
    ["clipboard write (OSC 52)", `${ESC}]52;c;ZWNobyBoaQ==${BEL}`, "\\x1b]52;c;ZWNobyBoaQ==\\x07"],
    ["screen clear and cursor home (CSI)", `${ESC}[2J${ESC}[H`, "\\x1b[2J\\x1b[H"],
    ["colour (SGR)", `${ESC}[31mred${ESC}[0m`, "\\x1b[31mred\\x1b[0m"],
    ["cursor up to overwrite", `ok${ESC}[1A${ESC}[K`, "ok\\x1b[1A\\x1b[K"],
    ["lone carriage return", "safe\rEVIL", "safe\\x0dEVIL"],
    ["carriage return before newline is kept", "line\r\nnext", "line\r\nnext"],
    [
      "backspace, NUL, vertical tab, form feed, DEL",
      "a\b\u0000\u000b\u000c\u007f",
      "a\\x08\\x00\\x0b\\x0c\\x7f",
    ],
    ["C1 CSI and OSC as code points", "\u009b2J\u009d0;t\u009c", "\\x9b2J\\x9d0;t\\x9c"],
    ["bidirectional override and isolate", "a\u202eb\u2066c\u2069", "a\\u202eb\\u2066c\\u2069"],
    ["device status query (answers would be typed back)", `${ESC}[6n`, "\\x1b[6n"],
  ];
  for (const [name, input, expected] of cases)
    it(name, () => {
      expect(escapeTerminalControls(input)).toBe(expected);
    });

  it("leaves no control character but newline, tab and CR-before-LF in any output", () => {
    let all = "";
    for (let code = 0; code < 0x2100; code += 1) all += String.fromCharCode(code);
    const escaped = escapeTerminalControls(`${all}\r\n`);
    const left = [...escaped].filter((character) =>
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for control characters.
      /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/.test(character),
    );
    expect(left).toEqual(["\t", "\n", "\r", "\n"]);
  });
});

describe("createTerminalTextFilter", () => {
  it("gives the same text as the whole-string function however the text is split", () => {
    const text = `a\r\nb\rc${ESC}]0;t${BEL}\r`;
    for (let cut = 0; cut <= text.length; cut += 1) {
      const filter = createTerminalTextFilter();
      const pieces = filter.write(text.slice(0, cut)) + filter.write(text.slice(cut)) + filter.end();
      expect(pieces, `cut at ${cut}`).toBe(escapeTerminalControls(text));
    }
  });

  it("keeps a CR that ends one chunk when the next starts with a newline", () => {
    const filter = createTerminalTextFilter();
    expect(filter.write("one\r")).toBe("one");
    expect(filter.write("\ntwo")).toBe("\r\ntwo");
    expect(filter.end()).toBe("");
  });
});

describe("escapeJsonControls", () => {
  it("writes DEL, C1 and bidi controls as \\u escapes; the JSON decodes to the same value", () => {
    const value = { text: "a\u001b]0;t\u0007 \u009b2J \u007f \u202e end", n: 1 };
    const json = escapeJsonControls(JSON.stringify(value));
    expect(json).toBe('{"text":"a\\u001b]0;t\\u0007 \\u009b2J \\u007f \\u202e end","n":1}');
    expect(JSON.parse(json)).toEqual(value);
  });
});
