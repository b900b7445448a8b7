import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { temporaryFolder } from "./harness.js";

/** sandboxStaticFiles() in a fresh Node process whose temporary folder is `tmp`. */
function staticFilesWith(tmp: string): { seccomp: string; passwd: string; group: string; hosts: string } {
  const module = new URL("../../../src/runners/sandbox/static-files.ts", import.meta.url).pathname;
  const child = spawnSync(
    process.execPath,
    [
      "--import",
      "tsx",
      "--input-type=module",
      "-e",
      `const { sandboxStaticFiles } = await import(${JSON.stringify(module)}); console.log(JSON.stringify(sandboxStaticFiles()));`,
    ],
    { encoding: "utf8", env: { ...process.env, TMPDIR: tmp } },
  );
  if (child.status !== 0) throw new Error(child.stderr);
  return JSON.parse(child.stdout);
}

const uid = process.getuid?.() ?? 0;

describe("sandboxStaticFiles", () => {
  it("shares one private folder per user, named by content, and reuses it", () => {
    const tmp = temporaryFolder("skillgate-static-");
    const first = staticFilesWith(tmp);
    expect(dirname(first.seccomp)).toBe(join(tmp, `skillgate-sandbox-files-${uid}`));
    expect(staticFilesWith(tmp)).toEqual(first);
  });

  it("does not use a shared folder others can write to", () => {
    const tmp = temporaryFolder("skillgate-static-");
    const shared = join(tmp, `skillgate-sandbox-files-${uid}`);
    mkdirSync(shared);
    chmodSync(shared, 0o777);
    const files = staticFilesWith(tmp);
    expect(dirname(files.seccomp)).not.toBe(shared);
    expect(dirname(files.seccomp).startsWith(join(tmp, "skillgate-sandbox-files-"))).toBe(true);
  });

  it("does not use a file whose bytes were changed", () => {
    const tmp = temporaryFolder("skillgate-static-");
    const first = staticFilesWith(tmp);
    chmodSync(first.seccomp, 0o600);
    writeFileSync(first.seccomp, Buffer.alloc(8));
    const again = staticFilesWith(tmp);
    expect(dirname(again.seccomp)).not.toBe(dirname(first.seccomp));
  });
});
