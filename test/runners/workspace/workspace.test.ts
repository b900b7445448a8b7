import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkWorkspace } from "../../../src/runners/workspace/workspace.js";
import { runnerTree } from "../helpers.js";

describe("checkWorkspace", () => {
  it("takes a project folder, and resolves links in its path for what is mounted", () => {
    const tree = runnerTree();
    const real = join(tree.root, "real");
    mkdirSync(real);
    symlinkSync(real, join(tree.root, "named"));
    const checked = checkWorkspace({ path: join(tree.root, "named"), access: "write" }, [tree.data], "s.py");
    expect(checked).toEqual({
      ok: true,
      workspace: { path: join(tree.root, "named"), access: "write", source: real },
    });
  });

  it("refuses what is not a project folder, with workspace_not_allowed and why", () => {
    const tree = runnerTree();
    mkdirSync(join(tree.data, "inner"), { recursive: true });
    writeFileSync(join(tree.root, "file.txt"), "x");
    symlinkSync("/usr", join(tree.root, "to-usr"));
    symlinkSync(tree.data, join(tree.root, "to-data"));
    const cases: [string, RegExp][] = [
      ["relative/path", /is not an absolute path/],
      [join(tree.root, "missing"), /does not exist/],
      [join(tree.root, "file.txt"), /is not a folder/],
      ["/", /is \/, which stays private/],
      ["/tmp", /is \/tmp, which stays private/],
      ["/usr/lib", /is in \/usr, a folder the sandbox provides itself/],
      ["/etc", /is in \/etc/],
      ["/proc/self", /is in \/proc/],
      [join(tree.root, "to-usr"), /is in \/usr/],
      [tree.root, /holds or is inside skillgate's own configuration or data folder/],
      [join(tree.data, "inner"), /holds or is inside skillgate's own/],
      [join(tree.root, "to-data"), /holds or is inside skillgate's own/],
    ];
    for (const [path, reason] of cases) {
      const checked = checkWorkspace({ path, access: "read" }, [tree.data], "scripts/s.py");
      expect(checked.ok, path).toBe(false);
      if (checked.ok) continue;
      expect(checked.refusal.code, path).toBe("workspace_not_allowed");
      expect(checked.refusal.message, path).toMatch(/^HOST: the workspace /);
      expect(checked.refusal.message, path).toMatch(reason);
      expect(checked.refusal.message, path).toMatch(/so scripts\/s\.py did not run/);
    }
  });
});
