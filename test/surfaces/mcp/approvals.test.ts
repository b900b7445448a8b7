import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ElicitRequest, ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { ApprovalQueue } from "../../../src/policy/approval-queue.js";
import { runCaptured } from "../cli/harness.js";
import { connectClient, type ElicitHandler, mcpTree, openHost, resultText } from "./harness.js";

/** Asks reach the person by elicitation when the client can be asked, else wait for `skillgate approve`. */

const echoCall = {
  name: "run_skill_script",
  arguments: { skill: "echo", script: "scripts/echo.py", arguments: { x: 1 } },
};

/** An elicitation handler that answers from a list and records what it was asked. */
function answering(...answers: ElicitResult[]): { handler: ElicitHandler; asked: ElicitRequest[] } {
  const asked: ElicitRequest[] = [];
  return {
    asked,
    handler: (request) => {
      asked.push(request);
      const answer = answers.shift();
      if (answer === undefined) throw new Error("asked more often than the test expected");
      return answer;
    },
  };
}

/** The request id named in an awaiting_approval answer. */
function requestIdOf(text: string): string {
  const match = /skillgate approve ([0-9a-f-]{36})/.exec(text);
  if (match === null) throw new Error(`no request id in: ${text}`);
  return match[1] as string;
}

describe("approvals by elicitation", () => {
  it("asks in a form with the offered choices; approve once runs the call and asks again next time", async () => {
    const tree = mcpTree();
    const elicit = answering(
      { action: "accept", content: { decision: "once" } },
      { action: "accept", content: { decision: "once" } },
    );
    const { client } = await connectClient(await openHost(tree), { elicit: elicit.handler });
    const first = await client.callTool(echoCall);
    expect(resultText(first)).toContain('echo {"x": 1}');
    expect(first.isError).toBe(false);
    const asked = elicit.asked[0]?.params;
    expect(asked?.message).toContain("skillgate asks before this call runs");
    expect(asked?.message).toContain("Skill: echo (content hash ");
    expect(asked !== undefined && "requestedSchema" in asked ? asked.requestedSchema : undefined).toEqual({
      type: "object",
      properties: {
        decision: {
          type: "string",
          title: "Decision",
          oneOf: [
            { const: "once", title: "Approve once" },
            { const: "always-chat", title: "Always approve this skill version for this session" },
            { const: "decline", title: "Decline" },
          ],
        },
      },
      required: ["decision"],
    });
    await client.callTool(echoCall);
    expect(elicit.asked).toHaveLength(2);
  });

  it("always for this session stores the grant: the next call runs without asking", async () => {
    const tree = mcpTree();
    const elicit = answering({ action: "accept", content: { decision: "always-chat" } });
    const { client } = await connectClient(await openHost(tree), { elicit: elicit.handler });
    expect((await client.callTool(echoCall)).isError).toBe(false);
    const again = await client.callTool(echoCall);
    expect(again.isError).toBe(false);
    expect(elicit.asked).toHaveLength(1);
  });

  it("a declined or cancelled form, or an answer not offered, is a decline and the call does not run", async () => {
    const tree = mcpTree();
    const elicit = answering(
      { action: "decline" },
      { action: "cancel" },
      { action: "accept", content: { decision: "always-job" } },
    );
    const { client } = await connectClient(await openHost(tree), { elicit: elicit.handler });
    for (let index = 0; index < 3; index += 1) {
      const result = await client.callTool(echoCall);
      expect(result.isError).toBe(true);
      expect(result._meta?.status).toBe("declined");
      expect(resultText(result)).toBe(
        "HOST: the person declined this call; it did not run. Do not retry it unless they ask.",
      );
    }
  });

  it("a form nobody answers expires with the approval request; the call does not run", async () => {
    const tree = mcpTree();
    writeFileSync(
      join(tree.config, "config.yaml"),
      "runners:\n  local:\n    trusted: [echo, wipe]\npolicy:\n  approval_ttl_seconds: 1\n",
    );
    let asked = 0;
    const { client } = await connectClient(await openHost(tree), {
      elicit: () => {
        asked += 1;
        return new Promise<ElicitResult>(() => {});
      },
    });
    const result = await client.callTool(echoCall);
    expect(asked).toBe(1);
    expect(result._meta?.status).toBe("expired");
    expect(resultText(result)).toBe(
      "HOST: the approval request expired before anyone answered; the call did not run.",
    );
  });

  it("a destructive call's form carries the warning", async () => {
    const tree = mcpTree();
    const elicit = answering({ action: "decline" });
    const { client } = await connectClient(await openHost(tree), { elicit: elicit.handler });
    await client.callTool({
      name: "run_skill_script",
      arguments: { skill: "wipe", script: "scripts/wipe.py" },
    });
    expect(elicit.asked[0]?.params.message).toContain("This is a destructive action");
  });

  it("edit_skill's form shows the plan's diff, never offers always, and an approval applies exactly that plan", async () => {
    const tree = mcpTree();
    const elicit = answering({ action: "accept", content: { decision: "once" } });
    const { client, session } = await connectClient(await openHost(tree), { elicit: elicit.handler });
    const draft = await client.callTool({
      name: "draft_skill",
      arguments: {
        name: "drafted",
        description: "A drafted skill.",
        body: "First version.\n",
        sourceChats: [session.chatId],
        rationale: "Needed.",
      },
    });
    expect(draft.isError, resultText(draft)).toBe(false);
    const edited = await client.callTool({
      name: "edit_skill",
      arguments: {
        skillName: "drafted",
        files: { "references/extra.md": "More.\n" },
        reason: "Add a reference.",
      },
    });
    expect(resultText(edited)).toContain("Applied the approved edit to drafted");
    const params = elicit.asked[0]?.params;
    expect(params?.message).toContain("references/extra.md");
    expect(params?.message).toContain("+More.");
    const schema = params !== undefined && "requestedSchema" in params ? params.requestedSchema : undefined;
    expect(JSON.stringify(schema)).not.toContain("always");
  });

  it("each session asks its own client", async () => {
    const tree = mcpTree();
    const host = await openHost(tree);
    const first = answering({ action: "accept", content: { decision: "once" } });
    const second = answering({ action: "decline" });
    const one = await connectClient(host, { elicit: first.handler });
    const two = await connectClient(host, { elicit: second.handler });
    expect((await two.client.callTool(echoCall))._meta?.status).toBe("declined");
    expect((await one.client.callTool(echoCall))._meta?.status).toBe("ok");
    expect(first.asked).toHaveLength(1);
    expect(second.asked).toHaveLength(1);
  });
});

