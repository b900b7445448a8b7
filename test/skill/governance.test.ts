import { describe, expect, it } from "vitest";
import { MAX_ALLOWED_DOMAINS } from "../../src/core/limits.js";
import {
  canonicalHost,
  DEFAULT_GOVERNANCE,
  EXECUTION_MODES,
  NETWORK_MODES,
  readGovernance,
  TIERS,
  WORKSPACE_DECLARATIONS,
  workspaceAccessOf,
} from "../../src/skill/governance.js";
import { loadSkillFolder } from "../../src/skill/load-skill.js";
import { skillFolder, skillText } from "./skill-folders.js";

const read = (metadata: Record<string, unknown>) =>
  readGovernance(metadata, { path: "SKILL.md", mode: "lenient" });

describe("governance shared between skills", () => {
  it("skills that declare no domains and no schema share one frozen governance per combination", () => {
    for (const execution of EXECUTION_MODES) {
      for (const tier of TIERS) {
        for (const network of NETWORK_MODES) {
          const metadata = {
            "skillgate.execution": execution,
            "skillgate.tier": tier,
            "skillgate.network": network,
          };
          const first = read(metadata);
          const second = read({ ...metadata, "skillgate.allowed-domains": null });
          expect(first.diagnostics).toEqual([]);
          expect(first.governance).toEqual({
            execution,
            tier,
            network,
            allowedDomains: [],
            parametersSchema: { kind: "none" },
          });
          expect(second.governance).toBe(first.governance);
          expect(Object.isFrozen(first.governance)).toBe(true);
          expect(Object.isFrozen(first.governance.allowedDomains)).toBe(true);
        }
      }
    }
    expect(read({}).governance).toEqual(DEFAULT_GOVERNANCE);
    expect(read({ "skillgate.tier": "maybe" }).governance).toBe(read({}).governance);
  });

  it("a skill with domains or a schema gets its own governance", () => {
    const withDomains = read({ "skillgate.allowed-domains": "example.com" }).governance;
    expect(withDomains.allowedDomains).toEqual(["example.com"]);
    expect(withDomains).not.toBe(read({}).governance);
    expect(Object.isFrozen(withDomains)).toBe(false);
  });
});

describe("governance keys", () => {
  it("defaults: sandbox, tier change, network none, no domains, no schema", () => {
    expect(readGovernance({}, { mode: "lenient" })).toEqual({
      governance: {
        execution: "sandbox",
        tier: "change",
        network: "none",
        allowedDomains: [],
        parametersSchema: { kind: "none" },
      },
      diagnostics: [],
    });
    expect(DEFAULT_GOVERNANCE.execution).toBe("sandbox");
  });

  it("the value sets are the documented ones", () => {
    expect(EXECUTION_MODES).toEqual(["local", "sandbox", "node", "queue"]);
    expect(TIERS).toEqual(["read", "change", "destructive"]);
    expect(NETWORK_MODES).toEqual(["none", "bridge"]);
  });

  it.each(EXECUTION_MODES.map((mode) => [mode]))("accepts skillgate.execution: %s", (mode) => {
    const result = read({ "skillgate.execution": mode });
    expect(result.diagnostics).toEqual([]);
    expect(result.governance.execution).toBe(mode);
  });

  it.each(TIERS.map((tier) => [tier]))("accepts skillgate.tier: %s", (tier) => {
    const result = read({ "skillgate.tier": tier });
    expect(result.diagnostics).toEqual([]);
    expect(result.governance.tier).toBe(tier);
  });

  it.each(NETWORK_MODES.map((network) => [network]))("accepts skillgate.network: %s", (network) => {
    const result = read({ "skillgate.network": network });
    expect(result.diagnostics).toEqual([]);
    expect(result.governance.network).toBe(network);
  });

  it.each([
    ["skillgate.execution", "spark", "execution", "sandbox"],
    ["skillgate.execution", "Sandbox", "execution", "sandbox"],
    ["skillgate.execution", "", "execution", "sandbox"],
    ["skillgate.execution", 1, "execution", "sandbox"],
    ["skillgate.tier", "admin", "tier", "change"],
    ["skillgate.tier", "READ", "tier", "change"],
    ["skillgate.tier", null, "tier", "change"],
    ["skillgate.network", "host", "network", "none"],
    ["skillgate.network", true, "network", "none"],
  ] as const)("refuses %s: %j (invalid_governance) and keeps the default", (key, value, field, fallback) => {
    const result = read({ [key]: value });
    expect(result.diagnostics).toEqual([
      expect.objectContaining({
        code: "invalid_governance",
        severity: "error",
        field: `metadata.${key}`,
        path: "SKILL.md",
      }),
    ]);
    expect(result.governance[field]).toBe(fallback);
  });

  it("reports each invalid key once, and the skill still loads marked", () => {
    const text = skillText(
      "name: gov\ndescription: d\nmetadata:\n  skillgate.execution: spark\n  skillgate.tier: admin\n  skillgate.network: host",
    );
    const loaded = loadSkillFolder(skillFolder("gov", text), { source: "test" });
    expect(loaded.diagnostics.map((item) => [item.code, item.field])).toEqual([
      ["invalid_governance", "metadata.skillgate.execution"],
      ["invalid_governance", "metadata.skillgate.tier"],
      ["invalid_governance", "metadata.skillgate.network"],
    ]);
    expect(loaded.governanceInvalid).toBe(true);
    expect(loaded.skill?.governance).toEqual(DEFAULT_GOVERNANCE);
  });
});

