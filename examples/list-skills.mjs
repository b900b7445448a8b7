// Discover skills the way the CLI does, then print the index a model would see.
// Run after `npm ci`: node examples/list-skills.mjs [project-root]
import { createCatalog } from "skillgate";
import { describeSkillIndex, findSkill } from "skillgate/catalog";

const catalog = createCatalog({ roots: [process.argv[2] ?? process.cwd()] });
const { skills, decisions } = catalog.discover();

for (const decision of decisions) {
  console.log(`${decision.decision.padEnd(12)} ${decision.name} (${decision.source})`);
}

const index = describeSkillIndex(skills, { budget: 4000 });
console.log(
  `\n${index.text}\n\n(${index.listed.length} listed, ${index.unlisted} reachable only through search)`,
);

const json = findSkill(skills, "json");
if (json) console.log(`\nfindSkill("json") -> ${json.name}: ${json.text().split("\n")[0]}`);
