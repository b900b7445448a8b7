// An agent loop on the Vercel AI SDK over skillgate's tools. It runs offline: the AI SDK's
// mock language model plays a scripted model. Run after `npm ci`:
//   node examples/ai-sdk-agent.mjs
//
// With a real provider, install one (for example `npm install @ai-sdk/openai`) and replace
// the mock model below; nothing else changes:
//   import { openai } from "@ai-sdk/openai";
//   const model = openai("gpt-4.1-mini"); // reads OPENAI_API_KEY
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { createSkillgate } from "skillgate";
import { hasPendingApproval, skillgateTools } from "skillgate/ai-sdk";
import { streamLogger } from "skillgate/observe";

// A throwaway home (so the example writes nothing of yours) holding a project with one skill.
const home = mkdtempSync(join(tmpdir(), "skillgate-ai-sdk-"));
const project = join(home, "project");
const skill = join(project, ".agents", "skills", "backup-check");
mkdirSync(join(skill, "scripts"), { recursive: true });
writeFileSync(
  join(skill, "SKILL.md"),
  `---
name: backup-check
description: Check that last night's backup of a host finished.
metadata:
  skillgate.execution: local
  skillgate.tier: change
  parameters_schema: '{"type":"object","properties":{"target":{"type":"string"}},"required":["target"]}'
---

# Backup check

Run scripts/check.sh with the host to check as {"target": HOST}.
`,
);
// The script gets its arguments as JSON on stdin and in SKILLGATE_SKILL_ARGS.
writeFileSync(join(skill, "scripts", "check.sh"), 'echo "backup finished: $SKILLGATE_SKILL_ARGS"\n');
// The owner trusts this skill to run on the host itself (without it, a `local` skill is refused).
mkdirSync(join(home, "config"));
writeFileSync(join(home, "config", "config.yaml"), "runners:\n  local:\n    trusted: [backup-check]\n");

const audit = [];
const skillgate = createSkillgate({
  config: join(home, "config"),
  data: join(home, "data"),
  roots: [project],
  builtins: false,
  audit: { record: (event) => audit.push(event) },
  // The library is silent unless given a logger: this one writes `skillgate: info: …` lines to stderr.
  logger: streamLogger(),
  // Asked whenever the policy says "ask". A terminal asks the person; a web app that cannot
  // wait answers "deferred": the call then ends `awaiting_approval` and the model is told so.
  approve: async (request) => {
    console.log(`[approval] ${request.summary}; answers: ${request.options.join(", ")} -> once`);
    return "once";
  },
});
// Whatever happens, the throwaway home goes: an example leaves nothing behind.
try {
  const turn = skillgate.createTurn({ chatId: "ai-sdk-example" });

  // The scripted model: what a model would do, one step at a time.
  const script = [
    call("search_skills", { query: "backup finished" }),
    call("load_skill", { skill: "backup-check" }),
    // The model gets the arguments wrong (JSON text instead of an object); skillgate repairs them.
    call("run_skill_script", {
      skill: "backup-check",
      script: "scripts/check.sh",
      arguments: '{"target": "nas"}',
    }),
    say("Last night's backup of nas finished."),
  ];
  const model = new MockLanguageModelV3({ doGenerate: async () => script.shift() ?? say("(done)") });

  const result = await generateText({
    model,
    system: `You help the owner run their machines.\n\n${turn.skillIndex()}`,
    prompt: "Did last night's backup of the nas finish?",
    tools: skillgateTools(turn, {
      onResult: (output, { toolName, input }) =>
        console.log(
          `[tool] ${toolName} ${JSON.stringify(input)} -> ${output.status} (rule ${output.rule})\n${indent(output.text)}`,
        ),
    }),
    // Stop after 10 steps, or as soon as a call waits for the owner's approval.
    stopWhen: [stepCountIs(10), hasPendingApproval()],
  });

  console.log(
    `\nThe model saw, last: ${JSON.stringify(model.doGenerateCalls.at(-1).prompt.map((m) => m.role))}`,
  );
  console.log(`Audit events: ${audit.map((event) => event.type).join(", ")}`);
  console.log(`Answer: ${result.text}`);
} finally {
  skillgate.close();
  rmSync(home, { recursive: true, force: true });
}

function call(toolName, input) {
  const toolCallId = `call-${toolName}`;
  return step([{ type: "tool-call", toolCallId, toolName, input: JSON.stringify(input) }], "tool-calls");
}

function say(text) {
  return step([{ type: "text", text }], "stop");
}

function step(content, finish) {
  return {
    content,
    finishReason: { unified: finish, raw: finish },
    usage: {
      inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 0, text: 0, reasoning: 0 },
    },
    warnings: [],
  };
}

function indent(text) {
  const lines = text.trimEnd().split("\n");
  return lines
    .slice(0, 3)
    .concat(lines.length > 3 ? ["…"] : [])
    .map((line) => `    ${line}`)
    .join("\n");
}
