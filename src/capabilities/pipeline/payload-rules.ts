import type { InvocationErrorCode } from "./invocation.js";

/**
 * The patterns the payload guard refuses (payload-guard.ts), one table per kind, so the
 * documentation (docs/capabilities.md, "What a payload may never carry") and the tests read
 * the same list. Keys are compared after folding: lower case, without `_`, `-`, `.` and spaces.
 */

/** Folds a key for comparison: `Runtime_Mode`, `runtime-mode` and `runtimeMode` are one. */
export function foldKey(key: string): string {
  return key.toLowerCase().replace(/[\s_.-]/g, "");
}

/** Keys that by their name carry something a payload may never carry. */
export const FORBIDDEN_KEYS: ReadonlyMap<string, InvocationErrorCode> = new Map<string, InvocationErrorCode>([
  // Runtime-mode and gate overrides: the mode is the caller's, never the payload's.
  ...[
    "runtimemode",
    "runtime",
    "runtimegate",
    "allowedmodes",
    "disallowteamworker",
    "requiresinteractiveuser",
    "turnmode",
    "executionmode",
    "execution",
    "permissions",
    "sandbox",
  ].map((key) => [key, "payload_mode_override"] as const),
  // Environment names or values.
  ...["env", "environment", "envvars", "environmentvariables", "envvar"].map(
    (key) => [key, "payload_env"] as const,
  ),
  // Command templates.
  ...["command", "commands", "cmd", "commandtemplate", "commandline", "exec", "argv", "entry"].map(
    (key) => [key, "payload_command_template"] as const,
  ),
  // Shell snippets.
  ...["shell", "shellcommand", "script", "scriptsource", "bash", "sh", "powershell"].map(
    (key) => [key, "payload_shell"] as const,
  ),
  // Skill file paths.
  ...[
    "skillpath",
    "skillfile",
    "skilldir",
    "skillfolder",
    "skillmd",
    "skillroot",
    "manifest",
    "manifestpath",
  ].map((key) => [key, "payload_skill_path"] as const),
]);

/** A skill's own file: a path whose last part is `SKILL.md` (any case), or a `skill://` URI. */
export const SKILL_FILE = /(^|[\\/])skill\.md$/i;
export const SKILL_URI = /^skill:\/\//i;

/** `NAME=value`: an environment assignment. */
export const ENV_ASSIGNMENT = /(^|\s)[A-Za-z_][A-Za-z0-9_]*=\S/;
/** `$NAME`, `${NAME}` and `%NAME%`: references to environment variables (upper-case names). */
export const ENV_REFERENCE = /\$[A-Z_][A-Z0-9_]*\b|\$\{[A-Z_][A-Z0-9_]*\}|%[A-Z_][A-Z0-9_]*%/;
/** Names whose values are secrets: their values are refused from 6 characters up. */
export const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE/i;
/** Any other environment value is refused from this many characters (a path value is judged as a path). */
export const LONG_ENV_VALUE = 16;

/** Template placeholders: `{{x}}`, `${x}`, `<%= x %>`, `#{x}`. */
export const COMMAND_TEMPLATE: readonly RegExp[] = [/\{\{[^}]*\}\}/, /\$\{[^}]*\}/, /<%.*?%>/s, /#\{[^}]*\}/];

/** Words that start a command after a shell operator or at the start of a line with an argument. */
const COMMAND_WORDS =
  "sudo|su|rm|curl|wget|chmod|chown|nc|ncat|socat|eval|exec|bash|sh|zsh|dash|ksh|fish|python[0-9.]*|node|perl|ruby|php|powershell|pwsh|cmd|osascript|mkfifo|dd|tee|xargs|kill|pkill";

/** Shell snippets: substitutions, pipes into a shell, chained commands, redirections to host paths, a shebang. */
export const SHELL_SNIPPET: readonly RegExp[] = [
  /\$\([^)]*\)/,
  /`[^`\n]+`/,
  new RegExp(`(\\|\\||&&|[;|&])\\s*(${COMMAND_WORDS})\\b`),
  new RegExp(`^\\s*(${COMMAND_WORDS})\\s+[-/~.$]`, "m"),
  /\b(sh|bash|zsh|dash|ksh|python[0-9.]*|node|perl|ruby)\s+-(c|e)\b/,
  /\bcmd(\.exe)?\s+\/c\b/i,
  /(^|\s)(\d?>>?|&>)\s*[/~]/,
  /^#!\s*\//,
];

/** A string that names a host path: absolute, home-relative, a file URI, a drive letter, UNC. */
export const HOST_PATH_START = /^(\/|~(\/|$)|file:|[A-Za-z]:[\\/]|\\\\)/i;
/** A `..` segment anywhere. */
export const PARENT_SEGMENT = /(^|[\\/])\.\.([\\/]|$)/;
