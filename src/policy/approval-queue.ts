import { join, resolve } from "node:path";
import { type Clock, systemClock } from "../core/clock.js";
import { readSmallFile, syncFolderSync } from "../core/durable-fs.js";
import { InvalidArgumentError } from "../core/errors.js";
import { lockIsStale, tryLock } from "../core/file-lock.js";
import {
  ApprovalAlreadyAnsweredError,
  ApprovalAnswerNotOfferedError,
  ApprovalExpiredError,
  ApprovalNotFoundError,
  ApprovalQueueFullError,
  ApprovalSettledError,
} from "./approval-queue-errors.js";
import {
  createFileOnce,
  ensureFolder,
  exists,
  folderState,
  listFiles,
  modifiedAt,
  QUEUE_TEMP_PREFIX,
  removeFile,
} from "./approval-queue-files.js";
import {
  answerFileText,
  isApprovalId,
  type RecordedAnswer,
  type RecordedSettlement,
  readAnswerFile,
  readRequestFile,
  readSettlementFile,
  requestFileText,
  type SettledOutcome,
  settlementFileText,
  toApprovalRequest,
} from "./approval-queue-shape.js";
import type { ApprovalAnswer, ApprovalRequest } from "./approvals.js";

/** The queue's folder inside the data folder. */
export const APPROVALS_FOLDER = "approvals";
/** The largest queue file read; an edit plan's diff is at most 192 KiB, so real requests are far smaller. */
export const MAX_APPROVAL_FILE_BYTES = 1024 * 1024;
/** Unexpired requests the queue holds at most; a model retrying with ever-new input cannot fill the disk. */
export const MAX_QUEUED_APPROVALS = 1000;
/**
 * Age (real time) after which a temporary file or a consumed request's marker is a crash's
 * leftover and is removed. Far longer than the few milliseconds a write or a take needs.
 */
export const LEFTOVER_AGE_MS = 60_000;

/** How a take claims an answer: exclusively, and never by taking over another claim. */
const CLAIM = { staleMs: LEFTOVER_AGE_MS, takeOver: false } as const;

/** What the owner answers out of band: "always" becomes `always-chat` or `always-job` by the request's scope. */
export type OwnerAnswer = "once" | "always" | "decline";

/** An answer the queue recorded. */
export interface ApprovalQueueResult {
  readonly request: ApprovalRequest;
  readonly answer: ApprovalAnswer;
  readonly answeredAt: number;
}

/**
 * An approver backed by the queue. Its results are a subset of what the broker's `Approver`
 * may resolve, so it can be passed wherever an `Approver` is wanted.
 */
export type QueueApprover = (
  request: ApprovalRequest,
) => Promise<ApprovalAnswer | "deferred" | { readonly deferred: string }>;

/** One request as read from the folder. */
interface Entry {
  readonly request: ApprovalRequest;
  /** An answer file exists (valid or not): the request is no longer waiting. */
  readonly answered: boolean;
  /** The answer, when the answer file is valid. */
  readonly answer?: RecordedAnswer;
  /** The request was taken (or is being taken) by a call. */
  readonly taken: boolean;
  /** A settlement file exists (valid or not): what the request asked about was settled another way. */
  readonly settled: boolean;
  /** The settlement, when its file is valid. */
  readonly settlement?: RecordedSettlement;
}

type FileKind = "request" | "answer" | "taken" | "settled";

// Longer suffixes first: `.answer.json` and `.settled.json` also end in `.json`.
const SUFFIXES: ReadonlyArray<readonly [FileKind, string]> = [
  ["answer", ".answer.json"],
  ["settled", ".settled.json"],
  ["request", ".json"],
  ["taken", ".taken"],
];

