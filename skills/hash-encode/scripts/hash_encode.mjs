#!/usr/bin/env node
// hash-encode: hashes and HMACs of text, base64/hex/URL encoding and decoding, JWT decoding.
//
// Arguments arrive as one JSON object on stdin (or, when stdin is empty, in the
// SKILLGATE_SKILL_ARGS environment variable). Bad arguments print a line starting with
// "ERROR:" and exit 2. Nothing is written to disk and nothing uses the network.
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { readSync } from "node:fs";
import { isatty } from "node:tty";

const MAX_INPUT_BYTES = 2 * 1024 * 1024;
const MAX_TEXT = 1024 * 1024;
const OPERATIONS = ["hash", "encode", "decode", "jwt"];
const ALGORITHMS = ["md5", "sha1", "sha224", "sha256", "sha384", "sha512", "sha3-256", "sha3-512", "blake2b512", "blake2s256", "crc32"];
const DEFAULT_ALGORITHMS = ["md5", "sha1", "sha256", "sha512"];
const ENCODINGS = ["base64", "base64url", "hex", "url"];
const INPUT_ENCODINGS = ["utf8", "hex", "base64"];
const KNOWN_KEYS = ["operation", "text", "input_encoding", "algorithms", "expected", "hmac_key", "encoding", "node"];

function fail(message) {
  process.stdout.write(`ERROR: ${message}\n`);
  process.exit(2);
}

/**
 * Reads all of stdin without touching process.stdin, which would switch fd 0 to
 * non-blocking mode and make a read race the writer. A closed or absent stdin reads as empty.
 */
function readStdin() {
  if (isatty(0)) return Buffer.alloc(0);
  const chunks = [];
  const buffer = Buffer.alloc(64 * 1024);
  let total = 0;
  for (;;) {
    let count;
    try {
      count = readSync(0, buffer, 0, buffer.length, null);
    } catch (error) {
      if (error.code === "EAGAIN") {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
        continue;
      }
      if (error.code === "EOF") break;
      return Buffer.alloc(0);
    }
    if (count === 0) break;
    total += count;
    if (total > MAX_INPUT_BYTES) fail(`arguments are larger than ${MAX_INPUT_BYTES} bytes`);
    chunks.push(Buffer.from(buffer.subarray(0, count)));
  }
  return Buffer.concat(chunks);
}

