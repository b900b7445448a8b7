import { type Diagnostic, diagnostic } from "../core/diagnostics.js";
import type { WalkLimits } from "./walk.js";

/**
 * What one walk did not search or did not load, counted as it went, for `doctor`. Every
 * count is a by-product of the walk: nothing is listed or read to make it, except past the
 * skills cap, where the rest of the tree is still walked (up to the folder cap) to count
 * the skills left out.
 */
export interface NotSearched {
  /** Folders skipped by name, by name: the names walk.ts skips (`SKIPPED_FOLDER_NAMES`) and a source's own folders. */
  readonly skippedFolders: Readonly<Record<string, number>>;
  /** Folders at the depth limit that are not skills: what is below them was not searched. */
  readonly belowDepthLimit: number;
  /** Skills found after the per-root skills cap was reached: not loaded. */
  readonly overSkillLimit: number;
  /** Folders not searched because the folder cap stopped the walk (at least this many). */
  readonly overFolderLimit: number;
}

/** A walk that left nothing out. */
export const NOTHING_LEFT_OUT: NotSearched = Object.freeze({
  skippedFolders: Object.freeze({}),
  belowDepthLimit: 0,
  overSkillLimit: 0,
  overFolderLimit: 0,
});

/**
 * The diagnostics for what a walk of `root` left out: an error for skills past the skills
 * cap and for folders past the folder cap (`stopped`), a warning for folders at the depth
 * limit; folders skipped by name are not a problem. Each says how many and which
 * config.yaml key raises the cap.
 */
export function leftOutDiagnostics(
  root: string,
  limits: WalkLimits,
  notSearched: NotSearched,
  stopped: boolean,
): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  if (notSearched.overSkillLimit > 0) {
    diagnostics.push(
      diagnostic(
        "limit_exceeded",
        "error",
        `more than ${limits.maxSkills} skills below ${root}: ${notSearched.overSkillLimit} more were not loaded${stopped ? " (at least; the folder cap stopped the count)" : ""}`,
        { path: root, hint: SKILLS_CAP_HINT },
      ),
    );
  }
  if (stopped) {
    diagnostics.push(
      diagnostic(
        "limit_exceeded",
        "error",
        `more than ${limits.maxFolders} folders below ${root}: at least ${notSearched.overFolderLimit} more were not searched`,
        { path: root, hint: FOLDERS_CAP_HINT },
      ),
    );
  }
  if (notSearched.belowDepthLimit > 0) {
    diagnostics.push(
      diagnostic(
        "limit_exceeded",
        "warning",
        `${notSearched.belowDepthLimit} folder(s) ${limits.maxDepth} levels below ${root} were not searched further (the depth limit)`,
        { path: root, hint: DEPTH_CAP_HINT },
      ),
    );
  }
  return diagnostics;
}

const SKILLS_CAP_HINT =
  "raise discovery.max_skills_per_root in config.yaml, or point skillgate at a narrower folder";
const FOLDERS_CAP_HINT =
  "raise discovery.max_folders_per_root in config.yaml, or point skillgate at a narrower folder";
const DEPTH_CAP_HINT = "move the skills nearer the root, or raise discovery.max_depth in config.yaml";

/** The counts of one walk's {@link NotSearched}, kept as plain numbers while it runs. */
export class LeftOut {
  #skipped: Map<string, number> | undefined;
  belowDepthLimit = 0;
  overSkillLimit = 0;
  overFolderLimit = 0;

  /** Counts one folder skipped by `name`. */
  skipped(name: string): void {
    if (this.#skipped === undefined) this.#skipped = new Map();
    this.#skipped.set(name, (this.#skipped.get(name) ?? 0) + 1);
  }

  /** The counts as a {@link NotSearched}; the shared {@link NOTHING_LEFT_OUT} when all are zero. */
  done(): NotSearched {
    if (
      this.#skipped === undefined &&
      this.belowDepthLimit === 0 &&
      this.overSkillLimit === 0 &&
      this.overFolderLimit === 0
    )
      return NOTHING_LEFT_OUT;
    const skippedFolders: Record<string, number> = {};
    for (const [name, count] of [...(this.#skipped ?? [])].sort(([left], [right]) =>
      left < right ? -1 : left > right ? 1 : 0,
    ))
      skippedFolders[name] = count;
    return {
      skippedFolders,
      belowDepthLimit: this.belowDepthLimit,
      overSkillLimit: this.overSkillLimit,
      overFolderLimit: this.overFolderLimit,
    };
  }
}
