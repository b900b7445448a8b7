import { describe, expect, it } from "vitest";
import { MemoryGrantStore } from "../../../src/policy/grants.js";
import { grant } from "../../../src/skill/content-hash.js";
import { decideStage } from "../../../src/tools/stages/decide.js";
import { CHAT, HASH, RUN_SUBJECT, stageContext, stageTool, stateFor } from "./stage-harness.js";

describe("decide stage", () => {
  it("a change naming a skill carries its grant and asks; the decision is recorded", async () => {
    const { context, events } = stageContext();
    const result = await decideStage(stateFor(stageTool().tool, {}, { subject: RUN_SUBJECT }), context);
    expect(result.end).toBeUndefined();
    expect(result.state.grant).toBe(grant("s", HASH));
    expect(result.state.decision).toMatchObject({ effect: "ask", rule: "changes-ask" });
    expect(events.map((event) => [event.type, event.rule, event.decision])).toEqual([
      ["policy-decided", "changes-ask", "ask"],
    ]);
  });

  it("the scope's grant allows the call", async () => {
    const grants = new MemoryGrantStore();
    grants.addGrant(CHAT, grant("s", HASH));
    const result = await decideStage(
      stateFor(stageTool().tool, {}, { subject: RUN_SUBJECT }),
      stageContext({ grants }).context,
    );
    expect(result.state.decision).toMatchObject({ effect: "allow", rule: "granted-calls-allowed" });
  });

  it("a deny ends the call with the rule named; a withdrawn skill gets its own line", async () => {
    const inPlan = await decideStage(
      stateFor(stageTool().tool, {}, { subject: RUN_SUBJECT, scope: { ...CHAT, mode: "plan" } }),
      stageContext().context,
    );
    expect(inPlan.end?.status).toBe("denied");
    expect(inPlan.end?.text).toMatch(/^HOST: not allowed: .*\(rule plan-mode-changes-nothing\)\.$/);
    expect(inPlan.end?.decision?.rule).toBe("plan-mode-changes-nothing");

    const withdrawn = await decideStage(
      stateFor(stageTool().tool, {}, { subject: { ...RUN_SUBJECT, skillRunnable: false } }),
      stageContext().context,
    );
    expect(withdrawn.end?.text).toBe("HOST: that skill is no longer enabled.");
  });

  it("a read is decided without reading the scope's grants", async () => {
    const { context, grantReads } = stageContext();
    const result = await decideStage(
      stateFor(stageTool().tool, {}, { subject: { tier: "read", summary: "search skills" } }),
      context,
    );
    expect(result.state.decision?.effect).toBe("allow");
    expect(result.state.grant).toBeUndefined();
    expect(grantReads).toEqual([]);
  });
});
