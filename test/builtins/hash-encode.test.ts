import { describe, expect, it } from "vitest";
import { byMessage, outputLines, runScript, type ScriptRun } from "./run-script.js";

const SCRIPT = "scripts/hash_encode.mjs";

function run(args: unknown): ScriptRun {
  const result = runScript("hash-encode", SCRIPT, args);
  expect(result.leftInWorkingFolder).toEqual([]);
  expect(result.changedSkillFolder).toBe(false);
  expect(result.stderr).toBe("");
  return result;
}

/** The digest printed for `label` (an algorithm or hmac-algorithm). */
function digest(result: ScriptRun, label: string): string | undefined {
  const line = outputLines(result).find((text) => text.startsWith(`  ${label} `));
  return line?.trim().split(/\s+/)[1];
}

/** A base64url JWT part for a JSON value. */
function part(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString("base64url");
}

describe("hash-encode hash", () => {
  it("matches the published test vectors for 'abc'", () => {
    const result = run({
      operation: "hash",
      text: "abc",
      algorithms: ["md5", "sha1", "sha256", "sha512", "sha3-256"],
    });
    expect(result.status).toBe(0);
    expect(outputLines(result)[0]).toBe("Hashes of 3 bytes (utf8):");
    expect(digest(result, "md5")).toBe("900150983cd24fb0d6963f7d28e17f72");
    expect(digest(result, "sha1")).toBe("a9993e364706816aba3e25717850c26c9cd0d89d");
    expect(digest(result, "sha256")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(digest(result, "sha512")).toBe(
      "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
    );
    expect(digest(result, "sha3-256")).toBe(
      "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532",
    );
    expect(outputLines(result)).toContain(
      `  ${"".padEnd(16)} base64: ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=`,
    );
  });

  it("computes the standard CRC-32 check value", () => {
    expect(digest(run({ operation: "hash", text: "123456789", algorithms: ["crc32"] }), "crc32")).toBe(
      "cbf43926",
    );
  });

  it("uses the default algorithms md5, sha1, sha256 and sha512", () => {
    const labels = outputLines(run({ operation: "hash", text: "" }))
      .filter((line) => /^ {2}\S/.test(line))
      .map((line) => line.trim().split(/\s+/)[0]);
    expect(labels).toEqual(["md5", "sha1", "sha256", "sha512"]);
  });

  it("computes HMACs (RFC 4231 test case 2)", () => {
    const result = run({
      operation: "hash",
      text: "what do ya want for nothing?",
      hmac_key: "Jefe",
      algorithms: ["sha256"],
    });
    expect(outputLines(result)[0]).toBe("HMACs (key as UTF-8) of 28 bytes (utf8):");
    expect(digest(result, "hmac-sha256")).toBe(
      "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
    );
  });

  it.each([
    ["lower-case hex", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"],
    ["upper-case hex", "BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD"],
    [
      "hex with an algorithm prefix",
      "sha256=ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    ],
    ["base64", "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0="],
  ])("compares an expected value written as %s", (_label, expected) => {
    const result = run({ operation: "hash", text: "abc", algorithms: ["md5", "sha256"], expected });
    expect(outputLines(result).at(-1)).toBe("MATCH: expected equals the sha256 value");
  });

  it("says when an expected value matches nothing", () => {
    const result = run({ operation: "hash", text: "abd", algorithms: ["sha256"], expected: "ba7816bf" });
    expect(result.status).toBe(0);
    expect(outputLines(result).at(-1)).toBe("NO MATCH: expected equals none of the values above");
  });

  it.each([
    ["hex", "616263"],
    ["base64", "YWJj"],
  ])("reads the text as %s bytes when asked", (inputEncoding, text) => {
    const result = run({ operation: "hash", text, input_encoding: inputEncoding, algorithms: ["md5"] });
    expect(digest(result, "md5")).toBe("900150983cd24fb0d6963f7d28e17f72");
  });
});

describe("hash-encode encode and decode", () => {
  it.each([
    ["base64", "héllo?", "aMOpbGxvPw=="],
    ["base64url", "\u00ff\u00fe?", "w7_Dvj8"],
    ["hex", "hi", "6869"],
    ["url", "a b&c=d/é", "a%20b%26c%3Dd%2F%C3%A9"],
  ])("%s encodes and decodes back", (encoding, text, encoded) => {
    expect(run({ operation: "encode", text, encoding }).stdout).toBe(`${encoded}\n`);
    expect(run({ operation: "decode", text: encoded, encoding }).stdout).toBe(`${text}\n`);
  });

  it("decodes a + in URL encoding as a space", () => {
    expect(run({ operation: "decode", text: "a+b%21", encoding: "url" }).stdout).toBe("a b!\n");
  });

  it("shows bytes that are not text as hex", () => {
    expect(outputLines(run({ operation: "decode", text: "AAEC/w==", encoding: "base64" }))).toEqual([
      "(binary, 4 bytes, shown as hex)",
      "000102ff",
    ]);
  });
});

describe("hash-encode jwt", () => {
  const header = part({ alg: "HS256", typ: "JWT" });
  const payload = part({ sub: "123", iat: 1516239022, exp: 1516249022 });

  it("shows the header, the claims, the times and that nothing was verified", () => {
    const result = run({ operation: "jwt", text: `Bearer ${header}.${payload}.c2lnbmF0dXJl` });
    expect(result.status).toBe(0);
    expect(outputLines(result)).toEqual([
      "Header:",
      "{",
      '  "alg": "HS256",',
      '  "typ": "JWT"',
      "}",
      "Payload:",
      "{",
      '  "sub": "123",',
      '  "iat": 1516239022,',
      '  "exp": 1516249022',
      "}",
      "iat: 2018-01-18T01:30:22.000Z",
      "exp: 2018-01-18T04:17:02.000Z (expired)",
      "Signature: 12 characters, NOT verified. Decoding does not prove who issued the token.",
    ]);
  });

  it("says when a token has no signature at all", () => {
    const result = run({ operation: "jwt", text: `${part({ alg: "none" })}.${part({ sub: "x" })}.` });
    expect(outputLines(result).at(-1)).toBe(
      "Signature: none (unsecured token). Decoding does not prove who issued the token.",
    );
  });

  it.each([
    ["abc.def", "ERROR: a JWT has 3 parts separated by dots (header.payload.signature); this has 2"],
    [
      "a.b.c.d.e",
      "ERROR: this is a JWE (an encrypted token, 5 parts); its payload cannot be read without the key",
    ],
    [`${header}.not+base64url.sig`, "ERROR: the JWT payload is not base64url text"],
    [
      `${header}.${Buffer.from("not json").toString("base64url")}.sig`,
      "ERROR: the JWT payload is not base64url-encoded JSON",
    ],
  ])("refuses %s", (text, message) => {
    const result = run({ operation: "jwt", text });
    expect(result.status).toBe(2);
    expect(result.stdout).toBe(`${message}\n`);
  });
});

describe("hash-encode refuses bad arguments", () => {
  it.each(
    byMessage([
      [
        { operation: "zip", text: "x" },
        'ERROR: operation must be one of hash, encode, decode, jwt (got "zip")',
      ],
      [{ text: "x" }, "ERROR: operation is required: one of hash, encode, decode, jwt"],
      [{ operation: "hash" }, "ERROR: hash needs text"],
      [{ operation: "hash", text: 5 }, "ERROR: text must be a string"],
      [
        { operation: "hash", text: "x".repeat(1024 * 1024 + 1) },
        `ERROR: text is longer than ${1024 * 1024} characters`,
      ],
      [{ operation: "hash", text: "x", algorithms: [] }, "ERROR: algorithms must be a non-empty list from:"],
      [
        { operation: "hash", text: "x", input_encoding: "latin1" },
        "ERROR: input_encoding must be one of utf8, hex, base64",
      ],
      [
        { operation: "hash", text: "abc", input_encoding: "hex" },
        "ERROR: text is not hex: it needs pairs of 0-9 and a-f",
      ],
      [{ operation: "hash", text: "a*b", input_encoding: "base64" }, "ERROR: text is not base64"],
      [{ operation: "hash", text: "x", hmac_key: 1 }, "ERROR: hmac_key must be a string"],
      [
        { operation: "hash", text: "x", hmac_key: "k", algorithms: ["crc32"] },
        "ERROR: crc32 has no HMAC form",
      ],
      [{ operation: "hash", text: "x", expected: " " }, "ERROR: expected must be a non-empty string"],
      [{ operation: "encode", text: "x" }, "ERROR: encoding is required: one of base64, base64url, hex, url"],
      [{ operation: "decode", text: "%E0%A4%A", encoding: "url" }, "ERROR: text is not valid URL encoding"],
      [{ operation: "decode", text: "zz", encoding: "hex" }, "ERROR: text is not hex"],
    ]),
  )("%s", (message, args) => {
    const result = run(args);
    expect(result.status).toBe(2);
    expect(result.stdout.startsWith(message), result.stdout).toBe(true);
  });
});
