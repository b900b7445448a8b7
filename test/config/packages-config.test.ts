import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_PACKAGES_CONFIG, readPackagesConfig } from "../../src/config/packages-config.js";

const folder = realpathSync(mkdtempSync(join(tmpdir(), "skillgate-packages-config-")));

function read(section: Record<string, unknown>): {
  config: ReturnType<typeof readPackagesConfig>;
  problems: string[];
} {
  const problems: string[] = [];
  return { config: readPackagesConfig(section, problems), problems };
}

describe("the packages section", () => {
  it("defaults to PyPI and the npm registry, each with the hosts a build may reach", () => {
    expect(read({}).config).toEqual(DEFAULT_PACKAGES_CONFIG);
  });

  it("reads an index URL (its host allowed, plus extra hosts) and an offline folder", () => {
    const { config, problems } = read({
      python: { index_url: "https://pypi.example.org:8443/simple", hosts: ["files.example.org"] },
      node: { tarballs: folder },
      keep: 5,
      build_timeout_seconds: 120,
    });
    expect(problems).toEqual([]);
    expect(config.python).toEqual({
      kind: "url",
      url: "https://pypi.example.org:8443/simple",
      hosts: ["pypi.example.org:8443", "files.example.org"],
    });
    expect(config.node).toEqual({ kind: "folder", folder });
    expect(config.keep).toBe(5);
    expect(config.buildTimeoutSeconds).toBe(120);
  });

  it.each([
    [{ python: { index_url: "https://a.example/simple", find_links: folder } }, "not both"],
    [{ python: { find_links: "relative/wheels" } }, "absolute path of an existing folder"],
    [{ python: { find_links: join(folder, "missing") } }, "absolute path of an existing folder"],
    [{ python: { index_url: "ftp://a.example/simple" } }, "http or https URL"],
    [{ python: { index_url: "http://127.0.0.1:8080/simple" } }, "not an address"],
    [{ python: { index_url: "https://user:pw@a.example/simple" } }, "no user name"],
    [{ python: { index_url: "not a url" } }, "http or https URL"],
    [{ node: { registry: "https://r.example/", hosts: ["bad host"] } }, "list of host names"],
    [{ node: { mirror: "x" } }, 'unknown key "packages.node.mirror"'],
    [{ keep: 0 }, '"packages.keep" must be a whole number'],
    [{ build_timeout_seconds: 1 }, '"packages.build_timeout_seconds" must be a whole number'],
  ])("%j is a problem and falls back to the default", (section, problem) => {
    const { config, problems } = read(section);
    expect(problems.join("\n")).toContain(problem);
    expect(config.python.kind === "url" || config.python.kind === "folder").toBe(true);
  });
});
