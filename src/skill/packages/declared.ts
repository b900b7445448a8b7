import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { join } from "node:path";
import { type Diagnostic, diagnostic } from "../../core/diagnostics.js";
import { parseJsonSafely } from "../../core/safe-json.js";
import { listSkillFiles } from "../skill-files.js";
import { readScriptMetadata } from "./pep723.js";
import { checkRequirement, readRequirementsFile } from "./requirements.js";

/** The largest declaration file read (a script, a requirements file, a package.json or its lock). */
export const MAX_DECLARATION_BYTES = 1024 * 1024;

/** The Python packages a skill declares: PEP 723 blocks of its scripts and its requirements files. */
export interface PythonPackages {
  /** Every requirement, in the order found, each once. */
  readonly requirements: readonly string[];
  /** The files that declared them (`scripts/fill.py`, `scripts/requirements.txt`). */
  readonly sources: readonly string[];
  /** The `requires-python` of the scripts' blocks, as written (shown, not enforced). */
  readonly requiresPython: readonly string[];
}

/** The Node packages a skill declares: a `package.json` with its lock, installed by `npm ci`. */
export interface NodePackages {
  /** The folder of the package.json within the skill: `""` (the skill's root) or `scripts`. */
  readonly folder: string;
  /** The lock beside it: `package-lock.json` or `npm-shrinkwrap.json`. */
  readonly lock: string;
  /** `name@range` of each of its `dependencies` (development dependencies are not installed). */
  readonly dependencies: readonly string[];
}

/** What a skill declares it needs installed, and the problems found reading it. */
export interface DeclaredPackages {
  readonly python?: PythonPackages;
  readonly node?: NodePackages;
  readonly diagnostics: readonly Diagnostic[];
}

/** Whether a declaration asks for anything to be installed. */
export function declaresPackages(declared: DeclaredPackages): boolean {
  return (declared.python?.requirements.length ?? 0) > 0 || (declared.node?.dependencies.length ?? 0) > 0;
}

const REQUIREMENTS_FILES = ["requirements.txt", "scripts/requirements.txt"] as const;
const PACKAGE_FOLDERS = ["", "scripts"] as const;
const LOCK_FILES = ["package-lock.json", "npm-shrinkwrap.json"] as const;

/**
 * Reads what a skill folder declares (docs/running-scripts.md, "Packages"): the PEP 723
 * block of each Python script under `scripts/`, `requirements.txt` at the skill's root or
 * beside its scripts, and a `package.json` (root or `scripts/`) with its lock. A bad block,
 * line or file is a diagnostic and declares nothing; it never throws.
 */
export function readDeclaredPackages(
  directory: string,
  files: readonly string[] = listSkillFiles(directory),
): DeclaredPackages {
  const diagnostics: Diagnostic[] = [];
  const requirements = new Set<string>();
  const sources: string[] = [];
  const requiresPython: string[] = [];
  const present = new Set(files);
  for (const path of files) {
    if (!path.startsWith("scripts/") || !path.toLowerCase().endsWith(".py")) continue;
    const text = readDeclaration(directory, path, diagnostics);
    if (text === undefined || !text.includes("# /// ")) continue;
    const metadata = readScriptMetadata(text);
    if (metadata.kind === "none") continue;
    if (metadata.kind === "invalid") {
      diagnostics.push(
        diagnostic(
          "invalid_script_metadata",
          "error",
          `${path}, line ${metadata.line}: ${metadata.message}.`,
          {
            path,
            hint: "Fix the `# /// script` block (PEP 723); nothing it declares is installed until then.",
          },
        ),
      );
      continue;
    }
    const accepted: string[] = [];
    for (const item of metadata.dependencies) {
      const checked = checkRequirement(item);
      if (checked.ok) accepted.push(checked.requirement);
      else diagnostics.push(badRequirement(path, metadata.line, item, checked.reason));
    }
    if (accepted.length !== metadata.dependencies.length) continue;
    for (const item of accepted) requirements.add(item);
    if (accepted.length > 0) sources.push(path);
    if (metadata.requiresPython !== undefined) requiresPython.push(metadata.requiresPython);
  }
  for (const path of REQUIREMENTS_FILES) {
    if (!present.has(path)) continue;
    const text = readDeclaration(directory, path, diagnostics);
    if (text === undefined) continue;
    const lines = readRequirementsFile(text);
    const refused = lines.filter((line) => !line.ok);
    for (const line of refused)
      if (!line.ok) diagnostics.push(badRequirement(path, line.line, line.text, line.reason));
    if (refused.length > 0) continue;
    for (const line of lines) if (line.ok) requirements.add(line.requirement);
    if (lines.length > 0) sources.push(path);
  }
  const node = readNodePackages(directory, present, diagnostics);
  return {
    ...(requirements.size > 0
      ? { python: { requirements: [...requirements], sources, requiresPython } }
      : {}),
    ...(node !== undefined ? { node } : {}),
    diagnostics,
  };
}

