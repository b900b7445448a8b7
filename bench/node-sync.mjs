/**
 * The SkillSync benchmark (issue 15): syncing 200 skills to a fresh agent cache, against a bare
 * `sha256sum` + `tar -xzf` of the same packages.
 *
 * - Setup (timed once): 200 skills of 4 files each (SKILL.md, two scripts, a reference of 2-6 KiB)
 *   are packaged by the controller's `PackageStore` from the built package, through verified
 *   snapshots, and a bare node:http server serves `ManifestIssuer`'s signed manifest and each
 *   package from `PackageStore.open`.
 * - bare: one bash process runs `sha256sum` over the 200 package files and `tar -xzf` of each into a
 *   fresh folder: the least a sync does, with no HTTP, no signature and no checks. It pays a tar
 *   (and a gzip) process per package, so a second floor does the same in this process:
 * - bare in-process: node:crypto's SHA-256 of each file and tar 7's own `x({sync: true})` into a
 *   fresh folder, no HTTP, no checks.
 * - skillgate: `SkillSync.sync()` into a fresh agent data folder, through `ControllerClient` over
 *   loopback HTTP: the manifest fetched and verified, each package downloaded (4 at a time),
 *   its size and SHA-256 checked, unpacked by the bounded extractor (0700/0600), its content hash
 *   checked, renamed into place, the held set written.
 * - skillgate, nothing to do: `sync()` again on the same cache (a new manifest, no downloads).
 *
 * Rounds alternate the order; figures are medians with minimums, ratios are ratios of medians.
 * Bytes are what crossed the wire (the manifest and the packages). There is no target.
 * `node bench/node-sync.mjs [rounds]` runs it alone.
 */

import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { x as extractTar } from "tar";
import { distFolder } from "./contestants.mjs";
import { median } from "./stats.mjs";

const SKILLS = 200;
const NODE = "bench-node";
const CREDENTIAL = "bench-credential";

function writeSkills(root) {
  const skills = [];
  for (let index = 0; index < SKILLS; index += 1) {
    const name = `bench-skill-${String(index).padStart(3, "0")}`;
    const folder = join(root, name);
    mkdirSync(join(folder, "scripts"), { recursive: true });
    mkdirSync(join(folder, "references"), { recursive: true });
    writeFileSync(
      join(folder, "SKILL.md"),
      `---\nname: ${name}\ndescription: Benchmark skill ${index}.\n---\nRun scripts/run.py.\n`,
    );
    writeFileSync(join(folder, "scripts", "run.py"), `import sys\nprint("${name}", sys.argv[1:])\n`);
    writeFileSync(join(folder, "scripts", "check.sh"), `#!/bin/sh\necho ${name}\n`);
    const lines = [];
    for (let line = 0; line < 40 + (index % 5) * 20; line += 1)
      lines.push(`- ${name} reference line ${line}: ${"lorem ipsum dolor sit amet ".repeat(3)}`);
    writeFileSync(join(folder, "references", "notes.md"), `${lines.join("\n")}\n`);
    skills.push({ name, folder });
  }
  return skills;
}

