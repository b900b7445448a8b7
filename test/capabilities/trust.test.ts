import { describe, expect, it } from "vitest";
import { effectivePermissions } from "../../src/capabilities/permissions.js";
import {
  lowerTrust,
  TRUST_CEILINGS,
  TRUST_LEVELS,
  trustLevelOf,
  trustRank,
} from "../../src/capabilities/trust.js";
import type { CapabilityPermissions, TrustLevel } from "../../src/capabilities/types.js";
import { DEFAULT_OWNER_PERMISSION_POLICY } from "../../src/config/capabilities-config.js";

/** Everything a skill could ask for. */
const EVERYTHING: CapabilityPermissions = {
  fsRead: ["workspace", "/srv/data"],
  fsWrite: ["workspace", "/srv/out"],
  network: true,
  shell: true,
  env: ["API_TOKEN"],
  adapterCapabilities: ["config.inspect"],
};
/** A policy that refuses nothing, so the ceiling alone decides. */
const OPEN_POLICY = {
  readWorkspace: true,
  writeWorkspace: true,
  network: true,
  shell: true,
  env: ["API_TOKEN"],
};

describe("trust levels", () => {
  it("sources map to levels; an unknown source has none", () => {
    const table: ReadonlyArray<[string, TrustLevel | undefined]> = [
      ["builtin", "builtin"],
      ["config", "owner"],
      ["owner", "owner"],
      ["caller", "owner"],
      ["store:owner", "owner"],
      ["user", "user_folder"],
      ["codex", "user_folder"],
      ["claude", "user_folder"],
      ["agents", "user_folder"],
      ["project", "project"],
      ["package:@acme/skills", "npm_package"],
      ["npm", "npm_package"],
      ["store:zip", "imported"],
      ["store:github", "imported"],
      ["store:folder", "imported"],
      ["store", "imported"],
      ["imported", "imported"],
      ["learned", "assistant_draft"],
      ["store:assistant", "assistant_draft"],
      ["assistant", "assistant_draft"],
      ["somewhere", undefined],
      ["my-extension", undefined],
      ["__proto__", undefined],
      ["constructor", undefined],
    ];
    for (const [source, level] of table) expect(trustLevelOf(source), source).toBe(level);
  });

  it("levels rank most trusted first, and the lower of two wins", () => {
    expect(TRUST_LEVELS.map(trustRank)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(trustRank(undefined)).toBe(7);
    expect(lowerTrust("owner", "project")).toBe("project");
    expect(lowerTrust("imported", "user_folder")).toBe("imported");
  });

  it("each level's ceiling: what a skill asking for everything gets under a policy that allows everything", () => {
    const table: Record<TrustLevel, CapabilityPermissions> = {
      builtin: { ...EVERYTHING, shell: false },
      owner: EVERYTHING,
      user_folder: { ...EVERYTHING, shell: false },
      project: {
        fsRead: ["workspace"],
        fsWrite: ["workspace"],
        network: false,
        shell: false,
        env: [],
        adapterCapabilities: ["config.inspect"],
      },
      npm_package: {
        fsRead: ["workspace"],
        fsWrite: [],
        network: false,
        shell: false,
        env: [],
        adapterCapabilities: [],
      },
      imported: {
        fsRead: ["workspace"],
        fsWrite: [],
        network: false,
        shell: false,
        env: [],
        adapterCapabilities: [],
      },
      assistant_draft: {
        fsRead: ["workspace"],
        fsWrite: [],
        network: false,
        shell: false,
        env: [],
        adapterCapabilities: [],
      },
    };
    for (const level of TRUST_LEVELS) {
      const result = effectivePermissions(EVERYTHING, level, OPEN_POLICY);
      expect(result.denied, level).toEqual([]);
      expect(result.effective, level).toEqual(table[level]);
      // What was cut is said, one line each.
      expect(result.narrowed.length > 0, level).toBe(level !== "owner");
    }
    expect(Object.keys(TRUST_CEILINGS)).toEqual([...TRUST_LEVELS]);
  });

  it("no level gets past the owner's default policy", () => {
    for (const level of TRUST_LEVELS) {
      const result = effectivePermissions(
        { ...EVERYTHING, fsRead: ["workspace"], fsWrite: [] },
        level,
        DEFAULT_OWNER_PERMISSION_POLICY,
      );
      expect(result.denied.length, level).toBeGreaterThan(0);
    }
  });
});
