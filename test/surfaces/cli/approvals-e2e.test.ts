import { describe, expect, it } from "vitest";
import { createSkillgate } from "../../../src/app/skillgate.js";
import { ApprovalQueue } from "../../../src/policy/approval-queue.js";
import { FakeRunner } from "../../../src/testing/index.js";
import { writeSkill } from "../../helpers/skill-tree.js";
import { cliSandbox } from "./harness.js";

/**
 * Out-of-band approval end to end: a turn whose approver is the queue (no person in-process),
 * the owner answering through the CLI, and the model's next identical call.
 */

const RUN = "run_skill_script";

function setup() {
  const sandbox = cliSandbox();
  writeSkill(sandbox.skills, "backup", {
    frontMatter: {
      description: "Back up a folder.",
      metadata: {
        "skillgate.tier": "change",
        parameters_schema:
          '{"type":"object","properties":{"target":{"type":"string"}},"required":["target"]}',
      },
    },
    files: { "scripts/backup.py": "print('ok')\n" },
  });
  const queue = ApprovalQueue.open({ dataFolder: sandbox.data });
  const runner = new FakeRunner();
  const skillgate = createSkillgate({
    config: sandbox.config,
    data: sandbox.data,
    home: sandbox.home,
    roots: [sandbox.project],
    builtins: false,
    runner,
    approve: queue.deferredApprover(),
    audit: false,
  });
  const turn = skillgate.createTurn({ chatId: "chat-1" });
  const call = (target = "nas") =>
    turn.call(RUN, { skill: "backup", script: "scripts/backup.py", arguments: { target } });
  return { sandbox, queue, runner, skillgate, call };
}

/** The request id the HOST text tells the owner to approve. */
function requestIdOf(text: string): string {
  const match = /skillgate approve ([0-9a-f-]{36})/.exec(text);
  if (match?.[1] === undefined) throw new Error(`no request id in: ${text}`);
  return match[1];
}

describe("out-of-band approval through the queue and the CLI", () => {
  it("the call waits; a retry names the same request; `skillgate approve ID` lets the next identical call run once", async () => {
    const { sandbox, runner, skillgate, call } = setup();
    const first = await call();
    expect(first.status).toBe("awaiting_approval");
    expect(first.text).toMatch(/^HOST: this call needs the owner's approval and did not run\./);
    const id = requestIdOf(first.text);

    const retried = await call();
    expect(retried.status).toBe("awaiting_approval");
    expect(requestIdOf(retried.text)).toBe(id);
    const listed = JSON.parse((await sandbox.run(["approvals", "--json"])).out) as {
      approvals: { id: string; skill: string; inputDigest: string }[];
    };
    expect(listed.approvals.map((request) => request.id)).toEqual([id]);
    expect(runner.requests).toEqual([]);

    const approved = await sandbox.run(["approve", id]);
    expect(approved.code).toBe(0);
    expect(approved.out).toContain(`approved ${id} once`);

    const ran = await call();
    expect(ran.status).toBe("ok");
    expect(ran.text).toContain('ran scripts/backup.py with {"target":"nas"}');
    expect(runner.requests).toHaveLength(1);

    // The answer was used: the same call asks again, under a new request.
    const again = await call();
    expect(again.status).toBe("awaiting_approval");
    expect(requestIdOf(again.text)).not.toBe(id);
    expect(runner.requests).toHaveLength(1);
    skillgate.close();
  });

  it("an answer applies only to the same input: another call keeps waiting", async () => {
    const { sandbox, queue, runner, skillgate, call } = setup();
    const id = requestIdOf((await call("nas")).text);
    expect((await sandbox.run(["approve", id])).code).toBe(0);
    const other = await call("elsewhere");
    expect(other.status).toBe("awaiting_approval");
    expect(requestIdOf(other.text)).not.toBe(id);
    expect((await call("nas")).status).toBe("ok");
    expect(runner.requests.map((request) => request.arguments)).toEqual([{ target: "nas" }]);
    expect(queue.pending().map((request) => request.id)).toEqual([requestIdOf(other.text)]);
    skillgate.close();
  });

  it("`approve ID --always` runs the call and stores the grant: later calls with other input run without asking", async () => {
    const { sandbox, queue, runner, skillgate, call } = setup();
    const id = requestIdOf((await call()).text);
    expect((await sandbox.run(["approve", id, "--always"])).code).toBe(0);
    const ran = await call();
    expect(ran.status).toBe("ok");
    expect(ran.decision?.rule).toBe("changes-ask");
    const later = await call("elsewhere");
    expect(later.status).toBe("ok");
    expect(later.decision?.rule).toBe("granted-calls-allowed");
    expect(runner.requests.map((request) => request.arguments)).toEqual([
      { target: "nas" },
      { target: "elsewhere" },
    ]);
    expect(queue.pending()).toEqual([]);
    skillgate.close();
  });

  it("`decline ID` makes the next identical call refused, and the one after asks again", async () => {
    const { sandbox, runner, skillgate, call } = setup();
    const id = requestIdOf((await call()).text);
    expect((await sandbox.run(["decline", id])).code).toBe(0);
    const refused = await call();
    expect(refused.status).toBe("declined");
    expect(refused.text).toMatch(/^HOST: the person declined this call; it did not run\./);
    expect(runner.requests).toEqual([]);
    expect((await call()).status).toBe("awaiting_approval");
    skillgate.close();
  });
});
