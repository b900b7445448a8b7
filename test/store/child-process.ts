import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { hashSkillFolder } from "../../src/skill/content-hash.js";

/** The repository root, where `--import tsx` resolves. */
const repositoryRoot = fileURLToPath(new URL("../..", import.meta.url));
const childScript = fileURLToPath(new URL("./children/store-child.ts", import.meta.url));

/** A running store child process and the `done <n> <revision>` lines it printed so far. */
export interface StoreChild {
  readonly process: ChildProcess;
  readonly done: { step: number; revision: number }[];
  /** Resolves once the child printed `step` done lines (or exited). */
  waitForStep(step: number): Promise<void>;
  /** Resolves with the exit code (or the signal name). */
  readonly exited: Promise<number | string>;
  readonly stderr: () => string;
}

/** Starts the store child (see children/store-child.ts) under `node --import tsx`. */
export function startStoreChild(
  mode: "churn" | "create" | "die",
  data: string,
  builtins: string,
  prefix: string,
  count: number | string,
): StoreChild {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", childScript, mode, data, builtins, prefix, String(count)],
    {
      cwd: repositoryRoot,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const done: { step: number; revision: number }[] = [];
  const waiters: { step: number; resolve: () => void }[] = [];
  let buffered = "";
  let errors = "";
  let ended = false;
  const wake = () => {
    for (const waiter of waiters.splice(0)) {
      if (ended || done.length >= waiter.step) waiter.resolve();
      else waiters.push(waiter);
    }
  };
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    buffered += chunk;
    const lines = buffered.split("\n");
    buffered = lines.pop() ?? "";
    for (const line of lines) {
      const match = /^done (\d+) (\d+)$/.exec(line);
      if (match) done.push({ step: Number(match[1]), revision: Number(match[2]) });
    }
    wake();
  });
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => {
    errors += chunk;
  });
  const exited = new Promise<number | string>((resolve) => {
    child.on("exit", (code, signal) => {
      ended = true;
      wake();
      resolve(code ?? signal ?? "unknown");
    });
  });
  return {
    process: child,
    done,
    exited,
    stderr: () => errors,
    waitForStep: (step) =>
      new Promise<void>((resolve) => {
        waiters.push({ step, resolve });
        wake();
      }),
  };
}

/**
 * Checks the store's files as a crash left them, before anything repairs them: index.json
 * parses, and every entry has its folder with the recorded hash and every folder has its
 * entry — except the one skill a journal names, which was mid-change.
 */
export function expectRawAgreement(data: string): void {
  const skills = join(data, "skills");
  const index = JSON.parse(readFileSync(join(skills, "index.json"), "utf8")) as {
    skills: Record<string, { hash: string }>;
  };
  const journalFile = join(skills, ".journal.json");
  const inTransition = existsSync(journalFile)
    ? (JSON.parse(readFileSync(journalFile, "utf8")) as { name: string }).name
    : undefined;
  const folders = readdirSync(skills, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith("."))
    .map((entry) => entry.name)
    .filter((name) => name !== inTransition)
    .sort();
  const entries = Object.keys(index.skills)
    .filter((name) => name !== inTransition)
    .sort();
  expect(folders).toEqual(entries);
  for (const name of entries) {
    expect(hashSkillFolder(join(skills, name)).hash, name).toBe(index.skills[name]?.hash);
  }
}
