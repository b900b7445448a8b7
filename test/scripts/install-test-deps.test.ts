import { spawnSync } from "node:child_process";
import { chmodSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeTree } from "../helpers/skill-tree.js";

/**
 * scripts/install-test-deps.sh, which `npm test` runs first (pretest): with everything
 * installed it does nothing; with a tool missing and no way to become root, it stops and prints
 * the one command to run. Run against a PATH of stubs, so it never installs anything here.
 */

const repository = join(import.meta.dirname, "..", "..");
const script = join(repository, "scripts", "install-test-deps.sh");
const TOOLS = [
  "python3",
  "bash",
  "bwrap",
  "socat",
  "prlimit",
  "setpriv",
  "unshare",
  "mount",
  "curl",
  "openssl",
  "script",
  "chromium",
  "tar",
  "npm",
  "redis-server",
];

/** A folder of commands: the real ones the script itself runs, and stubs for `stubs`. */
function pathWith(stubs: readonly string[]): string {
  const folder = makeTree("skillgate-install-path-");
  chmodSync(folder, 0o755);
  for (const real of ["bash", "id", "sort", "env", "readlink", "true"])
    symlinkSync(which(real), join(folder, real));
  for (const stub of stubs) {
    if (stub === "bash") continue;
    writeFileSync(join(folder, stub), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
  }
  // sudo that would ask for a password: `sudo -n true` fails, as for a user without rights.
  writeFileSync(join(folder, "sudo"), "#!/bin/sh\nexit 1\n", { mode: 0o755 });
  return folder;
}

function which(command: string): string {
  const found = spawnSync("sh", ["-c", `command -v ${command}`], { encoding: "utf8" }).stdout.trim();
  if (found === "") throw new Error(`${command} is not installed`);
  return found;
}

/** Runs the script with only `path` on the PATH, as an unprivileged user (nobody, when the suite runs as root). */
function runScript(path: string) {
  const asRoot = process.getuid?.() === 0;
  const command = asRoot ? which("setpriv") : join(path, "bash");
  const argv = asRoot
    ? ["--reuid=65534", "--regid=65534", "--clear-groups", join(path, "bash"), script]
    : [script];
  return spawnSync(command, argv, { env: { PATH: path }, encoding: "utf8", cwd: repository });
}

describe("scripts/install-test-deps.sh", () => {
  it("changes nothing and succeeds when every tool is installed", () => {
    const result = runScript(pathWith(TOOLS));
    expect(result.stderr).not.toContain("the tests need");
    expect(result.stdout).toContain("install-test-deps: everything is installed");
    expect(result.status).toBe(0);
  });

  it("without root or password-less sudo, stops and prints the one command to run", () => {
    const result = runScript(pathWith(TOOLS.filter((tool) => tool !== "socat" && tool !== "curl")));
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(
      "install-test-deps: the tests need curl socat (Debian packages); install them once with:\n" +
        "  sudo bash scripts/install-test-deps.sh\n",
    );
  });
});