describe("skillgate.workspace", () => {
  it.each(WORKSPACE_DECLARATIONS.map((value) => [value]))("accepts skillgate.workspace: %s", (value) => {
    const result = read({ "skillgate.workspace": value, "skillgate.tier": "read" });
    expect(result.diagnostics).toEqual([]);
    expect(result.governance.workspace).toBe(value);
    expect(workspaceAccessOf(result.governance)).toBe(value);
  });

  it("left out, the tier decides: read-only for read skills, writable for change and destructive ones", () => {
    expect(read({}).governance.workspace).toBeUndefined();
    expect(workspaceAccessOf(read({ "skillgate.tier": "read" }).governance)).toBe("read");
    expect(workspaceAccessOf(read({ "skillgate.tier": "change" }).governance)).toBe("write");
    // A pool worker's script sees no project folder unless the skill asks (and is then refused).
    expect(workspaceAccessOf(read({ "skillgate.execution": "queue" }).governance)).toBe("none");
    expect(workspaceAccessOf(read({ "skillgate.tier": "destructive" }).governance)).toBe("write");
  });

  it.each([["writable"], ["READ"], [""], [true], [1], [["read"]]] as const)(
    "refuses skillgate.workspace: %j (invalid_governance) and leaves it to the tier",
    (value) => {
      const result = read({ "skillgate.workspace": value, "skillgate.tier": "read" });
      expect(result.diagnostics).toEqual([
        expect.objectContaining({
          code: "invalid_governance",
          severity: "error",
          field: "metadata.skillgate.workspace",
          path: "SKILL.md",
        }),
      ]);
      expect(result.governance.workspace).toBeUndefined();
      expect(workspaceAccessOf(result.governance)).toBe("read");
    },
  );

  it("keeps the other keys next to it (domains, schema)", () => {
    const result = read({
      "skillgate.workspace": "none",
      "skillgate.allowed-domains": ["api.example.com"],
      "skillgate.execution": "local",
    });
    expect(result.governance).toMatchObject({
      workspace: "none",
      allowedDomains: ["api.example.com"],
      execution: "local",
    });
  });
});

