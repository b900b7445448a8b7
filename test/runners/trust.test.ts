import { describe, expect, it } from "vitest";
import { trustedSkills } from "../../src/runners/trust.js";

describe("trustedSkills", () => {
  it("matches names and globs, and nothing else", () => {
    const trusted = trustedSkills(() => ["backup-tool", "ops-*"]);
    expect(trusted("backup-tool")).toBe(true);
    expect(trusted("ops-restart")).toBe(true);
    expect(trusted("backup-tool-2")).toBe(false);
    expect(trusted("dev-ops-x")).toBe(false);
    expect(trusted("")).toBe(false);
  });

  it("nothing is trusted by an empty list", () => {
    expect(trustedSkills(() => [])("anything")).toBe(false);
  });

  it("reads the list on every call, so a configuration change applies to the next run", () => {
    let list: readonly string[] = ["a"];
    const trusted = trustedSkills(() => list);
    expect(trusted("b")).toBe(false);
    list = ["a", "b"];
    expect(trusted("b")).toBe(true);
  });
});
