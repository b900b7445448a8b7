import type { KeyObject } from "node:crypto";
import { sign } from "node:crypto";
import { isFullHash, isPackageName } from "../packages/package-format.js";
import { DEFAULT_PACKAGE_LIMITS } from "../packages/package-limits.js";
import type { ManifestSkill, SignedSkillsManifest, SkillsManifest } from "../protocol.js";

/** The most bytes a manifest's payload may decode to (1 MiB). */
export const MAX_MANIFEST_BYTES = 1024 * 1024;
/** The most skills one manifest may list. */
export const MAX_MANIFEST_SKILLS = 1000;
/** Longest node name a manifest may carry. */
export const MAX_NODE_NAME_LENGTH = 64;

/**
 * Signs a manifest: the payload is the exact UTF-8 JSON bytes, base64, and the signature is
 * Ed25519 over those bytes, so the agent checks the signature over exactly what arrived
 * before it parses anything.
 */
export function signManifest(manifest: SkillsManifest, privateKey: KeyObject): SignedSkillsManifest {
  const bytes = Buffer.from(JSON.stringify(manifest), "utf8");
  return { payload: bytes.toString("base64"), signature: sign(null, bytes, privateKey).toString("base64") };
}

/** The manifest's shape, or the reason it has none. Never throws. */
export type ManifestShape =
  | { readonly ok: true; readonly manifest: SkillsManifest }
  | { readonly ok: false; readonly reason: string };

/**
 * Reads a decoded payload as a {@link SkillsManifest}, strictly: the known fields only, each
 * with its type; a node name; a positive safe-integer sequence; ISO times; at most
 * {@link MAX_MANIFEST_SKILLS} skills, each with a package name, a full hash, a SHA-256 and
 * a size within the package limit, no name twice.
 */
export function readManifestShape(value: unknown): ManifestShape {
  const refuse = (reason: string): ManifestShape => ({ ok: false, reason });
  if (!isRecord(value)) return refuse("the payload is not a JSON object");
  const extra = Object.keys(value).find((key) => !MANIFEST_KEYS.has(key));
  if (extra !== undefined) return refuse(`unknown field ${JSON.stringify(extra.slice(0, 40))}`);
  const { node, sequence, issuedAt, expiresAt, skills } = value;
  if (typeof node !== "string" || node.length === 0 || node.length > MAX_NODE_NAME_LENGTH)
    return refuse("node is not a node name");
  if (typeof sequence !== "number" || !Number.isSafeInteger(sequence) || sequence <= 0)
    return refuse("sequence is not a positive integer");
  if (!isTime(issuedAt)) return refuse("issuedAt is not an ISO time");
  if (!isTime(expiresAt)) return refuse("expiresAt is not an ISO time");
  if (!Array.isArray(skills)) return refuse("skills is not a list");
  if (skills.length > MAX_MANIFEST_SKILLS) return refuse(`more than ${MAX_MANIFEST_SKILLS} skills`);
  const names = new Set<string>();
  const checked: ManifestSkill[] = [];
  for (const [index, skill] of skills.entries()) {
    const problem = skillProblem(skill);
    if (problem !== undefined) return refuse(`skills[${index}]: ${problem}`);
    const entry = skill as ManifestSkill;
    if (names.has(entry.name)) return refuse(`skills[${index}]: ${entry.name} is listed twice`);
    names.add(entry.name);
    checked.push({ name: entry.name, hash: entry.hash, sha256: entry.sha256, size: entry.size });
  }
  return { ok: true, manifest: { node, sequence, issuedAt, expiresAt, skills: checked } };
}

const MANIFEST_KEYS: ReadonlySet<string> = new Set(["node", "sequence", "issuedAt", "expiresAt", "skills"]);
const SKILL_KEYS: ReadonlySet<string> = new Set(["name", "hash", "sha256", "size"]);

function skillProblem(skill: unknown): string | undefined {
  if (!isRecord(skill)) return "not an object";
  if (Object.keys(skill).some((key) => !SKILL_KEYS.has(key))) return "unknown field";
  if (!isPackageName(skill.name)) return "name is not a skill name";
  if (!isFullHash(skill.hash)) return "hash is not a full content hash";
  if (!isFullHash(skill.sha256)) return "sha256 is not a SHA-256";
  const size = skill.size;
  if (typeof size !== "number" || !Number.isSafeInteger(size) || size <= 0)
    return "size is not a positive integer";
  if (size > DEFAULT_PACKAGE_LIMITS.maxPackageBytes)
    return `size is above the ${DEFAULT_PACKAGE_LIMITS.maxPackageBytes} bytes a package may have`;
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?Z$/;

function isTime(value: unknown): value is string {
  return typeof value === "string" && ISO_TIME.test(value) && Number.isFinite(Date.parse(value));
}
