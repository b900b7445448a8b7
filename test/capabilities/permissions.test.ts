import { describe, expect, it } from "vitest";
import {
  effectivePermissions,
  NO_PERMISSIONS,
  permissionsWithin,
  sandboxPolicyOf,
} from "../../src/capabilities/permissions.js";
import type { CapabilityPermissions } from "../../src/capabilities/types.js";
import {
  DEFAULT_OWNER_PERMISSION_POLICY,
  type OwnerPermissionPolicy,
} from "../../src/config/capabilities-config.js";

const READ: CapabilityPermissions = { ...NO_PERMISSIONS, fsRead: ["workspace"] };
const policy = (changes: Partial<OwnerPermissionPolicy>): OwnerPermissionPolicy => ({
  ...DEFAULT_OWNER_PERMISSION_POLICY,
  ...changes,
});

describe("effective permissions = declared ∩ ceiling ∩ owner policy", () => {
  const table: ReadonlyArray<{
    name: string;
    declared: CapabilityPermissions;
    policy: OwnerPermissionPolicy;
    effective?: CapabilityPermissions;
    denied?: readonly string[];
  }> = [
    {
      name: "reading the workspace, default policy",
      declared: READ,
      policy: DEFAULT_OWNER_PERMISSION_POLICY,
      effective: READ,
    },
    {
      name: "nothing at all",
      declared: NO_PERMISSIONS,
      policy: policy({ readWorkspace: false }),
      effective: NO_PERMISSIONS,
    },
    {
      name: "reading when the owner allows no reads",
      declared: READ,
      policy: policy({ readWorkspace: false }),
      denied: ["reads the workspace; capabilities.permissions.read_workspace is false"],
    },
    {
      name: "writing, default policy",
      declared: { ...READ, fsWrite: ["workspace"] },
      policy: DEFAULT_OWNER_PERMISSION_POLICY,
      denied: ["writes workspace; capabilities.permissions.write_workspace is false"],
    },
    {
      name: "writing, the owner allows it",
      declared: { ...READ, fsWrite: ["workspace"] },
      policy: policy({ writeWorkspace: true }),
      effective: { ...READ, fsWrite: ["workspace"] },
    },
    {
      name: "network and shell, default policy",
      declared: { ...READ, network: true, shell: true },
      policy: DEFAULT_OWNER_PERMISSION_POLICY,
      denied: [
        "uses the network; capabilities.permissions.network is false",
        "runs a shell; capabilities.permissions.shell is false",
      ],
    },
    {
      name: "an environment variable the owner does not list",
      declared: { ...READ, env: ["HOME_TOKEN", "LANG"] },
      policy: policy({ env: ["LANG"] }),
      denied: ["is given HOME_TOKEN; not in capabilities.permissions.env"],
    },
    {
      name: "an environment variable the owner lists",
      declared: { ...READ, env: ["LANG"] },
      policy: policy({ env: ["LANG", "TZ"] }),
      effective: { ...READ, env: ["LANG"] },
    },
  ];
  for (const row of table) {
    it(row.name, () => {
      const result = effectivePermissions(row.declared, "owner", row.policy);
      expect(result.denied).toEqual(row.denied ?? []);
      // A refusal gives nothing at all, never a part.
      expect(result.effective).toEqual(row.effective ?? NO_PERMISSIONS);
    });
  }

  it("policy denials are judged on what was declared, even where the ceiling would cut it", () => {
    const result = effectivePermissions(
      { ...READ, network: true },
      "imported",
      DEFAULT_OWNER_PERMISSION_POLICY,
    );
    expect(result.denied).toEqual(["uses the network; capabilities.permissions.network is false"]);
  });

  it("the ceiling narrows and says so", () => {
    const result = effectivePermissions({ ...READ, network: true }, "project", policy({ network: true }));
    expect(result.denied).toEqual([]);
    expect(result.effective.network).toBe(false);
    expect(result.narrowed).toEqual(["network: not within the project ceiling"]);
  });

  it("the same permissions feed the sandbox policy of the skill's scripts", () => {
    expect(sandboxPolicyOf(NO_PERMISSIONS)).toEqual({
      network: false,
      workspace: undefined,
      readableRoots: [],
      writableRoots: [],
      env: [],
    });
    expect(sandboxPolicyOf(READ).workspace).toBe("read");
    expect(
      sandboxPolicyOf({
        ...NO_PERMISSIONS,
        fsRead: ["workspace", "/srv/in", "/srv/out"],
        fsWrite: ["workspace", "/srv/out"],
        network: true,
        env: ["LANG"],
      }),
    ).toEqual({
      network: true,
      workspace: "write",
      readableRoots: ["/srv/in"],
      writableRoots: ["/srv/out"],
      env: ["LANG"],
    });
  });

  it("permissionsWithin tells a widening (a reload that needs the owner's approval)", () => {
    expect(permissionsWithin(READ, READ)).toBe(true);
    expect(permissionsWithin(NO_PERMISSIONS, READ)).toBe(true);
    expect(permissionsWithin({ ...READ, network: true }, READ)).toBe(false);
    expect(permissionsWithin({ ...READ, adapterCapabilities: ["config.inspect"] }, READ)).toBe(false);
  });
});