/**
 * Approval requests that wait for the owner in files, so that a person can answer them
 * from another process (`skillgate approve ID`) when none can be asked in-process: an MCP
 * client without elicitation, a server. The model's next identical call then finds the
 * answer and runs.
 *
 * One request is up to four files in `<data>/approvals/`: `<id>.json` (the request, written
 * once), `<id>.answer.json` (the answer, written once), `<id>.taken` (the claim of the call
 * that used the answer) and `<id>.settled.json` (what the request asked about, an edit plan,
 * was applied or rejected another way; see {@link ApprovalQueue.settle}). Every file is created exclusively, so an answer is given once and used
 * once, even with several processes on the same folder. Each request expires at its own
 * `expiresAt`; expired requests are removed when the folder is next read. Files that are not
 * exactly what the queue writes (bad JSON, wrong shapes, too large, symbolic links) are
 * skipped, never followed and never fatal.
 */
export class ApprovalQueue {
  /** `<data>/approvals`. */
  readonly folder: string;
  readonly #clock: Clock;

  private constructor(folder: string, clock: Clock) {
    this.folder = folder;
    this.#clock = clock;
  }

  /** The queue of a data folder. Nothing is created until the first request is recorded. */
  static open(options: { dataFolder: string; clock?: Clock }): ApprovalQueue {
    return new ApprovalQueue(
      join(resolve(options.dataFolder), APPROVALS_FOLDER),
      options.clock ?? systemClock,
    );
  }

  /**
   * Stores a request to wait for the owner. Recording an id that is already stored changes
   * nothing. Throws `invalid_argument` for a request without the documented shape,
   * `approval_queue_full` at {@link MAX_QUEUED_APPROVALS}, `path_not_allowed` when the queue's
   * folder is not a real folder.
   */
  record(request: ApprovalRequest): void {
    const checked = toApprovalRequest(request, { exact: false });
    if (checked === undefined)
      throw new InvalidArgumentError("request", "not an approval request (see ApprovalRequest)");
    ensureFolder(this.folder);
    const count = this.#sweep().length;
    if (count >= MAX_QUEUED_APPROVALS) throw new ApprovalQueueFullError(count, MAX_QUEUED_APPROVALS);
    createFileOnce(this.folder, fileName(checked.id, "request"), requestFileText(checked));
  }

  /** Requests waiting for an answer, oldest first. Expired requests are removed from disk. */
  pending(): ApprovalRequest[] {
    return this.#sweep()
      .filter((entry) => !entry.answered && !entry.taken && !entry.settled)
      .map((entry) => entry.request);
  }

