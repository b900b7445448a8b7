import { chmod, lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import { type Diagnostic, diagnostic } from "../core/diagnostics.js";
import { FILE_MODE, FOLDER_MODE } from "../core/durable-fs.js";
import { hashSkillFolder } from "../skill/content-hash.js";
import { GOVERNANCE_KEYS } from "../skill/governance.js";
import { loadSkillFolder } from "../skill/load-skill.js";
import type { Skill } from "../skill/skill.js";
import {
  SkillFileTooLargeError,
  SkillInvalidError,
  SkillSymlinkError,
  SkillTooLargeError,
  TooManyDomainsError,
  TooManyFilesError,
} from "./errors.js";
import { MAX_DOMAINS, MAX_FILE_BYTES, MAX_FILES, MAX_SKILL_BYTES } from "./limits.js";
import { checkPathSet, checkRelativePath, checkSkillName } from "./paths.js";

/** One regular file of a checked skill folder. */
export interface CheckedFile {
  /** Relative path with `/` separators. */
  readonly path: string;
  readonly size: number;
}

/** A skill folder that passed every check: its skill, files, total size and content hash. */
export interface CheckedFolder {
  readonly name: string;
  readonly skill: Skill;
  readonly files: readonly CheckedFile[];
  readonly bytes: number;
  readonly hash: string;
  /** Warnings from loading SKILL.md (unknown fields and the like); errors refuse the folder. */
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * Walks a folder and refuses it at the first broken limit: only regular files and folders
 * (`symlink_not_allowed` otherwise), canonical relative paths (`path_not_allowed`), at most
 * {@link MAX_FILES} files and as many folders (`too_many_files`), {@link MAX_FILE_BYTES} a
 * file (`file_too_large`) and {@link MAX_SKILL_BYTES} in all (`skill_too_large`). The walk
 * stops as soon as a limit is passed, so a hostile folder costs little. With `normaliseModes`
 * every entry gets the store's private modes (no execute, setuid or group/other bits).
 */
export async function checkFolderLimits(
  folder: string,
  options: { normaliseModes?: boolean } = {},
): Promise<{ files: CheckedFile[]; bytes: number }> {
  const files: CheckedFile[] = [];
  let folders = 0;
  let bytes = 0;
  const visit = async (prefix: string): Promise<void> => {
    const entries = await readdir(prefix === "" ? folder : join(folder, prefix), { withFileTypes: true });
    entries.sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
    // Names that differ only in case would merge on a case-insensitive file system.
    checkPathSet(entries.map((entry) => (prefix === "" ? entry.name : `${prefix}/${entry.name}`)));
    for (const entry of entries) {
      const relative = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
      checkRelativePath(relative);
      const absolute = join(folder, relative);
      const stats = await lstat(absolute);
      if (stats.isDirectory()) {
        folders += 1;
        if (folders > MAX_FILES) throw new TooManyFilesError(folders, MAX_FILES, "folders");
        if (options.normaliseModes) await chmod(absolute, FOLDER_MODE);
        await visit(relative);
      } else if (stats.isFile()) {
        if (files.length + 1 > MAX_FILES) throw new TooManyFilesError(files.length + 1, MAX_FILES);
        if (stats.size > MAX_FILE_BYTES)
          throw new SkillFileTooLargeError(relative, stats.size, MAX_FILE_BYTES);
        bytes += stats.size;
        if (bytes > MAX_SKILL_BYTES) throw new SkillTooLargeError(bytes, MAX_SKILL_BYTES);
        if (options.normaliseModes) await chmod(absolute, FILE_MODE);
        files.push({ path: relative, size: stats.size });
      } else {
        throw new SkillSymlinkError(relative);
      }
    }
  };
  await visit("");
  return { files, bytes };
}

/**
 * Checks a folder completely: {@link checkFolderLimits}, then its SKILL.md. The skill must
 * load, carry a `name` equal to `expectedName` (when given) and valid under the Agent Skills
 * rule, list at most {@link MAX_DOMAINS} allowed domains, and have no error at all — an
 * invalid governance key or `parameters_schema` refuses it (`skill_invalid`). The folder's
 * own name is not compared: staged folders have temporary names.
 */
export async function checkSkillFolder(
  folder: string,
  options: { expectedName?: string; normaliseModes?: boolean } = {},
): Promise<CheckedFolder> {
  const limits = await checkFolderLimits(folder, options);
  const label = options.expectedName ?? "(staged)";
  const loaded = loadSkillFolder(folder, { source: "store", mode: "lenient" });
  const relevant = loaded.diagnostics.filter((item) => item.code !== "name_mismatch");
  const blocking = relevant.filter(
    (item) =>
      item.severity === "error" ||
      item.code === "missing_name" ||
      item.code === "invalid_name" ||
      item.code === "name_too_long",
  );
  const skill = loaded.skill;
  if (skill !== undefined) {
    const domains = countDomains(skill.fields?.metadata[GOVERNANCE_KEYS.allowedDomains]);
    if (domains > MAX_DOMAINS) throw new TooManyDomainsError(domains, MAX_DOMAINS);
  }
  if (skill === undefined || blocking.length > 0) {
    throw new SkillInvalidError(label, blocking.length > 0 ? blocking : relevant);
  }
  const name = checkSkillName(skill.name);
  if (options.expectedName !== undefined && name !== options.expectedName) {
    throw new SkillInvalidError(label, [
      diagnostic(
        "name_mismatch",
        "error",
        `SKILL.md names the skill "${name}", not "${options.expectedName}"`,
        { path: join(folder, "SKILL.md"), field: "name", hint: `set name: ${options.expectedName}` },
      ),
    ]);
  }
  const hashed = hashSkillFolder(folder);
  if (hashed.hash === undefined) throw new SkillInvalidError(label, hashed.diagnostics);
  return { name, skill, files: limits.files, bytes: limits.bytes, hash: hashed.hash, diagnostics: relevant };
}

/** Counts `skillgate.allowed-domains` entries the way governance reads them (a list, or text split on spaces and commas). */
function countDomains(raw: unknown): number {
  if (Array.isArray(raw)) return raw.length;
  if (typeof raw === "string") return raw.split(/[\s,]+/).filter((entry) => entry.length > 0).length;
  return 0;
}
