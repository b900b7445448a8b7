import type { LintRule, LintRuleId, RuleContext } from "./lint-types.js";
import type { LintLanguage, ScriptSource } from "./script-source.js";

/**
 * The review lint rules. Each is a handful of regular expressions over a script's lines:
 * cheap, explainable, and wrong sometimes in both directions. They point a reviewer at a
 * line worth reading; they prove nothing, and a clean result proves nothing either.
 */

type Patterns = Partial<Record<LintLanguage, readonly RegExp[]>>;

/** Lines of `script` matching any pattern for its language, with `message`. */
function matching(
  script: ScriptSource,
  patterns: Patterns,
  message: string,
): { line: number; message: string }[] {
  const list = patterns[script.language] ?? [];
  const found: { line: number; message: string }[] = [];
  script.lines.forEach((text, index) => {
    if (list.some((pattern) => pattern.test(text))) found.push({ line: index + 1, message });
  });
  return found;
}

// A plain string literal: no interpolation, no f-string prefix.
const PY_LITERAL = `(?:'[^'{}%]*'|"[^"{}%]*")`;

const PASSTHROUGH: Patterns = {
  python: [
    // shell=True unless the command on the same line is one plain literal.
    new RegExp(String.raw`^(?!.*\(\s*${PY_LITERAL}\s*,.*shell\s*=\s*True).*\bshell\s*=\s*True`),
    new RegExp(String.raw`\bos\.(?:system|popen)\s*\((?!\s*${PY_LITERAL}\s*\))`),
    new RegExp(String.raw`\bsubprocess\.(?:getoutput|getstatusoutput)\s*\((?!\s*${PY_LITERAL}\s*\))`),
  ],
  javascript: [
    // exec / execSync of a template with ${…}, a concatenation or a variable (not a regex's .exec).
    /(?:^|[^.\w]|\b(?:child_process|childProcess|cp)\.)exec(?:Sync)?\s*\(\s*(?:`[^`]*\$\{|["'][^"']*["']\s*\+|[A-Za-z_$][\w$.]*\s*[,)+])/,
    /\bshell\s*:\s*true\b/,
  ],
  shell: [
    // eval of a variable ("$1", $cmd, "$@"), not of a command substitution "$(…)".
    /\beval\b.*\$(?:\{?[A-Za-z_0-9@*#?])/,
    // sh -c / bash -c with a variable in the command text.
    /\b(?:ba|z|da)?sh\s+-c\s+.*\$(?:\{?[A-Za-z_0-9@*])/,
    // A positional argument run as the command itself.
    /^\s*(?:exec\s+)?"?\$(?:[0-9@*]|\{[0-9]+\})"?(?:\s|$)/,
  ],
};

const CHANGES: Patterns = {
  python: [
    /\bopen\s*\([^)]*,\s*(?:mode\s*=\s*)?['"][rbt]*[wax+]/,
    /\bos\.(?:remove|unlink|rmdir|removedirs|rename|replace|makedirs|mkdir|chmod|chown|truncate|kill|symlink|link)\s*\(/,
    /\bshutil\.(?:rmtree|move|copy\w*)\s*\(/,
    /\.(?:write_text|write_bytes|unlink|rmdir|mkdir|touch|rename|symlink_to)\s*\(/,
    /\b(?:requests|httpx|session|client)\.(?:post|put|patch|delete)\s*\(/i,
    /\bmethod\s*=\s*['"](?:POST|PUT|PATCH|DELETE)['"]/i,
    /\[\s*['"](?:rm|mv|rmdir|kill|pkill|reboot|shutdown)['"]/,
    /\[\s*['"]git['"]\s*,\s*['"](?:push|commit|reset|checkout|merge|rebase|tag|clean)['"]/,
    /\[\s*['"]systemctl['"]\s*,\s*['"](?:start|stop|restart|reload|enable|disable)['"]/,
    /['"]\s*(?:rm|mv)\s+-|['"]git\s+push\b|['"]systemctl\s+(?:start|stop|restart|reload|enable|disable)\b/,
  ],
  javascript: [
    /\b(?:writeFile|appendFile|unlink|rm|rmdir|rename|mkdir|copyFile|cp|truncate|chmod|chown|symlink|createWriteStream)(?:Sync)?\s*\(/,
    /\bmethod\s*:\s*['"](?:POST|PUT|PATCH|DELETE)['"]/i,
    /\baxios\.(?:post|put|patch|delete)\s*\(/,
    /['"`]\s*(?:rm|mv)\s+-|['"`]git\s+push\b|['"`]systemctl\s+(?:start|stop|restart|reload|enable|disable)\b/,
  ],
  shell: [
    /(?:^\s*|[;&|]\s*|\b(?:sudo|then|do|else|xargs)\s+)(?:rm|mv|cp|mkdir|rmdir|chmod|chown|dd|truncate|tee|kill|pkill|killall|reboot|shutdown|ln|touch)\s/,
    /\bsed\s+(?:-[a-zA-Z]*i|--in-place)/,
    /\bgit\s+(?:push|commit|reset|checkout|merge|rebase|tag|clean)\b/,
    /\bsystemctl\s+(?:start|stop|restart|reload|enable|disable|mask|kill)\b/,
    /\bdocker\s+(?:rm|rmi|stop|kill|run|restart|exec|compose\s+(?:up|down))\b/,
    /\bkubectl\s+(?:apply|delete|scale|rollout|patch|edit|create|replace)\b/,
    /\bcurl\b.*(?:-X\s*(?:POST|PUT|PATCH|DELETE)|--request\s+(?:POST|PUT|PATCH|DELETE)|\s--data\b|\s-d\s|\s-F\s|--upload-file|\s-T\s)/,
    // Output redirected into a file (not 2>&1, not /dev/null).
    /(?:^|\s)>{1,2}\s*(?!&|\/dev\/null)["'$\w./~]/,
  ],
};

const ARGUMENTS_READ: Patterns = {
  python: [/SKILLGATE_SKILL_ARGS/, /\bsys\.stdin\b/, /\bjson\.load\s*\(\s*sys\.stdin/],
  javascript: [
    /SKILLGATE_SKILL_ARGS/,
    /\breadFileSync\s*\(\s*(?:0|["']\/dev\/stdin["'])/,
    /\bprocess\.stdin\b/,
  ],
  shell: [/SKILLGATE_SKILL_ARGS/, /\$\(\s*cat\s*(?:-\s*)?\)/, /^\s*(?:read|IFS=\S*\s+read)\s/],
};

const CHECKS: Patterns = {
  python: [/\bisinstance\s*\(/, /\braise\b/, /\bjsonschema\b/, /\bpydantic\b/, /\bassert\b/],
  javascript: [
    /\btypeof\b/,
    /\bthrow\b/,
    /\bArray\.isArray\b/,
    /\bNumber\.is(?:Finite|Integer|SafeInteger)\b/,
    /\binstanceof\b/,
    /\bajv\b/i,
    /\bzod\b|\bz\.object\b/,
    /\.safeParse\s*\(/,
  ],
  shell: [/\[\[.*=~/, /\bcase\b.*\bin\b/, /\bjq\s+-e\b/, /^\s*if\s+\[/, /\|\|\s*(?:fail|die|exit)\b/],
};

const NETWORK: Patterns = {
  python: [
    /^\s*(?:import|from)\s+(?:requests|httpx|aiohttp|urllib3|urllib\.request|http\.client|socket|ftplib|smtplib|paramiko)\b/,
    /^\s*from\s+urllib\s+import\s+.*\brequest\b/,
    /\b(?:requests|httpx)\.(?:get|post|put|patch|delete|head|request|Session|Client)\b/,
    /\burllib\.request\.|\burlopen\s*\(/,
  ],
  javascript: [
    /\bfetch\s*\(/,
    /\baxios\b/,
    /(?:require\s*\(\s*|from\s+|import\s*\(\s*)["'](?:node:)?(?:https?|http2|net|tls|dgram)["']/,
    /\bundici\b|\bgot\s*\(/,
  ],
  shell: [
    /(?:^\s*|[;&|(`]\s*|\$\(\s*|\b(?:sudo|then|do|else|exec)\s+)(?:curl|wget|nc|ncat|telnet|ssh|scp|rsync|ftp)(?![\w-])/,
  ],
};

/** Rule: an argument reaches a shell. */
export const commandPassthrough: LintRule = ({ script }) => {
  if (
    script.language === "javascript" &&
    !/child_process/.test(script.text) &&
    !/\bexeca?\b/.test(script.text)
  )
    return [];
  return matching(
    script,
    PASSTHROUGH,
    "a value reaches a shell here, so an argument (or text the model read) could run any command; pass a list of arguments to the program instead",
  );
};

/** Rule: a `read` tier on a script that looks like it changes something. */
export const readTierChanges: LintRule = ({ script, governance }) => {
  if (governance.tier !== "read") return [];
  return matching(
    script,
    CHANGES,
    "the skill's tier is read, so calls run without asking, but this line looks like it changes something (writes, deletes, sends); use tier change or destructive",
  );
};

/** Rule: the arguments are read with no schema declared for the script and no visible checks. */
export const unvalidatedArguments: LintRule = ({ script, governance }) => {
  const schema = governance.parametersSchema;
  if (
    schema.kind === "shared" ||
    (schema.kind === "per-script" && Object.hasOwn(schema.schemas, script.file))
  )
    return [];
  if ((CHECKS[script.language] ?? []).some((pattern) => pattern.test(script.text))) return [];
  return matching(
    script,
    ARGUMENTS_READ,
    "the script reads its arguments, but the skill declares no parameters_schema for it and the script checks nothing visible; validate every argument",
  ).slice(0, 1);
};

/** Rule: a network call from a `node` script, or from a sandboxed script with no network. */
export const networkCall: LintRule = ({ script, governance }) => {
  const { execution, allowedDomains, network } = governance;
  let message: string;
  if (execution === "node") {
    message =
      "a network call from a node script: it runs on a managed server, with that server's network and reach, not in a sandbox";
  } else if (execution === "sandbox" && allowedDomains.length === 0) {
    message =
      "a network call, but the skill lists no skillgate.allowed-domains, so its sandbox has no network; list the hosts it needs";
  } else if (execution === "queue" && network === "none") {
    message =
      "a network call, but skillgate.network is none, so the queued script's container has no network";
  } else {
    return [];
  }
  return matching(script, NETWORK, message).slice(0, 1);
};

/** Every rule by id, in report order. */
export const RULES: Readonly<Record<LintRuleId, LintRule>> = {
  "command-passthrough": commandPassthrough,
  "read-tier-changes": readTierChanges,
  "unvalidated-arguments": unvalidatedArguments,
  "network-call": networkCall,
};

/** Runs every rule on one script. */
export function runRules(context: RuleContext): { rule: LintRuleId; line: number; message: string }[] {
  const found: { rule: LintRuleId; line: number; message: string }[] = [];
  for (const [rule, check] of Object.entries(RULES) as [LintRuleId, LintRule][])
    for (const hit of check(context)) found.push({ rule, ...hit });
  return found;
}
