import type { Command } from "commander";
import { escapeTerminalControls } from "../../../core/terminal-text.js";
import type { ApprovalRequest } from "../../../policy/approvals.js";
import { listDrafts } from "../../../store/drafts/index.js";
import { diffPlan, getPlan, listPlans } from "../../../store/edits/index.js";
import { openStoreFromFlags, ownerDecisionsFromFlags } from "../context.js";
import { type CliOutput, paint, printJson, table } from "../output.js";

/**
 * `skillgate store drafts | plans | diff | approve | reject`: the owner's side of what the
 * assistant wrote. Drafts are enabled with `store enable NAME --hash H`; edit plans are
 * read as a diff and approved or rejected.
 */
export function registerStoreReview(store: Command, output: CliOutput): void {
  store
    .command("drafts")
    .description("list the skills the assistant drafted, with their chats, rationale and review warnings")
    .option("--json", "print JSON")
    .action(async (options: { json?: boolean }, command: Command) => {
      const drafts = await listDrafts(await openStoreFromFlags(command));
      if (options.json) return printJson(output, { drafts });
      if (drafts.length === 0) return output.out("No drafts.\n");
      for (const draft of drafts) {
        const state = draft.enabled
          ? paint(output, "green", "enabled")
          : draft.locked
            ? "locked"
            : paint(output, "yellow", "waiting for review");
        output.out(
          `${paint(output, "bold", draft.name)} (${state}) hash ${draft.hash}\n  ${draft.description}\n`,
        );
        if (draft.sourceChats.length > 0) output.out(`  from chats: ${draft.sourceChats.join(", ")}\n`);
        if (draft.rationale) output.out(`  rationale: ${draft.rationale}\n`);
        if (draft.reviewWarnings)
          output.out(`  ${paint(output, "yellow", "review warnings")}: ${draft.reviewWarnings}\n`);
      }
    });

  store
    .command("plans")
    .description("list the edit plans waiting for your approval")
    .option("--json", "print JSON")
    .action(async (options: { json?: boolean }, command: Command) => {
      const plans = await listPlans(await openStoreFromFlags(command));
      if (options.json) return printJson(output, { plans });
      if (plans.length === 0) return output.out("No edit plans are waiting.\n");
      const rows = plans.map((plan) => [
        plan.id,
        plan.skill,
        String(plan.writes.length + plan.removes.length),
        plan.expiresAt,
        plan.reason.slice(0, 60),
      ]);
      output.out(`${table(output, ["PLAN", "SKILL", "FILES", "EXPIRES", "REASON"], rows)}\n`);
    });

  store
    .command("diff")
    .description("show the unified diff of an edit plan: exactly what approving it writes")
    .argument("<plan>")
    .option("--json", "print JSON (the whole plan)")
    .action(async (id: string, options: { json?: boolean }, command: Command) => {
      const opened = await openStoreFromFlags(command);
      if (options.json) return printJson(output, await getPlan(opened, id));
      // A plan's files may be an assistant's text: on a terminal their controls are shown escaped.
      const planned = await diffPlan(opened, id);
      const diff = process.stdout.isTTY === true ? escapeTerminalControls(planned) : planned;
      output.out(output.color ? colourDiff(output, diff) : diff.endsWith("\n") ? diff : `${diff}\n`);
    });

  store
    .command("approve")
    .description(
      "apply an edit plan exactly as shown by `store diff` (refused with skill_changed if the skill moved since)",
    )
    .argument("<plan>")
    .option("--json", "print JSON")
    .action(async (id: string, options: { json?: boolean }, command: Command) => {
      const { approvePlan } = await import("../../../app/owner/plan-decisions.js");
      const applied = await approvePlan(await ownerDecisionsFromFlags(command, output), id);
      // The notification is best effort and bounded by its timeout; the command waits so it is sent.
      await applied.reported;
      if (options.json)
        return printJson(output, {
          plan: applied.plan.id,
          result: applied.result,
          settledApprovals: ids(applied.settled),
        });
      output.out(
        `${applied.plan.skill}: plan ${id} applied; hash ${applied.result.hash}; revision ${applied.result.revision}\n${settledLine(applied.settled)}`,
      );
    });

  store
    .command("reject")
    .description("reject an edit plan: it is removed and can never be applied")
    .argument("<plan>")
    .option("--json", "print JSON")
    .action(async (id: string, options: { json?: boolean }, command: Command) => {
      const { rejectPlan } = await import("../../../app/owner/plan-decisions.js");
      const { plan, settled } = await rejectPlan(await ownerDecisionsFromFlags(command, output), id);
      if (options.json)
        return printJson(output, { plan: plan.id, rejected: true, settledApprovals: ids(settled) });
      output.out(`${plan.skill}: plan ${id} rejected\n${settledLine(settled)}`);
    });
}

function ids(requests: readonly ApprovalRequest[]): string[] {
  return requests.map((request) => request.id);
}

/** The approval requests the plan's answer settled, one line each (nothing when none). */
function settledLine(requests: readonly ApprovalRequest[]): string {
  return requests
    .map(
      (request) =>
        `approval request ${request.id} (${request.scope.kind} ${request.scope.id}) is settled with it\n`,
    )
    .join("");
}

function colourDiff(output: CliOutput, diff: string): string {
  return `${diff
    .split("\n")
    .map((line) =>
      line.startsWith("+") && !line.startsWith("+++")
        ? paint(output, "green", line)
        : line.startsWith("-") && !line.startsWith("---")
          ? paint(output, "red", line)
          : line,
    )
    .join("\n")}\n`;
}
