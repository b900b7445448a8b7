import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll } from "vitest";

/**
 * Every test file runs with a home of its own (vitest `setupFiles`, see vitest.config.ts):
 * `HOME`, the XDG config and data folders and `SKILLGATE_HOME` point into a fresh temporary
 * folder, removed after the file. So no test reads the skills, configuration, store or
 * extensions of the person running the suite (src/core/folders.ts lists every variable
 * skillgate reads for its folders), and child processes that inherit the environment get the
 * same private home. Tokens a user may have set are cleared so no test uses them. PATH keeps
 * only folders outside the person's own home: a version manager's shims there (pyenv, nvm)
 * would change which interpreter every test's scripts run with; the tests of interpreter
 * resolution make their own PATH.
 */

/** The variables a test home replaces, with where each points inside it. */
const HOME_VARIABLES = {
  HOME: "",
  USERPROFILE: "",
  XDG_CONFIG_HOME: ".config",
  XDG_DATA_HOME: join(".local", "share"),
  XDG_CACHE_HOME: ".cache",
  XDG_STATE_HOME: join(".local", "state"),
  SKILLGATE_HOME: "skillgate-home",
} as const;

/** Settings of the person running the suite that would change what a test sees. */
const CLEARED_VARIABLES = [
  "SKILLGATE_MCP_TOKEN",
  "SKILLGATE_SERVE_TOKEN",
  "SKILLGATE_TOKEN",
  "SKILLGATE_GITHUB_API",
  "GITHUB_TOKEN",
] as const;

const saved = new Map<string, string | undefined>();
// Both the HOME the suite was started with and the account's own home (from the password
// database): a run with HOME pointed elsewhere still has the account's shims on its PATH.
const personalHomes = [process.env.HOME, accountHome()].filter(
  (folder): folder is string => folder !== undefined && folder !== "" && folder !== "/",
);
saved.set("PATH", process.env.PATH);
if (process.env.PATH !== undefined)
  process.env.PATH = process.env.PATH.split(delimiter)
    .filter((folder) => !personalHomes.some((own) => folder === own || folder.startsWith(`${own}/`)))
    .join(delimiter);
const home = realpathSync(mkdtempSync(join(tmpdir(), "skillgate-test-home-")));

for (const [name, relative] of Object.entries(HOME_VARIABLES)) {
  saved.set(name, process.env[name]);
  const folder = join(home, relative);
  mkdirSync(folder, { recursive: true });
  process.env[name] = folder;
}
for (const name of CLEARED_VARIABLES) {
  saved.set(name, process.env[name]);
  delete process.env[name];
}

afterAll(() => {
  for (const [name, value] of saved) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  rmSync(home, { recursive: true, force: true });
});

/** The account's home folder from the password database, or undefined where there is none. */
function accountHome(): string | undefined {
  try {
    return userInfo().homedir;
  } catch {
    return undefined;
  }
}
