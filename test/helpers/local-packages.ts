import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { removeTree } from "../../src/core/remove-tree.js";

/**
 * Real packages made on this machine, for tests that install them with no network: wheels
 * built by Debian's pip from a tiny source package, a source archive with no wheel, and
 * `npm pack` tarballs with a lock that names them.
 */

/** pip run with no configuration of this machine's (no find-links, no index settings). */
const PIP_ENVIRONMENT = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !name.startsWith("PIP_")),
) as NodeJS.ProcessEnv;

/** Builds a pure-Python wheel of `name` (a module of the same name whose `VALUE` is `value`) into `folder`. */
export function buildWheel(folder: string, name: string, version: string, value: string): string {
  const source = mkdtempSync(join(tmpdir(), "skillgate-wheel-src-"));
  try {
    mkdirSync(join(source, name));
    writeFileSync(
      join(source, "pyproject.toml"),
      `[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n[project]\nname = "${name}"\nversion = "${version}"\n`,
    );
    writeFileSync(join(source, name, "__init__.py"), `VALUE = ${JSON.stringify(value)}\n`);
    mkdirSync(folder, { recursive: true });
    execFileSync(
      "/usr/bin/python3",
      [
        "-m",
        "pip",
        "wheel",
        "--no-deps",
        "--no-build-isolation",
        "--no-index",
        "--no-cache-dir",
        "-q",
        "-w",
        folder,
        source,
      ],
      { env: { ...PIP_ENVIRONMENT, PIP_CONFIG_FILE: "/dev/null" }, stdio: "pipe" },
    );
    return join(folder, `${name}-${version}-py3-none-any.whl`);
  } finally {
    removeTree(source);
  }
}

/** Writes a source archive of `name` (no wheel) into `folder`: what a wheel-less package looks like on an index. */
export function writeSourceArchive(folder: string, name: string, version: string): string {
  const source = mkdtempSync(join(tmpdir(), "skillgate-sdist-"));
  try {
    const root = join(source, `${name}-${version}`);
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, "setup.py"), `raise SystemExit("a build script ran")\n`);
    mkdirSync(folder, { recursive: true });
    const archive = join(folder, `${name}-${version}.tar.gz`);
    execFileSync("tar", ["-czf", archive, "-C", source, `${name}-${version}`]);
    return archive;
  } finally {
    removeTree(source);
  }
}

/**
 * Packs a tiny CommonJS npm package into `folder` (`npm pack`), with a `postinstall` script
 * that would write `marker` if install scripts ran; returns its tarball's name and integrity.
 */
export function packNpmPackage(
  folder: string,
  name: string,
  version: string,
  body: string,
  marker: string,
): { file: string; integrity: string } {
  const source = mkdtempSync(join(tmpdir(), "skillgate-npm-src-"));
  try {
    writeFileSync(
      join(source, "package.json"),
      JSON.stringify({
        name,
        version,
        main: "index.js",
        scripts: { postinstall: `node -e "require('fs').writeFileSync('${marker}','ran')"` },
      }),
    );
    writeFileSync(join(source, "index.js"), body);
    mkdirSync(folder, { recursive: true });
    const file = execFileSync("npm", ["pack", "--silent", "--pack-destination", folder, source], {
      encoding: "utf8",
      env: { ...process.env, npm_config_update_notifier: "false" },
    })
      .trim()
      .split("\n")
      .pop() as string;
    const integrity = `sha512-${createHash("sha512")
      .update(readFileSync(join(folder, file)))
      .digest("base64")}`;
    return { file, integrity };
  } finally {
    removeTree(source);
  }
}

/** A package.json depending on one package, and its lock as npm writes it for the public registry. */
export function npmProject(
  name: string,
  version: string,
  integrity: string,
): { "package.json": string; "package-lock.json": string } {
  const manifest = { name: "skill-scripts", version: "1.0.0", dependencies: { [name]: version } };
  const lock = {
    name: "skill-scripts",
    version: "1.0.0",
    lockfileVersion: 3,
    requires: true,
    packages: {
      "": manifest,
      [`node_modules/${name}`]: {
        version,
        resolved: `https://registry.npmjs.org/${name}/-/${name}-${version}.tgz`,
        integrity,
      },
    },
  };
  return {
    "package.json": JSON.stringify(manifest, null, 2),
    "package-lock.json": JSON.stringify(lock, null, 2),
  };
}
