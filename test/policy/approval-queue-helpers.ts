import { randomUUID } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { type Clock, ManualClock } from "../../src/core/clock.js";
import { isSkillgateError } from "../../src/core/errors.js";
import { APPROVALS_FOLDER, ApprovalQueue } from "../../src/policy/approval-queue.js";
import type { ApprovalRequest } from "../../src/policy/approvals.js";
import { makeTree } from "../helpers/skill-tree.js";

/** Shared by the approval queue's tests: a queue on a fresh folder, requests, and checks. */

export const START = Date.UTC(2026, 0, 2, 3, 4, 5);
export const TEN_MINUTES = 10 * 60 * 1000;

/** A queue on a fresh data folder, with a clock that moves only when told. */
export function setup() {
  const tree = makeTree("skillgate-approvals-");
  const data = join(tree, "data");
  const clock = new ManualClock(START);
  const queue = ApprovalQueue.open({ dataFolder: data, clock });
  return { tree, data, folder: join(data, APPROVALS_FOLDER), clock, queue };
}

/** A change-tier run_skill_script request in chat-1, as the broker makes them. */
export function makeRequest(clock: Clock, overrides: Partial<ApprovalRequest> = {}): ApprovalRequest {
  const now = clock.now();
  return {
    id: randomUUID(),
    tool: "run_skill_script",
    tier: "change",
    scope: { kind: "chat", id: "chat-1" },
    summary: "run scripts/backup.py of backup",
    skill: "backup",
    hash: "ab".repeat(32),
    grant: "skill:backup@abababab",
    inputDigest: "cd".repeat(32),
    options: ["once", "always-chat", "decline"],
    createdAt: now,
    expiresAt: now + TEN_MINUTES,
    ...overrides,
  };
}

/** The same call made again: the broker gives every ask a new id. */
export function retry(request: ApprovalRequest): ApprovalRequest {
  return { ...request, id: randomUUID() };
}

/** The stable code of what `action` threw, or undefined when it did not throw. */
export function codeOf(action: () => unknown): string | undefined {
  try {
    action();
  } catch (error) {
    return isSkillgateError(error) ? error.code : `not a SkillgateError: ${String(error)}`;
  }
  return undefined;
}

/** The names in `folder`, sorted; none when it does not exist. */
export function filesIn(folder: string): string[] {
  return existsSync(folder) ? readdirSync(folder).sort() : [];
}

/** A valid request file's text for `request`. */
export function requestFile(request: ApprovalRequest): string {
  return JSON.stringify({ format: 1, request });
}