/** Runs the benchmark; returns medians and minimums in milliseconds, bytes and the ratio. */
export async function runNodeSyncBenchmark({ rounds = 5, log = () => {} } = {}) {
  const dist = distFolder();
  const load = (path) => import(pathToFileURL(join(dist, path)).href);
  const { PackageStore } = await load("nodes/packages/package-store.js");
  const { ManifestIssuer } = await load("nodes/manifest/manifest-issuer.js");
  const { SkillCache } = await load("nodes/agent/skill-cache.js");
  const { SkillSync } = await load("nodes/agent/skill-sync.js");
  const { ControllerClient } = await load("nodes/agent/controller-client.js");
  const { hashSkillFolder } = await load("skill/content-hash.js");
  const { AGENT_ROUTES } = await load("nodes/protocol.js");

  const tree = mkdtempSync(join(tmpdir(), "skillgate-bench-node-sync-"));
  let server;
  try {
    const skills = writeSkills(join(tree, "skills")).map((skill) => ({
      ...skill,
      hash: hashSkillFolder(skill.folder).hash,
    }));
    const byName = new Map(skills.map((skill) => [skill.name, skill]));
    const controllerData = join(tree, "controller");
    const packages = new PackageStore({ dataFolder: controllerData });
    const issuer = new ManifestIssuer({ dataFolder: controllerData, packages });
    const started = performance.now();
    const first = await issuer.buildManifest(NODE, skills);
    const buildMs = performance.now() - started;
    if (first.skipped.length > 0) throw new Error(`packages not built: ${first.skipped[0].message}`);
    const packageBytes = first.manifest.skills.reduce((sum, skill) => sum + skill.size, 0);
    let manifestBytes = 0;
    server = createServer(async (request, response) => {
      if (request.headers.authorization !== `Bearer ${CREDENTIAL}`) return response.writeHead(401).end();
      if (request.url === AGENT_ROUTES.manifest) {
        const body = JSON.stringify((await issuer.buildManifest(NODE, skills)).signed);
        manifestBytes = Buffer.byteLength(body);
        return response.end(body);
      }
      const key = decodeURIComponent((request.url ?? "").slice(AGENT_ROUTES.packages.length + 1));
      const at = key.lastIndexOf("@");
      const name = key.slice(0, at);
      const hash = key.slice(at + 1);
      try {
        response.end(packages.open(name, hash, byName.get(name)?.hash).bytes);
      } catch {
        response.writeHead(404).end();
      }
    });
    await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${server.address().port}`;
    const files = packages.list().map((stored) => stored.path);
    const timings = { bare: [], inProcess: [], sync: [], again: [] };
    let report;
    for (let round = 0; round < rounds; round += 1) {
      const bare = async () => {
        const out = join(tree, `bare-${round}`);
        mkdirSync(out);
        const script =
          'out="$1"; shift; sha256sum "$@" > /dev/null && for f in "$@"; do d="$out/$(basename "$f" .tar.gz)"; mkdir "$d" && tar -xzf "$f" -C "$d" || exit 1; done';
        const begun = performance.now();
        execFileSync("bash", ["-c", script, "bare", out, ...files], { stdio: "pipe" });
        timings.bare.push(performance.now() - begun);
      };
      const inProcess = async () => {
        const out = join(tree, `in-process-${round}`);
        mkdirSync(out);
        const begun = performance.now();
        for (const file of files) {
          createHash("sha256").update(readFileSync(file)).digest("hex");
          const folder = join(out, file.slice(file.lastIndexOf("/") + 1, -".tar.gz".length));
          mkdirSync(folder);
          extractTar({ sync: true, file, cwd: folder });
        }
        timings.inProcess.push(performance.now() - begun);
      };
      const sync = async () => {
        const cache = new SkillCache({ dataFolder: join(tree, `agent-${round}`) });
        const skillSync = new SkillSync({
          node: NODE,
          controllerPublicKey: issuer.publicKeyPem,
          transport: new ControllerClient({ controllerUrl: url, credential: CREDENTIAL }),
          cache,
        });
        let begun = performance.now();
        report = await skillSync.sync();
        timings.sync.push(performance.now() - begun);
        if (!report.ok || report.installed.length !== SKILLS)
          throw new Error(
            `the sync did not install ${SKILLS} skills: ${JSON.stringify(report).slice(0, 300)}`,
          );
        begun = performance.now();
        const again = await skillSync.sync();
        timings.again.push(performance.now() - begun);
        if (!again.ok || again.installed.length !== 0) throw new Error("the second sync installed again");
      };
      for (const step of round % 2 === 0 ? [bare, inProcess, sync] : [sync, inProcess, bare]) await step();
      log(`node-sync: round ${round + 1}/${rounds}`);
    }
    const of = (values) => ({ median: median(values), min: Math.min(...values) });
    const result = {
      rounds,
      skills: SKILLS,
      buildMs,
      packageBytes,
      manifestBytes,
      downloadedBytes: report.downloadedBytes,
      bare: of(timings.bare),
      inProcess: of(timings.inProcess),
      sync: of(timings.sync),
      again: of(timings.again),
    };
    return {
      ...result,
      ratio: result.sync.median / result.bare.median,
      inProcessRatio: result.sync.median / result.inProcess.median,
    };
  } finally {
    if (server !== undefined) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
    rmSync(tree, { recursive: true, force: true });
  }
}

/** The benchmark's section of the report. */
export function formatNodeSyncResults(result) {
  const ms = (value) => `${value.toFixed(0)} ms`;
  const kib = (value) => `${(value / 1024).toFixed(0)} KiB`;
  return [
    `## SkillSync of ${result.skills} skills to a fresh agent (${result.rounds} rounds, median / min)`,
    "",
    "| contestant | median | min |",
    "| --- | --- | --- |",
    `| bare sha256sum + tar -xzf of the same packages (local files, one bash) | ${ms(result.bare.median)} | ${ms(result.bare.min)} |`,
    `| bare SHA-256 + tar 7 x({sync}) of the same packages (local files, this process) | ${ms(result.inProcess.median)} | ${ms(result.inProcess.min)} |`,
    `| skillgate SkillSync over loopback HTTP (verify, download, check, unpack, hash, rename) | ${ms(result.sync.median)} | ${ms(result.sync.min)} |`,
    `| skillgate SkillSync again, nothing to download | ${ms(result.again.median)} | ${ms(result.again.min)} |`,
    "",
    `SkillSync / bare: ${result.ratio.toFixed(2)}x; SkillSync / bare in-process: ${result.inProcessRatio.toFixed(2)}x; per skill: ${(result.sync.median / result.skills).toFixed(2)} ms`,
    `bytes over the wire: ${kib(result.downloadedBytes)} of packages (${kib(result.packageBytes)} kept by the controller) + ${kib(result.manifestBytes)} manifest`,
    `controller, building the ${result.skills} packages once (verified snapshots): ${ms(result.buildMs)}`,
  ].join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const rounds = Number(process.argv[2] ?? 5);
  const result = await runNodeSyncBenchmark({ rounds, log: (message) => console.error(`bench: ${message}`) });
  console.log(formatNodeSyncResults(result));
}
