/**
 * The shapes the web UI reads from the HTTP API (docs/http-api.md). They mirror the server's
 * answers; fields a server may leave out are optional so an older server still renders.
 */

/** Where a listed skill comes from. */
export type SkillSource = "builtin" | "owner" | "import" | "assistant" | (string & {});

/** A problem found in a skill's content, as data. */
export interface Diagnostic {
  readonly code: string;
  readonly severity: "error" | "warning";
  readonly message: string;
  readonly path?: string;
  readonly field?: string;
  readonly hint?: string;
  /** 1-based line, when the checker knows it. */
  readonly line?: number;
  readonly column?: number;
}

/** A review lint warning: a hint for the reviewer, never a verdict. */
export interface LintWarning {
  readonly rule: string;
  readonly file: string;
  readonly line: number;
  readonly message: string;
}

/** One row of the skills list. */
export interface SkillSummary {
  readonly name: string;
  readonly description?: string;
  readonly source: SkillSource;
  readonly enabled: boolean;
  readonly hash: string;
  readonly author?: string;
  readonly runner?: string;
  readonly tier?: string;
  /** Review lint warnings of the skill. */
  readonly reviewWarnings?: number;
  readonly locked?: boolean;
  readonly updated?: string;
}

/** One file of a skill. */
export interface SkillFileEntry {
  readonly path: string;
  readonly size?: number;
}

/** A script of a skill and what the catalog read of it. */
export interface SkillScript {
  readonly path: string;
  readonly runner?: string;
  readonly language?: string;
  /** The script's `parameters_schema`, when it declares one. */
  readonly schema?: unknown;
}

/** One reason of a decision. */
export interface DecisionReason {
  readonly code: string;
  readonly severity: "error" | "warning" | "info";
  readonly message: string;
}

/** What discovery decided about a skill (registered, rejected, display_only, disabled, shadowed), and why. */
export interface SkillDecision {
  readonly decision: string;
  /** The catalog source it was found in. */
  readonly source: string;
  readonly reasons: readonly DecisionReason[];
}

/** The draft keys of SKILL.md: who drafted it, from which chats, why. */
export interface DraftKeys {
  readonly author?: string;
  readonly sourceChats?: readonly string[];
  readonly rationale?: string;
  readonly reviewWarnings?: string;
  readonly lastEdit?: string;
}

/** A skill's page. */
export interface SkillDetail extends SkillSummary {
  readonly skillFile: string;
  readonly files: readonly SkillFileEntry[];
  readonly governance?: Readonly<Record<string, unknown>>;
  readonly scripts?: readonly SkillScript[];
  /** The hash the index records; differs from `hash` after a hand edit. */
  readonly recordedHash?: string;
  readonly lintWarnings?: readonly LintWarning[];
  readonly diagnostics?: readonly Diagnostic[];
  readonly decision?: SkillDecision;
  /** The grant key an "always" answer stores for this skill. */
  readonly grant?: string;
  readonly draft?: DraftKeys;
}

/** A file's content as read. */
export interface SkillFileContent {
  readonly path: string;
  /** UTF-8 text, or base64 when the file is not text (see `encoding`). */
  readonly content: string;
  readonly encoding?: "utf8" | "base64";
  readonly size?: number;
  /** The skill's hash when it was read. */
  readonly hash?: string;
}

/** What a write answers: the skill's state after it. */
export interface ChangeResult {
  readonly name: string;
  readonly hash: string;
  readonly enabled: boolean;
  readonly diagnostics?: readonly Diagnostic[];
  readonly scriptWarnings?: readonly unknown[];
}

/** A draft waiting for the owner. */
export interface DraftSummary {
  readonly name: string;
  readonly description: string;
  readonly enabled: boolean;
  readonly locked: boolean;
  readonly hash: string;
  readonly author?: string;
  readonly sourceChats: readonly string[];
  readonly rationale?: string;
  readonly reviewWarnings?: string;
  readonly lint?: readonly LintWarning[];
  readonly updated?: string;
}

