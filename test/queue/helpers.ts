import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach } from "vitest";
import { removeTree } from "../../src/core/remove-tree.js";
import { SnapshotStore } from "../../src/runners/snapshot.js";
import { hashSkillFolder } from "../../src/skill/content-hash.js";

/** Folders removed after each test (read-only snapshots included). */
const made: string[] = [];

afterEach(() => {
  for (const folder of made.splice(0)) removeTree(folder);
});

/** A fresh folder with a data folder and a skills folder inside. */
export function queueTree(): { root: string; data: string; skills: string } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "skillgate-queue-")));
  made.push(root);
  const data = join(root, "data");
  const skills = join(root, "skills");
  mkdirSync(data, { recursive: true });
  mkdirSync(skills, { recursive: true });
  return { root, data, skills };
}

/**
 * Writes a skill and makes the controller's verified snapshot of it in the data folder, as the
 * router does before the queue runner is called; returns its folder and hash.
 */
export function queuedSkill(
  data: string,
  skills: string,
  name: string,
  files: Record<string, string>,
): { folder: string; hash: string } {
  const folder = join(skills, name);
  const all = { "SKILL.md": `---\nname: ${name}\ndescription: Test skill ${name}.\n---\nBody.\n`, ...files };
  for (const [path, text] of Object.entries(all)) {
    mkdirSync(dirname(join(folder, path)), { recursive: true });
    writeFileSync(join(folder, path), text);
  }
  const hash = hashSkillFolder(folder).hash;
  if (hash === undefined) throw new Error(`${folder} has no hash`);
  const prepared = new SnapshotStore({ dataFolder: data }).prepare({
    skill: name,
    hash,
    folder,
    script: "x",
  });
  if (!prepared.ok) throw new Error(prepared.refusal.message);
  return { folder, hash };
}

/** The command line of a queue test worker process (test/helpers/queue-chaos-worker.ts). */
export function workerProcessArgs(
  data: string,
  name: string,
  options: {
    concurrency?: number;
    heartbeatMs?: number;
    runner?: "local" | "sandbox";
    limits?: object;
    /** A Redis URL: the worker takes requests from BullMQ there (with a short lock, `lockMs`). */
    redis?: string;
    lockMs?: number;
  } = {},
): string[] {
  return [
    "--import",
    "tsx",
    "test/helpers/queue-chaos-worker.ts",
    "--data",
    data,
    "--name",
    name,
    "--concurrency",
    String(options.concurrency ?? 2),
    "--heartbeat-ms",
    String(options.heartbeatMs ?? 1000),
    "--runner",
    options.runner ?? "local",
    "--limits",
    JSON.stringify(options.limits ?? {}),
    ...(options.redis !== undefined
      ? ["--redis", options.redis, "--lock-ms", String(options.lockMs ?? 1500)]
      : []),
  ];
}
