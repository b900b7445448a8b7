import { realpathSync } from "node:fs";
import { isAbsolute, join, resolve, sep } from "node:path";
import { type CapabilityProblem, problem } from "../problems.js";

/**
 * Paths in manifests (a skill's SKILL.md, a Lua script, a schema file, an fs root) are
 * canonicalised before anything uses them: `~` is the home folder, a relative path is taken
 * from the manifest's base (`<config>` for the owner's, the project root for a project's),
 * and every symbolic link is resolved. The canonical path must lie inside one of the
 * allowed roots, themselves canonical; anything else is `path_not_allowed`.
 */

/** Where a manifest's paths may lead, and what relative paths start from. */
export interface PathContext {
  /** Relative paths are resolved from here. */
  readonly base: string;
  readonly home: string;
  /** Canonical folders a path may lie in (see {@link canonicalRoots}). */
  readonly allowedRoots: readonly string[];
}

/** A path resolved, or the problem with it. */
export type ResolvedPath =
  | { readonly ok: true; readonly path: string }
  | { readonly ok: false; readonly problem: CapabilityProblem };

/** True when `path` is `root` or inside it (both absolute and canonical). */
export function isInside(path: string, root: string): boolean {
  if (path === root) return true;
  const prefix = root.endsWith(sep) ? root : `${root}${sep}`;
  return path.startsWith(prefix);
}

/** The canonical form of each folder that exists; missing folders are left out (nothing can be inside them). */
export function canonicalRoots(folders: readonly string[]): string[] {
  const roots: string[] = [];
  for (const folder of folders) {
    try {
      const canonical = realpathSync(folder);
      if (!roots.includes(canonical)) roots.push(canonical);
    } catch {
      // A root that does not exist holds nothing.
    }
  }
  return roots;
}

/** `~` and `~/…` expanded, relative paths from `base`; not yet canonical. */
export function expandManifestPath(raw: string, context: Pick<PathContext, "base" | "home">): string {
  if (raw === "~") return context.home;
  if (raw.startsWith("~/")) return join(context.home, raw.slice(2));
  return isAbsolute(raw) ? resolve(raw) : resolve(context.base, raw);
}

/**
 * Resolves `raw` (the value of manifest field `field` in `file`): expanded, made canonical
 * (it must exist: `path_missing`), and checked against the allowed roots (`path_not_allowed`,
 * also for a link that leads out of them). A NUL or an empty value is `invalid_field`.
 */
export function resolveManifestPath(
  raw: string,
  field: string,
  file: string,
  context: PathContext,
): ResolvedPath {
  if (raw.length === 0 || raw.includes("\0"))
    return {
      ok: false,
      problem: problem("invalid_field", "error", `${field} is not a path`, { path: file, field }),
    };
  const expanded = expandManifestPath(raw, context);
  let canonical: string;
  try {
    canonical = realpathSync(expanded);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    // A path that does not exist is still checked against the roots first: a missing file
    // outside them is reported as outside, so the answer does not reveal what exists there.
    if (!context.allowedRoots.some((root) => isInside(expanded, root)))
      return { ok: false, problem: notAllowed(raw, expanded, field, file) };
    return {
      ok: false,
      problem: problem("path_missing", "error", `${field} ${raw} does not exist (${code})`, {
        path: file,
        field,
      }),
    };
  }
  if (!context.allowedRoots.some((root) => isInside(canonical, root)))
    return { ok: false, problem: notAllowed(raw, canonical, field, file) };
  return { ok: true, path: canonical };
}

function notAllowed(raw: string, resolved: string, field: string, file: string): CapabilityProblem {
  return problem(
    "path_not_allowed",
    "error",
    `${field} ${raw} resolves to ${resolved}, outside the allowed roots (the config folder, the project with the opt-in, the skill folders)`,
    { path: file, field, reason: "path_not_allowed" },
  );
}
