// Embed skillgate in an agent: build a turn, give its skill index to the model, and send
// every tool call the model makes through turn.call. Run after `npm ci`:
//   node examples/embed.mjs
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSkillgate } from "skillgate";

// A throwaway home, so the example writes nothing of yours (chat database, audit log).
const home = mkdtempSync(join(tmpdir(), "skillgate-example-"));

const skillgate = createSkillgate({
  config: join(home, "config"),
  data: join(home, "data"),
  roots: [process.cwd()],
  // Asked whenever the policy says "ask": show the person what will run and get an answer.
  approve: async (request) => {
    console.log(`\n[approval] ${request.summary}; answers: ${request.options.join(", ")}`);
    return "once";
  },
  // No runner is given, so the default router runs sandbox skills (the built-ins) under bubblewrap;
  // without bubblewrap, run_skill_script answers with a HOST: message saying how to install it.
});

// Whatever happens, the throwaway home goes: an example leaves nothing behind.
try {
  const turn = skillgate.createTurn({ chatId: "example-chat" });
  console.log(`System prompt block:\n${turn.skillIndex()}`);
  console.log("\nTools:", turn.tools.map((tool) => tool.name).join(", "));

  // What a model would do: read a skill, then run one of its scripts with arguments sent as JSON text.
  const loaded = await turn.call("load_skill", { skill: "json-tools" });
  console.log(`\nload_skill -> ${loaded.status}:\n${loaded.text.split("\n").slice(0, 4).join("\n")}\n…`);

  const ran = await turn.call("run_skill_script", {
    skill: "json-tools",
    script: "scripts/json_tools.py",
    arguments: '{"operation": "validate", "document": "{\\"a\\": 1}"}',
  });
  console.log(`\nrun_skill_script -> ${ran.status} (rule ${ran.decision?.rule}):\n${ran.text}`);

  const refused = await turn.call("read_skill_resource", { skill: "json-tools", path: "../../etc/passwd" });
  console.log(`\nread_skill_resource with a traversal -> ${refused.text}`);
} finally {
  skillgate.close();
  rmSync(home, { recursive: true, force: true });
}
