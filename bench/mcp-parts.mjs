/**
 * Where load_skill's time over MCP goes: a diagnostic, not part of `npm run bench`.
 *
 * It copies the build (dist/ or BENCH_DIST) into `bench/.work/parts-<variant>/` and switches
 * parts of the call off in each copy, by replacing one exact line of the built JavaScript
 * (a copy whose line is not found stops the run: the build changed and this script with it):
 *
 * - `full`: the build as it is;
 * - `no-catalog-look`: the turn's skill view asks the catalog on its first call only (with the
 *   server's catalog kept by revision, asking is already one number compared);
 * - `no-audit`: audit events are not written;
 * - `neither`: both of the above;
 * - `no-work`: the MCP session answers load_skill's text without calling the turn at all.
 *
 * Each variant is measured as bench/mcp.mjs measures load_skill over stdio: a real SDK client,
 * the same tree, rounds alternating with the bare server. These copies break what skillgate
 * promises (the next call sees a change; every decision is audited): they exist only to
 * show what each part costs. Run: `node bench/mcp-parts.mjs [--rounds 1500]`.
 */

import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { distFolder } from "./contestants.mjs";
import { BARE, connect, importSdk, LOAD, SETTLE_MS, setUp, timedCall } from "./mcp.mjs";
import { median } from "./stats.mjs";

const CATALOG_LOOK = {
  file: "tools/skill-view.js",
  find: "refresh() {\n        const result = this.#discover();",
  replace:
    "refresh() {\n        if (this.#decisions !== undefined) return { added: [], removed: [], changed: false };\n        const result = this.#discover();",
};
const AUDIT = {
  file: "observe/audit-log.js",
  find: "record(event) {",
  replace: "record(event) {\n        return;",
};
const WORK = {
  file: "surfaces/mcp/session.js",
  find: "const result = await turn.call(name, input ?? {}, { signal: extra.signal, caller });",
  replace:
    "const result = { requestId: 'x', status: 'ok', text: '<skill name=\"bench-load\">\\nRead the input, then answer in one line.\\n</skill>' };",
};

const VARIANTS = {
  full: [],
  "no-catalog-look": [CATALOG_LOOK],
  "no-audit": [AUDIT],
  neither: [CATALOG_LOOK, AUDIT],
  "no-work": [WORK],
};

const work = fileURLToPath(new URL("./.work/", import.meta.url));

/** A copy of the build with `patches` applied; throws when a patch's line is not in the build. */
function patchedCopy(name, patches) {
  const folder = join(work, `parts-${name}`);
  rmSync(folder, { recursive: true, force: true });
  cpSync(distFolder(), folder, { recursive: true });
  for (const patch of patches) {
    const path = join(folder, patch.file);
    const text = readFileSync(path, "utf8");
    if (!text.includes(patch.find))
      throw new Error(`${patch.file}: the line to replace is not in this build`);
    writeFileSync(path, text.replace(patch.find, patch.replace));
  }
  return folder;
}

/** Median load_skill and bare times over stdio, `rounds` alternating pairs after a warm-up. */
async function measure(sdk, place, build, rounds) {
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: place.home };
  const main = join(build, "surfaces", "cli", "main.js");
  const skillgate = await connect(sdk, "stdio", [main, ...place.flags, "mcp"], env);
  const bare = await connect(
    sdk,
    "stdio",
    [fileURLToPath(new URL("./mcp.mjs", import.meta.url)), "--bare-server", "stdio"],
    env,
  );
  try {
    for (let index = 0; index < 50; index += 1) {
      await timedCall(bare.client, BARE);
      await timedCall(skillgate.client, LOAD);
    }
    const times = { bare: [], load: [] };
    for (let round = 0; round < rounds; round += 1) {
      const order = round % 2 === 0 ? ["bare", "load"] : ["load", "bare"];
      for (const contestant of order) {
        const client = contestant === "bare" ? bare.client : skillgate.client;
        times[contestant].push(await timedCall(client, contestant === "bare" ? BARE : LOAD));
      }
    }
    return { bare: median(times.bare), load: median(times.load) };
  } finally {
    await skillgate.stop();
    await bare.stop();
  }
}

const { values } = parseArgs({ options: { rounds: { type: "string", default: "1500" } } });
const rounds = Number(values.rounds);
const sdk = await importSdk();
const place = setUp();
try {
  // Past the racy-file window, as in bench/mcp.mjs.
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  console.log(`load_skill over stdio, ${rounds} rounds alternating with the bare server; medians.\n`);
  console.log("| variant | bare server | load_skill | ratio |\n| --- | --- | --- | --- |");
  for (const [name, patches] of Object.entries(VARIANTS)) {
    const build = patchedCopy(name, patches);
    try {
      const result = await measure(sdk, place, build, rounds);
      console.log(
        `| ${name} | ${result.bare.toFixed(2)} ms | ${result.load.toFixed(2)} ms | ${(result.load / result.bare).toFixed(2)}x |`,
      );
    } finally {
      rmSync(build, { recursive: true, force: true });
    }
  }
} finally {
  rmSync(place.root, { recursive: true, force: true, maxRetries: 2 });
}