  /**
   * Answers a waiting request. Throws `invalid_argument` for an id that is not a request id,
   * `approval_not_found`, `approval_expired`, `approval_settled` (its edit plan was applied
   * or rejected already), `approval_already_answered`, or `approval_answer_not_offered` (say
   * "always" for `edit_skill`); nothing changes then.
   */
  answer(id: string, answer: OwnerAnswer): ApprovalQueueResult {
    if (!isApprovalId(id))
      throw new InvalidArgumentError(
        "id",
        `"${id}" is not an approval request id (a lower-case UUID, as \`skillgate approvals\` lists them)`,
      );
    const entry = this.#read(id);
    if (entry === undefined) throw new ApprovalNotFoundError(id);
    const { request } = entry;
    const now = this.#clock.now();
    if (now >= request.expiresAt) {
      this.#remove(id);
      throw new ApprovalExpiredError(id, request.expiresAt);
    }
    if (entry.settlement !== undefined)
      throw new ApprovalSettledError(id, entry.settlement.reference, entry.settlement.outcome);
    if (entry.answered || entry.taken || entry.settled) throw new ApprovalAlreadyAnsweredError(id);
    const full =
      answer === "always" ? (request.scope.kind === "chat" ? "always-chat" : "always-job") : answer;
    if (!request.options.includes(full)) throw new ApprovalAnswerNotOfferedError(id, answer, request.options);
    const recorded: RecordedAnswer = { answer: full, answeredAt: now };
    if (!createFileOnce(this.folder, fileName(id, "answer"), answerFileText(recorded)))
      throw new ApprovalAlreadyAnsweredError(id);
    // Settled while this answer was being written: the settlement wins, the answer goes.
    const settled = this.#read(id)?.settlement;
    if (settled !== undefined) {
      removeFile(this.#path(id, "answer"));
      throw new ApprovalSettledError(id, settled.reference, settled.outcome);
    }
    // The request may be gone already: used by the call it was for (a retry that found this
    // answer the moment it appeared), or swept away because it expired meanwhile. Only the
    // second is a refusal, and its orphaned answer is removed.
    if (!exists(this.#path(id, "request")) && this.#clock.now() >= request.expiresAt) {
      removeFile(this.#path(id, "answer"));
      throw new ApprovalExpiredError(id, request.expiresAt);
    }
    return { request, ...recorded };
  }

  /**
   * The answer to an earlier request for exactly this call, used up: the request must match
   * in scope, tool, tier, skill, content hash and input digest, be answered and unexpired.
   * Each answer is returned at most once across every process sharing the folder.
   */
  take(request: ApprovalRequest): ApprovalAnswer | undefined {
    if (request.inputDigest === undefined) return undefined;
    for (const entry of this.#sweep()) {
      if (entry.answer === undefined || entry.taken || entry.settled || !sameCall(entry.request, request))
        continue;
      const id = entry.request.id;
      // The exclusive marker is the claim: of two racing callers, one creates it. A claim is
      // never taken over, even from an ended owner: the sweep removes such a request instead.
      if (tryLock(this.#path(id, "taken"), CLAIM) === undefined) continue;
      // A claim counts only while the request is still there and unexpired. A caller that
      // read the entry before another one used it and removed its files finds the request
      // gone here, and only removes its own marker.
      const valid =
        exists(this.#path(id, "request")) &&
        !exists(this.#path(id, "settled")) &&
        this.#clock.now() < entry.request.expiresAt;
      this.#remove(id);
      if (valid) return entry.answer.answer;
    }
    return undefined;
  }

  /**
   * An approver for when no person can be asked in-process: the answer to an earlier,
   * answered request for the same call if there is one; else the request waits in the
   * queue and the call is deferred. A retry before the owner answered reuses the waiting
   * request (`{ deferred: id }` names it), so retries do not pile up.
   */
  deferredApprover(): QueueApprover {
    return async (request) => {
      const answer = this.take(request);
      if (answer !== undefined) return answer;
      const waiting = this.#waitingFor(request);
      if (waiting !== undefined) return { deferred: waiting.id };
      this.record(request);
      return "deferred";
    };
  }

  /**
   * Settles every request that asked about `reference` (an edit plan's id) and was not used
   * yet: the plan was applied or rejected another way (`skillgate store approve PLAN` or
   * `store reject PLAN`), so the request is no longer listed, answering it is refused with
   * `approval_settled`, and an answer already given to it is never used. Returns the
   * requests settled now; one settled before, or already used by a call, is left as it is.
   * `except` names requests left alone: the one the owner just declined keeps its decline,
   * so the model's retry is told no rather than asked again.
   */
  settle(
    reference: string,
    outcome: SettledOutcome,
    options: { readonly except?: readonly string[] } = {},
  ): ApprovalRequest[] {
    if (folderState(this.folder) !== "folder") return [];
    const settlement: RecordedSettlement = { reference, outcome, settledAt: this.#clock.now() };
    const settled: ApprovalRequest[] = [];
    for (const entry of this.#sweep()) {
      if (entry.request.reference !== reference || entry.taken || entry.settled) continue;
      if (options.except?.includes(entry.request.id) === true) continue;
      if (createFileOnce(this.folder, fileName(entry.request.id, "settled"), settlementFileText(settlement)))
        settled.push(entry.request);
    }
    return settled;
  }

  #waitingFor(request: ApprovalRequest): ApprovalRequest | undefined {
    if (request.inputDigest === undefined) return undefined;
    return this.#sweep().find(
      (entry) => !entry.answered && !entry.taken && !entry.settled && sameCall(entry.request, request),
    )?.request;
  }

  /**
   * The readable, unexpired requests, oldest first. On the way, removes what is certainly
   * garbage: expired requests, files of requests that no longer exist, a crash's leftover
   * temporary files and long-consumed requests. Unreadable files are left alone.
   */
  #sweep(): Entry[] {
    const ids = new Map<string, Set<FileKind>>();
    for (const name of listFiles(this.folder)) {
      if (name.startsWith(QUEUE_TEMP_PREFIX)) {
        if (this.#isLeftover(join(this.folder, name))) removeFile(join(this.folder, name));
        continue;
      }
      const parsed = parseFileName(name);
      if (parsed === undefined) continue;
      const kinds = ids.get(parsed.id) ?? new Set<FileKind>();
      kinds.add(parsed.kind);
      ids.set(parsed.id, kinds);
    }
    const now = this.#clock.now();
    const live: Entry[] = [];
    for (const [id, kinds] of ids) {
      if (!kinds.has("request")) {
        // A request is removed before its answer and marker; these are what is left.
        if (!exists(this.#path(id, "request"))) this.#remove(id);
        continue;
      }
      const entry = this.#read(id);
      if (entry === undefined) continue;
      if (now >= entry.request.expiresAt) this.#remove(id);
      else if (!entry.taken) live.push(entry);
      // A marker a take did not clean up belongs to a crashed process: its owner has ended,
      // or it is older than the leftover age (the one lock rule, core/file-lock.ts).
      else if (lockIsStale(this.#path(id, "taken"), LEFTOVER_AGE_MS)) this.#remove(id);
    }
    return live.sort(
      (left, right) =>
        left.request.createdAt - right.request.createdAt || left.request.id.localeCompare(right.request.id),
    );
  }

  #read(id: string): Entry | undefined {
    // A queue folder that is a symlink (or not a folder) is not the queue: never read through it.
    if (folderState(this.folder) !== "folder") return undefined;
    const text = readSmallFile(this.#path(id, "request"), MAX_APPROVAL_FILE_BYTES);
    const request = text === undefined ? undefined : readRequestFile(text, id);
    if (request === undefined) return undefined;
    const answered = exists(this.#path(id, "answer"));
    const answerText = answered
      ? readSmallFile(this.#path(id, "answer"), MAX_APPROVAL_FILE_BYTES)
      : undefined;
    const answer = answerText === undefined ? undefined : readAnswerFile(answerText, request.options);
    const settled = exists(this.#path(id, "settled"));
    const settlementText = settled
      ? readSmallFile(this.#path(id, "settled"), MAX_APPROVAL_FILE_BYTES)
      : undefined;
    const settlement = settlementText === undefined ? undefined : readSettlementFile(settlementText);
    return {
      request,
      answered,
      ...(answer !== undefined ? { answer } : {}),
      taken: exists(this.#path(id, "taken")),
      settled,
      ...(settlement !== undefined ? { settlement } : {}),
    };
  }

  /** Removes a request's files, the request first: what remains without it is never used. */
  #remove(id: string): void {
    for (const kind of ["request", "answer", "taken", "settled"] as const) removeFile(this.#path(id, kind));
    syncFolderSync(this.folder);
  }

  #isLeftover(path: string): boolean {
    const modified = modifiedAt(path);
    return modified !== undefined && Date.now() - modified > LEFTOVER_AGE_MS;
  }

  #path(id: string, kind: FileKind): string {
    return join(this.folder, fileName(id, kind));
  }
}

/** Whether a stored request was made for the same call as `request`. */
function sameCall(stored: ApprovalRequest, request: ApprovalRequest): boolean {
  return (
    stored.inputDigest !== undefined &&
    stored.inputDigest === request.inputDigest &&
    stored.scope.kind === request.scope.kind &&
    stored.scope.id === request.scope.id &&
    stored.tool === request.tool &&
    stored.tier === request.tier &&
    stored.skill === request.skill &&
    stored.hash === request.hash
  );
}

function fileName(id: string, kind: FileKind): string {
  const suffix = SUFFIXES.find(([each]) => each === kind)?.[1] ?? "";
  return `${id}${suffix}`;
}

/** The id and kind of one of the queue's file names; undefined for any other name. */
function parseFileName(name: string): { id: string; kind: FileKind } | undefined {
  for (const [kind, suffix] of SUFFIXES) {
    if (!name.endsWith(suffix)) continue;
    const id = name.slice(0, -suffix.length);
    return isApprovalId(id) ? { id, kind } : undefined;
  }
  return undefined;
}
