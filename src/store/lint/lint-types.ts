import type { Governance } from "../../skill/governance.js";
import type { ScriptSource } from "./script-source.js";

/** The review lint rules (docs/drafts-and-edits.md, "Review lint"). */
export type LintRuleId =
  /** An argument value reaches a shell (`shell=True`, `os.system`, `exec` of a built string, `eval "$1"`). */
  | "command-passthrough"
  /** The skill's tier is `read`, but a script looks like it changes something. */
  | "read-tier-changes"
  /** A script reads its arguments with no schema declared for it and no visible checks. */
  | "unvalidated-arguments"
  /** A network call from a `node` script, or from a sandboxed one that declares no hosts. */
  | "network-call";

/** Every rule, in the order warnings are reported. */
export const LINT_RULES: readonly LintRuleId[] = [
  "command-passthrough",
  "read-tier-changes",
  "unvalidated-arguments",
  "network-call",
];

/** One heuristic warning: a hint for the person who reviews the skill, never a verdict. */
export interface LintWarning {
  readonly rule: LintRuleId;
  /** The file, inside the skill. */
  readonly file: string;
  /** 1-based line the warning points at. */
  readonly line: number;
  readonly message: string;
}

/** What a rule is given: one script and the skill's governance. */
export interface RuleContext {
  readonly script: ScriptSource;
  readonly governance: Governance;
}

/** A rule: the lines (1-based) it flags in one script, each with its message. */
export type LintRule = (context: RuleContext) => { line: number; message: string }[];