/** An edit plan as listed. */
export interface PlanSummary {
  readonly id: string;
  readonly skill: string;
  readonly baseHash: string;
  readonly resultHash: string;
  readonly reason: string;
  readonly createdAt: string;
  readonly expiresAt: string;
  readonly writes: readonly string[];
  readonly removes: readonly string[];
  readonly diffTruncated: boolean;
  readonly warnings: number;
}

/** An edit plan with its diff and the files it writes. */
export interface PlanDetail {
  readonly id: string;
  readonly skill: string;
  readonly baseHash: string;
  readonly resultHash: string;
  readonly changes: { readonly write: Readonly<Record<string, string>>; readonly remove: readonly string[] };
  readonly createdAt: string;
  readonly expiresAt: string;
  readonly diff: string;
  readonly diffTruncated: boolean;
  readonly warnings: readonly LintWarning[];
  readonly request?: { readonly reason?: string };
}

/** What waits for review, and the count the header shows. */
export interface ReviewQueue {
  readonly needsReview: number;
  readonly drafts: readonly DraftSummary[];
  readonly plans: readonly PlanSummary[];
}

/** How an ask may be answered. */
export type ApprovalAnswer = "once" | "always-chat" | "always-job" | "decline";

/** An ask a tool call is waiting on. */
export interface ApprovalRequest {
  readonly id: string;
  readonly tool: string;
  readonly tier: string;
  readonly scope: { readonly kind: "chat" | "job"; readonly id: string };
  readonly summary: string;
  readonly skill?: string;
  readonly hash?: string;
  readonly grant?: string;
  readonly warning?: string;
  readonly detail?: string;
  readonly reference?: string;
  /** The call's arguments as canonical JSON text (at most 16 KiB; a longer text is cut and ends in `…`). */
  readonly arguments?: string;
  /** The policy rule that asked. */
  readonly rule?: string;
  readonly options: readonly ApprovalAnswer[];
  readonly createdAt: number;
  readonly expiresAt: number;
}

/** A chat's issue counts. */
export interface ChatCounts {
  readonly declined: number;
  readonly expired: number;
  readonly failed: number;
  readonly timedOut: number;
}

/** One chat or job as listed. */
export interface ChatSummary {
  readonly kind: "chat" | "job";
  readonly id: string;
  readonly title: string;
  readonly owner?: string;
  readonly created: string;
  readonly updated: string;
  readonly counts: ChatCounts;
  readonly issues: number;
  readonly reviewed: boolean;
}

/** One message of a transcript. */
export interface TranscriptMessage {
  readonly role: "user" | "assistant" | "tool";
  readonly text: string;
  readonly time: string;
  readonly clippedChars: number;
}

/** A chat's transcript. */
export interface Transcript {
  readonly messages: readonly TranscriptMessage[];
  readonly totalMessages: number;
  readonly clipped: boolean;
  readonly note?: string;
}

/** One line of the audit trail. */
export interface AuditEvent {
  readonly type: string;
  readonly time: string;
  readonly requestId: string;
  readonly scope: { readonly kind: "chat" | "job"; readonly id: string };
  readonly tool: string;
  readonly tier: string;
  readonly skill?: string;
  readonly hash8?: string;
  readonly rule?: string;
  readonly decision?: string;
  readonly answer?: string;
  readonly status?: string;
  readonly latencyMs?: number;
  readonly errorKind?: string;
}

/** A page of the audit trail. */
export interface AuditPage {
  readonly events: readonly AuditEvent[];
  /** Where the next page starts, when there is one. */
  readonly next?: string;
}

/** What an import answers. */
export interface ImportResult {
  readonly name?: string;
  readonly names?: readonly string[];
  readonly hash?: string;
  readonly skills?: readonly { readonly name: string; readonly hash?: string }[];
}

/** A live update from `/api/events`. */
export interface ServerEvent {
  readonly type: string;
  readonly name?: string;
  readonly id?: string;
  readonly needsReview?: number;
}
