import type { TrustLevel } from "./types.js";

/**
 * Trust levels: where a skill came from decides how much it may ever be given. Each level
 * has a ceiling ({@link TRUST_CEILINGS}); effective permissions are the declared ones cut to
 * the ceiling and then to the owner's policy (permissions.ts). A source skillgate does not
 * know has no level at all: its descriptor is rejected with `trust_level_unknown`.
 */

/** Every trust level, most trusted first: the router's second key after explicit priority. */
export const TRUST_LEVELS: readonly TrustLevel[] = [
  "builtin",
  "owner",
  "user_folder",
  "project",
  "npm_package",
  "imported",
  "assistant_draft",
];

/**
 * The most a level may ever get. `workspace` read and write are the run's project folder;
 * `otherRoots` is whether fs roots other than the workspace may be named at all (they must
 * still lie inside the manifest's allowed roots); `env` is whether environment variable
 * names may be handed to the skill; `adapters` whether a Lua skill may call other
 * capabilities. No level may have a shell that the owner's policy does not also allow.
 */
export interface TrustCeiling {
  readonly readWorkspace: boolean;
  readonly writeWorkspace: boolean;
  readonly otherRoots: boolean;
  readonly network: boolean;
  readonly shell: boolean;
  readonly env: boolean;
  readonly adapters: boolean;
}

/**
 * The documented ceiling of each level (docs/capabilities.md, "Trust levels and ceilings").
 * Why: the owner's own manifests and skillgate's built-ins may ask for everything (policy
 * still decides); a person's own folder everything but a shell; a project (read only with the
 * opt-in) is someone else's code checked out here, so no network, shell or secrets; npm
 * packages and imported skills read the workspace only; an assistant's draft is not reviewed
 * yet and gets read access alone.
 */
export const TRUST_CEILINGS: Readonly<Record<TrustLevel, TrustCeiling>> = {
  builtin: ceiling({ write: true, otherRoots: true, network: true, shell: false, env: true, adapters: true }),
  owner: ceiling({ write: true, otherRoots: true, network: true, shell: true, env: true, adapters: true }),
  user_folder: ceiling({
    write: true,
    otherRoots: true,
    network: true,
    shell: false,
    env: true,
    adapters: true,
  }),
  project: ceiling({
    write: true,
    otherRoots: false,
    network: false,
    shell: false,
    env: false,
    adapters: true,
  }),
  npm_package: ceiling({}),
  imported: ceiling({}),
  assistant_draft: ceiling({}),
};

function ceiling(
  allowed: Partial<Omit<TrustCeiling, "readWorkspace" | "writeWorkspace">> & { write?: boolean },
): TrustCeiling {
  return {
    readWorkspace: true,
    writeWorkspace: allowed.write === true,
    otherRoots: allowed.otherRoots === true,
    network: allowed.network === true,
    shell: allowed.shell === true,
    env: allowed.env === true,
    adapters: allowed.adapters === true,
  };
}

/**
 * Names a manifest's `skill.source` (or a catalog source) may carry, and the level each
 * stands for. Other agents' user folders (`codex`, `claude`, `agents`) are user folders;
 * `store:<how>` is the managed store with how the skill got there (its index's `source`).
 */
const SOURCE_LEVELS: Readonly<Record<string, TrustLevel>> = {
  builtin: "builtin",
  owner: "owner",
  config: "owner",
  caller: "owner",
  "store:owner": "owner",
  user: "user_folder",
  user_folder: "user_folder",
  agents: "user_folder",
  codex: "user_folder",
  claude: "user_folder",
  project: "project",
  npm: "npm_package",
  npm_package: "npm_package",
  imported: "imported",
  // The store without its record is taken as imported: when in doubt, less.
  store: "imported",
  "store:zip": "imported",
  "store:folder": "imported",
  "store:github": "imported",
  learned: "assistant_draft",
  assistant: "assistant_draft",
  assistant_draft: "assistant_draft",
  "store:assistant": "assistant_draft",
};

/**
 * The trust level of a source name, or undefined when skillgate does not know it
 * (`trust_level_unknown`). `package:NAME` (a catalog npm source) is `npm_package`.
 */
export function trustLevelOf(source: string): TrustLevel | undefined {
  if (source.startsWith("package:")) return "npm_package";
  return Object.hasOwn(SOURCE_LEVELS, source) ? SOURCE_LEVELS[source] : undefined;
}

/** The rank of a level: 0 for `builtin`, higher for less trusted. */
export function trustRank(level: TrustLevel | undefined): number {
  return level === undefined ? TRUST_LEVELS.length : TRUST_LEVELS.indexOf(level);
}

/** The less trusted of two levels (a manifest cannot claim more than where its skill lies). */
export function lowerTrust(left: TrustLevel, right: TrustLevel): TrustLevel {
  return trustRank(left) >= trustRank(right) ? left : right;
}
