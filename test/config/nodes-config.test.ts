import { describe, expect, it } from "vitest";
import { DEFAULT_CONFIG, parseConfig } from "../../src/config/config.js";
import { skillAllowedOn } from "../../src/config/nodes-config.js";
import { problemsOf } from "./config-problems.js";

describe("the nodes section", () => {
  it("defaults: every skill on every node, manifests good for 10 minutes", () => {
    expect(DEFAULT_CONFIG.nodes).toEqual({ skills: {}, manifestTtlSeconds: 600 });
    expect(parseConfig("nodes:\n", "f").nodes).toEqual(DEFAULT_CONFIG.nodes);
    expect(skillAllowedOn(DEFAULT_CONFIG.nodes, "anything", "lab01")).toBe(true);
  });

  it("reads each skill's nodes and the manifest lifetime; a listed skill goes only to its nodes", () => {
    const { nodes } = parseConfig(
      [
        "nodes:",
        "  skills:",
        "    disks: [lab01, lab02]",
        "    nowhere: []",
        "  manifest_ttl_seconds: 120",
        "",
      ].join("\n"),
      "f",
    );
    expect(nodes).toEqual({ skills: { disks: ["lab01", "lab02"], nowhere: [] }, manifestTtlSeconds: 120 });
    expect(skillAllowedOn(nodes, "disks", "lab02")).toBe(true);
    expect(skillAllowedOn(nodes, "disks", "lab03")).toBe(false);
    expect(skillAllowedOn(nodes, "nowhere", "lab01")).toBe(false);
    expect(skillAllowedOn(nodes, "other", "lab03")).toBe(true);
    // Inherited names are not scopes.
    expect(skillAllowedOn(nodes, "toString", "lab03")).toBe(true);
  });

  it.each([
    ["an unknown key", "nodes:\n  skill: {}\n", 'unknown key "nodes.skill"'],
    ["skills not a mapping", "nodes:\n  skills: [a]\n", '"nodes.skills" must be a mapping'],
    [
      "a scope that is not a list",
      "nodes:\n  skills:\n    disks: lab01\n",
      '"nodes.skills.disks" must be a list of node names',
    ],
    [
      "a __proto__ skill",
      "nodes:\n  skills:\n    __proto__: [lab01]\n",
      '"nodes.skills.__proto__" is not a skill name',
    ],
    [
      "a lifetime too short",
      "nodes:\n  manifest_ttl_seconds: 5\n",
      '"nodes.manifest_ttl_seconds" must be a whole number from 60 to 604800',
    ],
  ])("refuses %s", (_label, text, problem) => {
    expect(problemsOf(text)).toContain(problem);
  });
});