describe("skillgate.allowed-domains", () => {
  it("reads space- or comma-separated text and a YAML list", () => {
    expect(
      read({ "skillgate.allowed-domains": "a.example, b.example  c.example" }).governance.allowedDomains,
    ).toEqual(["a.example", "b.example", "c.example"]);
    expect(
      read({ "skillgate.allowed-domains": ["a.example", "b.example"] }).governance.allowedDomains,
    ).toEqual(["a.example", "b.example"]);
  });

  it("canonicalises: IDNA, lower case, no trailing dot, port kept, duplicates once", () => {
    const result = read({
      "skillgate.allowed-domains": [
        "bücher.example",
        "API.Example.COM.",
        "registry.example.org:8443",
        "api.example.com",
      ],
    });
    expect(result.diagnostics).toEqual([]);
    expect(result.governance.allowedDomains).toEqual([
      "xn--bcher-kva.example",
      "api.example.com",
      "registry.example.org:8443",
    ]);
  });

  it("loads from a real SKILL.md with a YAML list", () => {
    const text = skillText(
      "name: web\ndescription: d\nmetadata:\n  skillgate.allowed-domains:\n    - bücher.example\n    - Example.com.",
    );
    const loaded = loadSkillFolder(skillFolder("web", text), { source: "test", mode: "strict" });
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.skill?.governance.allowedDomains).toEqual(["xn--bcher-kva.example", "example.com"]);
  });

  it(`allows ${MAX_ALLOWED_DOMAINS} hosts and refuses ${MAX_ALLOWED_DOMAINS + 1}`, () => {
    const hosts = (count: number) => Array.from({ length: count }, (_, index) => `h${index}.example`);
    expect(
      read({ "skillgate.allowed-domains": hosts(MAX_ALLOWED_DOMAINS) }).governance.allowedDomains,
    ).toHaveLength(MAX_ALLOWED_DOMAINS);
    const over = read({ "skillgate.allowed-domains": hosts(MAX_ALLOWED_DOMAINS + 1).join(" ") });
    expect(over.governance.allowedDomains).toEqual([]);
    expect(over.diagnostics).toEqual([
      expect.objectContaining({ code: "invalid_governance", field: "metadata.skillgate.allowed-domains" }),
    ]);
  });

  it.each([
    ["userinfo", "user@example.com"],
    ["userinfo with password", "user:pass@example.com"],
    ["a wildcard", "*.example.com"],
    ["an IPv4 literal", "127.0.0.1"],
    ["an IPv4 literal with a port", "10.0.0.1:80"],
    ["a short IPv4 form", "127.1"],
    ["a hex IPv4 form", "0x7f.0.0.1"],
    ["an IPv6 literal", "[::1]"],
    ["a path", "example.com/path"],
    ["a scheme", "https://example.com"],
    ["a query", "example.com?x"],
    ["a backslash", "example.com\\x"],
    ["a single label", "localhost"],
    ["an empty label", "a..example"],
    ["an underscore", "a_b.example"],
    ["a label starting with a hyphen", "-a.example"],
    ["port 0", "example.com:0"],
    ["port 65536", "example.com:65536"],
    ["an empty port", "example.com:"],
    ["a numeric top-level label", "example.123"],
    ["a NUL", "exa\u0000mple.com"],
    ["a number instead of text", 42],
  ])("refuses %s", (_label, host) => {
    const result = read({ "skillgate.allowed-domains": [host] });
    expect(result.governance.allowedDomains).toEqual([]);
    expect(result.diagnostics).toEqual([
      expect.objectContaining({ code: "invalid_governance", field: "metadata.skillgate.allowed-domains" }),
    ]);
  });

  it("refuses a mapping", () => {
    expect(read({ "skillgate.allowed-domains": { a: "b" } }).diagnostics.map((item) => item.code)).toEqual([
      "invalid_governance",
    ]);
  });

  it("canonicalHost keeps a valid port and drops leading zeros", () => {
    expect(canonicalHost("example.com:8080")).toBe("example.com:8080");
    expect(canonicalHost("example.com:08080")).toBe("example.com:8080");
    expect(canonicalHost("EXAMPLE.com.:443")).toBe("example.com:443");
    expect(canonicalHost("xn--bcher-kva.example")).toBe("xn--bcher-kva.example");
  });
});