function badRequirement(path: string, line: number, text: string, reason: string): Diagnostic {
  return diagnostic(
    "invalid_requirement",
    "error",
    `${path}, line ${line}: ${JSON.stringify(text.slice(0, 200))} is refused: ${reason}.`,
    {
      path,
      hint: "Name packages of the package index, with version specifiers (`pypdf>=4`); nothing of this file is installed until then.",
    },
  );
}

function readNodePackages(
  directory: string,
  present: ReadonlySet<string>,
  diagnostics: Diagnostic[],
): NodePackages | undefined {
  for (const folder of PACKAGE_FOLDERS) {
    const path = folder === "" ? "package.json" : `${folder}/package.json`;
    if (!present.has(path)) continue;
    const text = readDeclaration(directory, path, diagnostics);
    if (text === undefined) return undefined;
    const manifest = parseManifest(text);
    if (manifest === null || typeof manifest !== "object" || Array.isArray(manifest)) {
      diagnostics.push(
        diagnostic("invalid_package_json", "error", `${path} is not a JSON object.`, { path }),
      );
      return undefined;
    }
    const declared = (manifest as Record<string, unknown>).dependencies;
    if (declared === undefined) return undefined;
    if (declared === null || typeof declared !== "object" || Array.isArray(declared)) {
      diagnostics.push(
        diagnostic("invalid_package_json", "error", `${path}: "dependencies" must be an object.`, { path }),
      );
      return undefined;
    }
    const dependencies = Object.entries(declared as Record<string, unknown>).map(
      ([name, range]) => `${name}@${typeof range === "string" ? range : "?"}`,
    );
    if (dependencies.length === 0) return undefined;
    const lock = LOCK_FILES.find((name) => present.has(folder === "" ? name : `${folder}/${name}`));
    if (lock === undefined) {
      diagnostics.push(
        diagnostic(
          "package_lock_missing",
          "error",
          `${path} has dependencies but no package-lock.json beside it.`,
          {
            path,
            hint: "Run `npm install --package-lock-only` in that folder and add the lock: packages are installed with `npm ci`, which needs it.",
          },
        ),
      );
      return undefined;
    }
    return { folder, lock, dependencies };
  }
  return undefined;
}

function parseManifest(text: string): unknown {
  try {
    return parseJsonSafely(text);
  } catch {
    return undefined;
  }
}

/** A declaration file's text, at most {@link MAX_DECLARATION_BYTES}, never through a link. */
function readDeclaration(directory: string, path: string, diagnostics: Diagnostic[]): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(join(directory, path), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const stats = fstatSync(fd);
    if (!stats.isFile()) return undefined;
    if (stats.size > MAX_DECLARATION_BYTES) {
      diagnostics.push(
        diagnostic(
          "file_too_large",
          "warning",
          `${path} is over ${MAX_DECLARATION_BYTES / 1024} KiB; what it declares is not read.`,
          { path },
        ),
      );
      return undefined;
    }
    const buffer = Buffer.alloc(stats.size);
    let read = 0;
    while (read < buffer.length) {
      const count = readSync(fd, buffer, read, buffer.length - read, read);
      if (count === 0) break;
      read += count;
    }
    return buffer.subarray(0, read).toString("utf8");
  } catch {
    diagnostics.push(diagnostic("unreadable_file", "warning", `${path} could not be read.`, { path }));
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
