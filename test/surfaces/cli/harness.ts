import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach } from "vitest";
import { runCli } from "../../../src/surfaces/cli/program.js";
import { makeTree } from "../../helpers/skill-tree.js";

/**
 * Runs the CLI in-process with captured output, inside a sandbox: its own HOME, config,
 * data and project folders, so the real home and the current folder are never read.
 */

/** What one CLI run printed and returned. */
export interface CliRun {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/** Runs `skillgate <argv>` with output captured (no colour unless asked). */
export async function runCaptured(
  argv: readonly string[],
  options: { color?: boolean } = {},
): Promise<CliRun> {
  let out = "";
  let err = "";
  const code = await runCli(argv, {
    out: (text) => {
      out += text;
    },
    err: (text) => {
      err += text;
    },
    color: options.color ?? false,
  });
  return { code, out, err };
}

/** A sandbox's folders and the global flags that point the CLI at them. */
export interface CliSandbox {
  readonly tree: string;
  readonly home: string;
  readonly config: string;
  readonly data: string;
  readonly project: string;
  /** The project's `.agents/skills`. */
  readonly skills: string;
  /** The user's `~/.agents/skills` inside the sandbox home. */
  readonly userSkills: string;
  /** `--config … --data … --root …` plus `--no-builtins` unless `builtins` is true. */
  flags(options?: { builtins?: boolean }): string[];
  /** Runs the CLI with the sandbox flags before `argv`. */
  run(argv: readonly string[], options?: { builtins?: boolean; color?: boolean }): Promise<CliRun>;
  /** Writes `<config>/config.yaml`. */
  writeConfig(text: string): void;
}

const savedEnvironment = new Map<string, string | undefined>();

afterEach(() => {
  for (const [key, value] of savedEnvironment) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  savedEnvironment.clear();
});

function setEnvironment(key: string, value: string | undefined): void {
  if (!savedEnvironment.has(key)) savedEnvironment.set(key, process.env[key]);
  if (value === undefined) delete process.env[key];
  else process.env[key] = value;
}

/** A fresh sandbox; HOME points into it until the test ends. Nothing in it exists but the tree. */
export function cliSandbox(): CliSandbox {
  const tree = makeTree("skillgate-cli-");
  const home = join(tree, "home");
  const config = join(tree, "config");
  const data = join(tree, "data");
  const project = join(tree, "project");
  setEnvironment("HOME", home);
  for (const key of ["SKILLGATE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "NO_COLOR"])
    setEnvironment(key, undefined);
  const flags = (options: { builtins?: boolean } = {}) => [
    "--config",
    config,
    "--data",
    data,
    "--root",
    project,
    ...(options.builtins ? [] : ["--no-builtins"]),
  ];
  return {
    tree,
    home,
    config,
    data,
    project,
    skills: join(project, ".agents", "skills"),
    userSkills: join(home, ".agents", "skills"),
    flags,
    run: (argv, options = {}) =>
      runCaptured([...flags(options), ...argv], options.color === undefined ? {} : { color: options.color }),
    writeConfig: (text) => {
      mkdirSync(config, { recursive: true });
      writeFileSync(join(config, "config.yaml"), text);
    },
  };
}

/** True when text looks like a stack trace was printed. */
export function hasStackTrace(text: string): boolean {
  return /\n\s+at .+\(.*:\d+:\d+\)|\n\s+at .+:\d+:\d+/.test(text);
}