function readArguments() {
  let text = new TextDecoder("utf-8", { fatal: false }).decode(readStdin());
  if (text.trim() === "") text = process.env.SKILLGATE_SKILL_ARGS ?? "";
  if (text.trim() === "") fail('no arguments; send a JSON object such as {"operation": "hash", "text": "hello"}');
  let value;
  try {
    value = JSON.parse(text);
  } catch (error) {
    fail(`arguments are not valid JSON: ${error.message}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) fail("arguments must be a JSON object");
  return value;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, index) => {
  let value = index;
  for (let bit = 0; bit < 8; bit += 1) value = value & 1 ? 0xedb88320 ^ (value >>> 1) : value >>> 1;
  return value >>> 0;
});

/** CRC-32 (IEEE 802.3, as zip, gzip and PNG use it), as 8 hex digits. */
function crc32(bytes) {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  return ((crc ^ 0xffffffff) >>> 0).toString(16).padStart(8, "0");
}

function readText(args) {
  const text = args.text;
  if (typeof text !== "string") fail("text must be a string");
  if (text.length > MAX_TEXT) fail(`text is longer than ${MAX_TEXT} characters`);
  return text;
}

function choice(args, key, choices, fallback) {
  const value = args[key] ?? fallback;
  if (value === undefined) fail(`${key} is required: one of ${choices.join(", ")}`);
  if (!choices.includes(value)) fail(`${key} must be one of ${choices.join(", ")} (got ${JSON.stringify(value)})`);
  return value;
}

function inputBytes(text, encoding) {
  if (encoding === "utf8") return Buffer.from(text, "utf8");
  const clean = text.replace(/\s+/g, "");
  if (encoding === "hex") {
    if (!/^([0-9a-fA-F]{2})*$/.test(clean)) fail("text is not hex: it needs pairs of 0-9 and a-f");
    return Buffer.from(clean, "hex");
  }
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(clean)) fail("text is not base64: it may use only A-Z, a-z, 0-9, +, /, - and _");
  return Buffer.from(clean, clean.includes("-") || clean.includes("_") ? "base64url" : "base64");
}

function runHash(args) {
  const encoding = choice(args, "input_encoding", INPUT_ENCODINGS, "utf8");
  const bytes = inputBytes(readText(args), encoding);
  const algorithms = args.algorithms ?? DEFAULT_ALGORITHMS;
  if (!Array.isArray(algorithms) || algorithms.length === 0 || !algorithms.every((name) => ALGORITHMS.includes(name)))
    fail(`algorithms must be a non-empty list from: ${ALGORITHMS.join(", ")}`);
  const key = args.hmac_key;
  if (key !== undefined && typeof key !== "string") fail("hmac_key must be a string");
  if (key !== undefined && algorithms.includes("crc32")) fail("crc32 has no HMAC form; leave it out when hmac_key is set");
  let expected = args.expected;
  if (expected !== undefined && (typeof expected !== "string" || expected.trim() === ""))
    fail("expected must be a non-empty string: a hex or base64 digest to compare with");
  expected = expected?.trim().replace(/^[a-z0-9-]+=/i, "");
  process.stdout.write(`${key === undefined ? "Hashes" : "HMACs (key as UTF-8)"} of ${bytes.length} bytes (${encoding}):\n`);
  const matches = [];
  for (const name of [...new Set(algorithms)]) {
    let digest;
    try {
      if (name === "crc32") digest = Buffer.from(crc32(bytes), "hex");
      else digest = (key === undefined ? createHash(name) : createHmac(name, key)).update(bytes).digest();
    } catch {
      process.stdout.write(`  ${name.padEnd(11)} unavailable in this Node.js build\n`);
      continue;
    }
    const label = key === undefined ? name : `hmac-${name}`;
    process.stdout.write(`  ${label.padEnd(16)} ${digest.toString("hex")}\n`);
    if (["sha256", "sha512"].includes(name)) process.stdout.write(`  ${"".padEnd(16)} base64: ${digest.toString("base64")}\n`);
    if (expected !== undefined && sameDigest(digest, expected)) matches.push(label);
  }
  if (expected === undefined) return;
  if (matches.length > 0) process.stdout.write(`MATCH: expected equals the ${matches.join(", ")} value\n`);
  else process.stdout.write("NO MATCH: expected equals none of the values above\n");
}

function sameDigest(digest, expected) {
  const candidates = [];
  if (/^[0-9a-fA-F]+$/.test(expected) && expected.length % 2 === 0) candidates.push(Buffer.from(expected, "hex"));
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(expected)) candidates.push(Buffer.from(expected, "base64"));
  return candidates.some((candidate) => candidate.length === digest.length && timingSafeEqual(candidate, digest));
}

function runEncode(args) {
  const encoding = choice(args, "encoding", ENCODINGS, undefined);
  const bytes = Buffer.from(readText(args), "utf8");
  const result = encoding === "url" ? encodeURIComponent(bytes.toString("utf8")) : bytes.toString(encoding);
  process.stdout.write(`${result}\n`);
}

function runDecode(args) {
  const encoding = choice(args, "encoding", ENCODINGS, undefined);
  const text = readText(args).trim();
  let bytes;
  if (encoding === "url") {
    try {
      bytes = Buffer.from(decodeURIComponent(text.replace(/\+/g, " ")), "utf8");
    } catch {
      fail("text is not valid URL encoding: a % must be followed by two hex digits of valid UTF-8");
    }
  } else {
    bytes = inputBytes(text, encoding === "hex" ? "hex" : "base64");
  }
  showBytes(bytes);
}

function showBytes(bytes) {
  try {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    // Control characters other than tab and newlines mean binary data shown as text.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: detecting control characters is the point.
    if (!/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(text)) {
      process.stdout.write(`${text}\n`);
      return;
    }
  } catch {
    // Not UTF-8: shown as hex below.
  }
  const hex = bytes.toString("hex");
  process.stdout.write(`(binary, ${bytes.length} bytes, shown as hex)\n${hex.length > 20000 ? `${hex.slice(0, 20000)}...` : hex}\n`);
}

function decodeJwtPart(part, label) {
  if (!/^[A-Za-z0-9_-]*$/.test(part)) fail(`the JWT ${label} is not base64url text`);
  try {
    return JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
  } catch {
    fail(`the JWT ${label} is not base64url-encoded JSON`);
  }
}

function runJwt(args) {
  const token = readText(args).trim().replace(/^Bearer\s+/i, "");
  const parts = token.split(".");
  if (parts.length === 5) fail("this is a JWE (an encrypted token, 5 parts); its payload cannot be read without the key");
  if (parts.length !== 3) fail(`a JWT has 3 parts separated by dots (header.payload.signature); this has ${parts.length}`);
  const header = decodeJwtPart(parts[0], "header");
  const payload = decodeJwtPart(parts[1], "payload");
  process.stdout.write(`Header:\n${JSON.stringify(header, null, 2)}\nPayload:\n${JSON.stringify(payload, null, 2)}\n`);
  const now = Math.floor(Date.now() / 1000);
  for (const claim of ["iat", "nbf", "exp"]) {
    const value = payload?.[claim];
    if (typeof value !== "number") continue;
    const when = new Date(value * 1000).toISOString();
    const state = claim === "exp" ? (value < now ? " (expired)" : " (not expired yet)") : claim === "nbf" && value > now ? " (not valid yet)" : "";
    process.stdout.write(`${claim}: ${when}${state}\n`);
  }
  process.stdout.write(
    `Signature: ${parts[2].length > 0 ? `${parts[2].length} characters, NOT verified` : "none (unsecured token)"}. ` +
      "Decoding does not prove who issued the token.\n",
  );
}

const args = readArguments();
const unknown = Object.keys(args).filter((key) => !KNOWN_KEYS.includes(key));
if (unknown.length > 0) fail(`unknown argument ${unknown.join(", ")}; expected: ${KNOWN_KEYS.filter((key) => key !== "node").join(", ")}`);
const operation = choice(args, "operation", OPERATIONS, undefined);
if (!("text" in args)) fail(`${operation} needs text`);
({ hash: runHash, encode: runEncode, decode: runDecode, jwt: runJwt })[operation](args);
