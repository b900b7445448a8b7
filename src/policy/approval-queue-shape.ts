import { isPlainObject, parseJsonSafely } from "../core/safe-json.js";
import type { ApprovalAnswer, ApprovalRequest } from "./approvals.js";
import { TOOL_TIERS, type ToolTier } from "./tiers.js";

/**
 * The approval queue's file formats and their strict reading. A file that does not have
 * exactly the documented shape reads as undefined, never as a partial request: the queue
 * then treats it as absent.
 */

/** The format number written into every queue file. */
export const QUEUE_FORMAT = 1;

/** An approval request id as the broker makes them: a lower-case UUID. Checked before any path use. */
const ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const ANSWERS: readonly ApprovalAnswer[] = ["once", "always-chat", "always-job", "decline"];

/** True for a string that may name a request's files: a lower-case UUID and nothing else. */
export function isApprovalId(value: unknown): value is string {
  return typeof value === "string" && ID_PATTERN.test(value);
}

/** The recorded answer to a request. */
export interface RecordedAnswer {
  readonly answer: ApprovalAnswer;
  readonly answeredAt: number;
}

/** How what a request asked about was settled without its answer: its edit plan was applied or rejected. */
export type SettledOutcome = "applied" | "rejected";

/** The record that a request was settled another way: the plan it referenced, how, and when. */
export interface RecordedSettlement {
  readonly reference: string;
  readonly outcome: SettledOutcome;
  readonly settledAt: number;
}

/** The text of a settlement file. */
export function settlementFileText(settlement: RecordedSettlement): string {
  return `${JSON.stringify({ format: QUEUE_FORMAT, ...settlement })}\n`;
}

/** A settlement file's record, when the text is a valid settlement file. */
export function readSettlementFile(text: string): RecordedSettlement | undefined {
  const file = parse(text);
  if (
    !isPlainObject(file) ||
    file.format !== QUEUE_FORMAT ||
    !hasOnly(file, ["format", "reference", "outcome", "settledAt"])
  )
    return undefined;
  const { reference, outcome, settledAt } = file;
  if (
    typeof reference !== "string" ||
    (outcome !== "applied" && outcome !== "rejected") ||
    !isTime(settledAt)
  )
    return undefined;
  return { reference, outcome, settledAt };
}

/** The text of a request file. */
export function requestFileText(request: ApprovalRequest): string {
  return `${JSON.stringify({ format: QUEUE_FORMAT, request })}\n`;
}

/** The text of an answer file. */
export function answerFileText(answer: RecordedAnswer): string {
  return `${JSON.stringify({ format: QUEUE_FORMAT, ...answer })}\n`;
}

/** A request file's request, when the text is a valid request file whose id is `id`. */
export function readRequestFile(text: string, id: string): ApprovalRequest | undefined {
  const file = parse(text);
  if (!isPlainObject(file) || file.format !== QUEUE_FORMAT || !hasOnly(file, ["format", "request"]))
    return undefined;
  const request = toApprovalRequest(file.request);
  return request?.id === id ? request : undefined;
}

/** An answer file's answer, when the text is a valid answer file and the answer one of `options`. */
export function readAnswerFile(text: string, options: readonly ApprovalAnswer[]): RecordedAnswer | undefined {
  const file = parse(text);
  if (
    !isPlainObject(file) ||
    file.format !== QUEUE_FORMAT ||
    !hasOnly(file, ["format", "answer", "answeredAt"])
  )
    return undefined;
  const { answer, answeredAt } = file;
  if (!isAnswer(answer) || !options.includes(answer) || !isTime(answeredAt)) return undefined;
  return { answer, answeredAt };
}

const REQUIRED_STRINGS = ["id", "tool", "summary"] as const;
const OPTIONAL_STRINGS = [
  "skill",
  "hash",
  "grant",
  "warning",
  "detail",
  "reference",
  "inputDigest",
  "rule",
  "arguments",
] as const;
const REQUEST_KEYS = [
  ...REQUIRED_STRINGS,
  ...OPTIONAL_STRINGS,
  "tier",
  "scope",
  "options",
  "createdAt",
  "expiresAt",
];

/**
 * A value checked to be an {@link ApprovalRequest}, copied field by field so nothing but the
 * documented fields survives; undefined when any field is missing or of the wrong type.
 * Unknown keys make a file's request invalid (`exact`, the default); a request handed over
 * in-process may carry fields added later, which are left out of the copy.
 */
export function toApprovalRequest(
  value: unknown,
  reading: { exact?: boolean } = {},
): ApprovalRequest | undefined {
  if (!isPlainObject(value) || (reading.exact !== false && !hasOnly(value, REQUEST_KEYS))) return undefined;
  if (!isApprovalId(value.id)) return undefined;
  for (const key of REQUIRED_STRINGS) if (typeof value[key] !== "string") return undefined;
  for (const key of OPTIONAL_STRINGS)
    if (value[key] !== undefined && typeof value[key] !== "string") return undefined;
  const { tier, scope, options, createdAt, expiresAt } = value;
  if (!isTier(tier) || !isTime(createdAt) || !isTime(expiresAt)) return undefined;
  if (!isPlainObject(scope) || !hasOnly(scope, ["kind", "id"])) return undefined;
  if ((scope.kind !== "chat" && scope.kind !== "job") || typeof scope.id !== "string") return undefined;
  if (!Array.isArray(options) || options.length === 0 || !options.every(isAnswer)) return undefined;
  const optional: Record<string, string> = {};
  for (const key of OPTIONAL_STRINGS) {
    const field = value[key];
    if (typeof field === "string") optional[key] = field;
  }
  return {
    id: value.id,
    tool: value.tool as string,
    tier,
    scope: { kind: scope.kind, id: scope.id },
    summary: value.summary as string,
    ...optional,
    options: [...new Set(options)],
    createdAt,
    expiresAt,
  };
}

function parse(text: string): unknown {
  try {
    return parseJsonSafely(text);
  } catch {
    return undefined;
  }
}

function hasOnly(value: Record<string, unknown>, keys: readonly string[]): boolean {
  return Object.keys(value).every((key) => keys.includes(key));
}

function isAnswer(value: unknown): value is ApprovalAnswer {
  return typeof value === "string" && (ANSWERS as readonly string[]).includes(value);
}

function isTier(value: unknown): value is ToolTier {
  return typeof value === "string" && (TOOL_TIERS as readonly string[]).includes(value);
}

function isTime(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0;
}
