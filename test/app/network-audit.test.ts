import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createSkillgate } from "../../src/app/skillgate.js";
import { queryAuditFolder } from "../../src/observe/audit-read.js";
import { silentLogger } from "../../src/observe/logger.js";
import { isolatedFolders, makeTree, writeSkill } from "../helpers/skill-tree.js";

// Asks the proxy for a host the skill did not list; prints the status it got back.
const FETCH = `import urllib.request, urllib.error
try:
    urllib.request.urlopen("http://unlisted.example/", timeout=10)
    print("fetched")
except urllib.error.HTTPError as error:
    print("refused", error.code)
`;

describe("a connection the proxy refuses joins the call's audit trail", () => {
  it("records network-refused with the call's request id, chat, skill, host and reason", async () => {
    const tree = makeTree();
    const folders = isolatedFolders(tree);
    const project = join(tree, "project");
    writeSkill(join(project, ".agents", "skills"), "fetcher", {
      frontMatter: {
        description: "Fetch a page.",
        metadata: { "skillgate.tier": "read", "skillgate.allowed-domains": "allowed.example" },
      },
      files: { "scripts/fetch.py": FETCH },
    });
    const skillgate = createSkillgate({
      ...folders,
      roots: [project],
      builtins: false,
      logger: silentLogger,
    });
    const turn = skillgate.createTurn({ chatId: "net-chat" });
    const result = await turn.call("run_skill_script", { skill: "fetcher", script: "scripts/fetch.py" });
    if (result.text.includes("bubblewrap"))
      throw new Error(`the sandbox is not usable here (${result.text}); run scripts/install-test-deps.sh`);
    expect(result.status).toBe("ok");
    expect(result.text).toContain("refused 403");
    const events = queryAuditFolder(join(folders.data, "audit"), { chat: "net-chat" });
    const refused = events.filter((event) => event.type === "network-refused");
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({
      skill: "fetcher",
      errorKind: "not_allowed",
      host: "unlisted.example",
      port: 80,
      requestId: result.requestId,
    });
    skillgate.close();
  });
});
