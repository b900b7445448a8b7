import { type ChildProcess, spawn } from "node:child_process";
import { appendFileSync, readFileSync } from "node:fs";
import type { QueueClient, QueueRequest, QueueResponse } from "../../src/queue/contract.js";
import { newQueueId } from "../../src/queue/queue-runner.js";
import type { SeededRandom } from "./seeded-random.js";

/**
 * The at-most-once chaos harness (DESIGN.md invariant 8), the same for every backend: N
 * requests of a counting skill over W worker processes that are SIGKILLed at random moments
 * (seeded) and restarted. The skill's script appends its request id to a log file outside
 * any sandbox when it starts; the harness then checks that every request ended exactly once,
 * as ok, failed or interrupted, that no script body started twice, and that a started one
 * never ended ok without its line. A backend supplies its client, how to start one worker
 * process, and what "nothing left" means for it.
 */

/** One backend under test. */
export interface ChaosBackend {
  readonly name: string;
  /** The controller's client (the harness submits and waits through it). */
  readonly client: QueueClient;
  /** The command line of one worker process named `name` (it prints `ready` when it takes requests). */
  workerCommand(name: string): { command: string; args: string[]; env?: NodeJS.ProcessEnv };
  /** Anything still claimed, active or waiting once every request was answered: must be empty. */
  leftovers(): Promise<string[]>;
}

/** What the requests run: a skill whose script appends `arguments.id` to `arguments.log`. */
export interface ChaosSkill {
  readonly skill: string;
  readonly hash: string;
  readonly script: string;
  /** The log file the script appends to (outside the sandbox). */
  readonly log: string;
}

/** Options of {@link runQueueChaos}. */
export interface ChaosOptions {
  readonly requests: number;
  readonly workers: number;
  readonly random: SeededRandom;
  /** Between kills, at random within this range (ms). */
  readonly killEveryMs: readonly [number, number];
  /** A killed worker comes back after a random delay in this range (ms). */
  readonly restartAfterMs: readonly [number, number];
  /** Each script sleeps a random time up to this (ms), so kills land mid-run. */
  readonly maxSleepMs: number;
  /** One in this many scripts exits 1 (`failed`). */
  readonly failEvery: number;
  /** Run timeout per request. */
  readonly timeoutMs?: number;
}

/** What happened, for the test's assertions and its log. */
export interface ChaosReport {
  readonly answers: ReadonlyMap<string, QueueResponse>;
  /** How many times each request id appears in the start log. */
  readonly starts: ReadonlyMap<string, number>;
  readonly kills: number;
  readonly byStatus: Readonly<Record<string, number>>;
  readonly leftovers: readonly string[];
}

/**
 * The script of the counting skill: record the start first (a line per start, appended, so two
 * starts show as two lines), then sleep, then exit 0, or 1 when `fail` is set.
 */
export const COUNTING_SCRIPT = [
  'import { appendFileSync } from "node:fs";',
  "const args = JSON.parse(process.env.SKILLGATE_SKILL_ARGS);",
  'appendFileSync(args.log, args.id + "\\n");',
  "await new Promise((resolve) => setTimeout(resolve, args.sleepMs));",
  'console.log("done " + args.id);',
  "process.exit(args.fail ? 1 : 0);",
  "",
].join("\n");

/** Runs the chaos: submits every request, kills and restarts workers until all are answered. */
export async function runQueueChaos(
  backend: ChaosBackend,
  skill: ChaosSkill,
  options: ChaosOptions,
): Promise<ChaosReport> {
  const random = options.random;
  const between = ([low, high]: readonly [number, number]): number => low + random.below(high - low + 1);
  const workers = new Map<string, ChildProcess>();
  let generation = 0;
  const start = async (slot: number): Promise<void> => {
    generation += 1;
    const name = `w${slot}-${generation}`;
    const line = backend.workerCommand(name);
    const child = spawn(line.command, line.args, {
      env: line.env ?? process.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    workers.set(String(slot), child);
    await new Promise<void>((resolve) => {
      child.stdout?.on("data", (chunk: Buffer) => {
        if (chunk.toString().includes("ready")) resolve();
      });
      child.once("exit", () => resolve());
    });
  };
  await Promise.all(Array.from({ length: options.workers }, (_, slot) => start(slot)));

  const requests: QueueRequest[] = Array.from({ length: options.requests }, (_, index) => {
    const requestId = newQueueId();
    return {
      requestId,
      skill: skill.skill,
      hash: skill.hash,
      script: skill.script,
      arguments: {
        id: requestId,
        log: skill.log,
        sleepMs: random.below(options.maxSleepMs + 1),
        fail: index % options.failEvery === 0,
      },
      timeoutMs: options.timeoutMs ?? 30_000,
      maxOutputBytes: 4096,
      network: "none",
      allowedDomains: [],
      submittedAt: new Date().toISOString(),
    };
  });
  const answers = new Map<string, QueueResponse>();
  const waits: Promise<void>[] = [];
  let remaining = requests.length;
  for (const request of requests) {
    await backend.client.submit(request);
    waits.push(
      backend.client.waitFor(request.requestId).then((answer) => {
        if (answers.has(request.requestId)) throw new Error(`${request.requestId} was answered twice`);
        answers.set(request.requestId, answer);
        remaining -= 1;
      }),
    );
  }

  let kills = 0;
  let chaos = true;
  const killer = (async () => {
    while (chaos && remaining > 0) {
      await sleep(between(options.killEveryMs));
      if (!chaos || remaining === 0) break;
      const slot = String(random.below(options.workers));
      const victim = workers.get(slot);
      if (victim === undefined || victim.exitCode !== null) continue;
      victim.kill("SIGKILL");
      kills += 1;
      appendFileSync(`${skill.log}.kills`, `${slot} ${new Date().toISOString()}\n`);
      await sleep(between(options.restartAfterMs));
      if (chaos) await start(Number(slot));
    }
  })();
  await Promise.all(waits);
  chaos = false;
  await killer;
  await Promise.all(
    [...workers.values()].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once("exit", () => resolve());
          child.kill("SIGTERM");
        }),
    ),
  );

  const starts = new Map<string, number>();
  for (const line of readFileOrEmpty(skill.log).split("\n").filter(Boolean))
    starts.set(line, (starts.get(line) ?? 0) + 1);
  const byStatus: Record<string, number> = {};
  for (const answer of answers.values()) byStatus[answer.status] = (byStatus[answer.status] ?? 0) + 1;
  return { answers, starts, kills, byStatus, leftovers: await backend.leftovers() };
}

function readFileOrEmpty(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
