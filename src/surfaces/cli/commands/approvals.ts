import type { Command } from "commander";
import { systemClock } from "../../../core/clock.js";
import type { ApprovalQueueResult, OwnerAnswer } from "../../../policy/approval-queue.js";
import type { ApprovalAnswer, ApprovalRequest } from "../../../policy/approvals.js";
import { approvalQueueFromFlags } from "../context.js";
import { type CliOutput, paint, printJson, table } from "../output.js";

/**
 * `skillgate approvals [--json]`, `skillgate approve ID [--always]` and `skillgate decline ID`:
 * the owner's side of the approval queue in the data folder (see docs/approvals.md). A
 * request answered here applies to the model's next identical call.
 */
export function registerApprovals(program: Command, output: CliOutput): void {
  program
    .command("approvals")
    .description("list approval requests waiting for the owner (calls a model made that need a yes)")
    .option("--json", "print JSON")
    .action((options: { json?: boolean }, command: Command) => {
      const requests = approvalQueueFromFlags(command).pending();
      if (options.json) return printJson(output, { approvals: requests });
      if (requests.length === 0) {
        output.out("No approval requests are waiting.\n");
        return;
      }
      output.out(
        `${table(output, HEADER, requests.map(row), (_row, column) => (column === 0 ? "bold" : undefined))}\n`,
      );
      for (const request of requests) output.out(details(output, request));
      output.out(
        paint(output, "dim", "answer with: skillgate approve ID [--always]  or  skillgate decline ID\n"),
      );
    });

  program
    .command("approve")
    .description(
      "approve a waiting request: the model's next identical call runs (--always also stores the grant)",
    )
    .argument("<id>", "the request id, as `skillgate approvals` lists it")
    .option("--always", "also allow later calls of this skill at this content in the same chat or job")
    .option("--json", "print JSON")
    .action(async (id: string, options: { always?: boolean; json?: boolean }, command: Command) => {
      await answer(output, command, id, options.always ? "always" : "once", options.json === true);
    });

  program
    .command("decline")
    .description("decline a waiting request: the model's next identical call is refused")
    .argument("<id>", "the request id, as `skillgate approvals` lists it")
    .option("--json", "print JSON")
    .action(async (id: string, options: { json?: boolean }, command: Command) => {
      await answer(output, command, id, "decline", options.json === true);
    });
}

const HEADER = ["ID", "AGE", "TOOL", "SKILL", "SUMMARY", "OPTIONS", "EXPIRES IN"] as const;

async function answer(
  output: CliOutput,
  command: Command,
  id: string,
  given: OwnerAnswer,
  json: boolean,
): Promise<void> {
  // The same answer as the HTTP API's: a declined edit's plan is removed with it.
  const { answerApproval } = await import("../../../app/owner/plan-decisions.js");
  const { ownerDecisionsFromFlags } = await import("../context.js");
  const answered = await answerApproval(await ownerDecisionsFromFlags(command, output), id, given);
  const result = { request: answered.request, answer: answered.answer, answeredAt: answered.answeredAt };
  if (json) printJson(output, result);
  else
    output.out(
      `${sentence(result)}\n${answered.rejectedPlan !== undefined ? `edit plan ${answered.rejectedPlan} is removed with it\n` : ""}`,
    );
}

/** What an answer means, in one line. */
function sentence(result: ApprovalQueueResult): string {
  const { request } = result;
  const scope = `${request.scope.kind} ${request.scope.id}`;
  switch (result.answer) {
    case "decline":
      return `declined ${request.id}: ${request.summary}. The model's next identical call in ${scope} is refused.`;
    case "once":
      return `approved ${request.id} once: ${request.summary}. The model's next identical call in ${scope} runs.`;
    default:
      return `approved ${request.id} always: ${request.summary}. The next identical call in ${scope} runs and stores the grant ${request.grant ?? "-"} for ${scope}; a change to the skill asks again.`;
  }
}

function row(request: ApprovalRequest): string[] {
  const now = systemClock.now();
  return [
    request.id,
    duration(now - request.createdAt),
    request.tool,
    skillColumn(request),
    request.summary,
    request.options.map(ownerWord).join(", "),
    duration(request.expiresAt - now),
  ];
}

/** `skill@hash8`, the skill alone when the request has no hash, or `-` for a call naming no skill. */
function skillColumn(request: ApprovalRequest): string {
  if (request.skill === undefined) return "-";
  return request.hash === undefined ? request.skill : `${request.skill}@${request.hash.slice(0, 8)}`;
}

/** A destructive call's warning and an edit's diff, which the owner must see before answering. */
function details(output: CliOutput, request: ApprovalRequest): string {
  if (request.warning === undefined && request.detail === undefined) return "";
  const lines = [`\n${paint(output, "bold", request.id)}:`];
  if (request.warning !== undefined) lines.push(`  ${paint(output, "red", request.warning)}`);
  if (request.detail !== undefined) {
    if (request.reference !== undefined) lines.push(`  ${paint(output, "dim", `plan ${request.reference}`)}`);
    for (const line of request.detail.trimEnd().split("\n")) lines.push(`  ${line}`);
  }
  return `${lines.join("\n")}\n\n`;
}

/** The answer as the owner gives it on the command line. */
function ownerWord(answer: ApprovalAnswer): string {
  return answer === "always-chat" || answer === "always-job" ? "always" : answer;
}

/** A short duration: `42s`, `3m`, `2h`, `1d`; never negative. */
function duration(milliseconds: number): string {
  const seconds = Math.max(0, Math.floor(milliseconds / 1000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}