describe("approvals out of band", () => {
  it("without elicitation the call waits: approved in the queue, the same call then runs once", async () => {
    const tree = mcpTree();
    const { client, session } = await connectClient(await openHost(tree));
    const waiting = await client.callTool(echoCall);
    expect(waiting.isError).toBe(true);
    expect(waiting._meta?.status).toBe("awaiting_approval");
    expect(resultText(waiting)).toMatch(/^HOST: this call needs the owner's approval and did not run\./);
    const id = requestIdOf(resultText(waiting));
    const queue = ApprovalQueue.open({ dataFolder: tree.data });
    expect(queue.pending().map((request) => [request.id, request.scope.id])).toEqual([[id, session.chatId]]);
    // A retry before the answer names the same request instead of piling up new ones.
    expect(requestIdOf(resultText(await client.callTool(echoCall)))).toBe(id);
    queue.answer(id, "once");
    const ran = await client.callTool(echoCall);
    expect(ran.isError, resultText(ran)).toBe(false);
    expect(resultText(ran)).toContain('echo {"x": 1}');
    // "once" was used up: the next identical call waits again.
    expect((await client.callTool(echoCall))._meta?.status).toBe("awaiting_approval");
  });

  it("the waiting text says the retry must come from this same MCP session, and another session is asked again", async () => {
    const tree = mcpTree();
    const host = await openHost(tree);
    const { client } = await connectClient(host);
    const sameSession =
      "Once it is approved, make exactly the same call again from this same MCP session: the approval belongs to this session, so a call from another session or after a reconnect is asked about again.";
    const first = resultText(await client.callTool(echoCall));
    expect(first).toContain(sameSession);
    const id = requestIdOf(first);
    // The retry before the answer names the same request, with the same instruction.
    const retry = resultText(await client.callTool(echoCall));
    expect(requestIdOf(retry)).toBe(id);
    expect(retry).toContain(sameSession);
    ApprovalQueue.open({ dataFolder: tree.data }).answer(id, "once");
    // The identical call from another session does not use this session's approval.
    const other = await connectClient(host);
    const elsewhere = await other.client.callTool(echoCall);
    expect(elsewhere._meta?.status).toBe("awaiting_approval");
    expect(requestIdOf(resultText(elsewhere))).not.toBe(id);
    expect(resultText(await client.callTool(echoCall))).toContain('echo {"x": 1}');
  });

  it("an approval applies only to the identical call: other arguments wait for their own", async () => {
    const tree = mcpTree();
    const { client } = await connectClient(await openHost(tree));
    const id = requestIdOf(resultText(await client.callTool(echoCall)));
    ApprovalQueue.open({ dataFolder: tree.data }).answer(id, "once");
    const other = await client.callTool({
      name: "run_skill_script",
      arguments: { skill: "echo", script: "scripts/echo.py", arguments: { x: 2 } },
    });
    expect(other._meta?.status).toBe("awaiting_approval");
    expect((await client.callTool(echoCall)).isError).toBe(false);
  });

  it("skillgate approve ID from the CLI lets the same call run", async () => {
    const tree = mcpTree();
    const { client } = await connectClient(await openHost(tree));
    const id = requestIdOf(resultText(await client.callTool(echoCall)));
    const approved = await runCaptured([...tree.flags, "approve", id]);
    expect(approved.code, approved.err).toBe(0);
    const ran = await client.callTool(echoCall);
    expect(resultText(ran)).toContain('echo {"x": 1}');
  });

  it("skillgate decline ID: the same call is then declined", async () => {
    const tree = mcpTree();
    const { client } = await connectClient(await openHost(tree));
    const id = requestIdOf(resultText(await client.callTool(echoCall)));
    expect((await runCaptured([...tree.flags, "decline", id])).code).toBe(0);
    expect((await client.callTool(echoCall))._meta?.status).toBe("declined");
  });
});

describe("owner rules", () => {
  it("a configured deny rule refuses the call before anyone is asked", async () => {
    const tree = mcpTree();
    writeFileSync(
      join(tree.config, "config.yaml"),
      "runners:\n  local:\n    trusted: [echo, wipe]\npolicy:\n  rules:\n    - name: no-echo\n      priority: 100\n      effect: deny\n      skill: echo\n",
    );
    const elicit = answering();
    const { client } = await connectClient(await openHost(tree), { elicit: elicit.handler });
    const result = await client.callTool(echoCall);
    expect(result.isError).toBe(true);
    expect(result._meta?.status).toBe("denied");
    expect(resultText(result)).toContain("(rule no-echo)");
    expect(elicit.asked).toHaveLength(0);
  });
});
