import { spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { lockIsStale, tryLock } from "../../src/core/file-lock.js";
import { makeTree } from "../helpers/skill-tree.js";

const repositoryRoot = fileURLToPath(new URL("../..", import.meta.url));
const STALE_MS = 60_000;
const namespace = readlinkSync("/proc/self/ns/pid");
/** A pid that certainly ended: a child that ran and was reaped. */
const ended = spawnSync("true").pid ?? 0;

/** A lock line as the lock writes it: pid, host, pid namespace, token. */
function ownerLine(pid: number, host = hostname(), space = namespace): string {
  return `${pid} ${host} ${space} 0123456789abcdef\n`;
}

function age(path: string): void {
  const old = new Date(Date.now() - STALE_MS - 5_000);
  utimesSync(path, old, old);
}

/** One row: what is at the lock's path, and whether a caller may take it over. */
interface Row {
  readonly state: string;
  readonly build: (path: string) => void;
  readonly stale: boolean;
}

const rows: readonly Row[] = [
  {
    state: "held by this process",
    build: (path) => writeFileSync(path, ownerLine(process.pid)),
    stale: false,
  },
  { state: "held by pid 1 (alive)", build: (path) => writeFileSync(path, ownerLine(1)), stale: false },
  { state: "held by an ended process", build: (path) => writeFileSync(path, ownerLine(ended)), stale: true },
  {
    state: "an ended pid of another host (a pid there means nothing here)",
    build: (path) => writeFileSync(path, ownerLine(ended, "another-host")),
    stale: false,
  },
  {
    state: "an ended pid of another pid namespace (a container)",
    build: (path) => writeFileSync(path, ownerLine(ended, hostname(), "pid:[1]")),
    stale: false,
  },
  {
    state: "a live owner, older than the limit",
    build: (path) => {
      writeFileSync(path, ownerLine(process.pid));
      age(path);
    },
    stale: true,
  },
  { state: "an empty file (no owner named), fresh", build: (path) => writeFileSync(path, ""), stale: false },
  {
    state: "an empty file, older than the limit",
    build: (path) => {
      writeFileSync(path, "");
      age(path);
    },
    stale: true,
  },
  { state: "torn content, fresh", build: (path) => writeFileSync(path, "12"), stale: false },
  { state: "another tool's lock folder, fresh", build: (path) => mkdirSync(path), stale: false },
  {
    state: "another tool's lock folder, older than the limit",
    build: (path) => {
      mkdirSync(path);
      writeFileSync(join(path, "inside"), "x");
      age(path);
    },
    stale: true,
  },
];

describe("the one lock: staleness and takeover", () => {
  it.each(rows)("$state → stale: $stale", ({ build, stale }) => {
    const folder = makeTree("skillgate-lock-");
    const path = join(folder, "the.lock");
    build(path);
    expect(lockIsStale(path, STALE_MS)).toBe(stale);

    // A claim that must not pass on is never taken over, stale or not.
    expect(tryLock(path, { staleMs: STALE_MS, takeOver: false })).toBeUndefined();

    const held = tryLock(path, { staleMs: STALE_MS });
    expect(held !== undefined).toBe(stale);
    if (held !== undefined) {
      expect(readFileSync(path, "utf8")).toMatch(new RegExp(`^${process.pid} `));
      held.release();
      expect(existsSync(path)).toBe(false);
    }
    // Nothing is left beside the lock: a taken-over lock's aside copy is removed.
    expect(readdirSync(folder).filter((name) => name !== "the.lock")).toEqual([]);
  });

  it("a free lock is taken, is busy for a second taker, and is free again once released", () => {
    const path = join(makeTree("skillgate-lock-"), "the.lock");
    expect(lockIsStale(path, STALE_MS)).toBe(false);
    const held = tryLock(path, { staleMs: STALE_MS });
    expect(held).toBeDefined();
    expect(tryLock(path, { staleMs: STALE_MS })).toBeUndefined();
    held?.release();
    expect(tryLock(path, { staleMs: STALE_MS })).toBeDefined();
  });

  it("refresh makes an aged lock fresh; release leaves a lock that is no longer ours", () => {
    const path = join(makeTree("skillgate-lock-"), "the.lock");
    const first = tryLock(path, { staleMs: STALE_MS });
    age(path);
    first?.refresh();
    expect(lockIsStale(path, STALE_MS)).toBe(false);
    age(path);
    const second = tryLock(path, { staleMs: STALE_MS });
    expect(second).toBeDefined();
    first?.refresh();
    first?.release();
    // The lock is the second holder's still.
    expect(existsSync(path)).toBe(true);
    expect(tryLock(path, { staleMs: STALE_MS })).toBeUndefined();
    second?.release();
    expect(existsSync(path)).toBe(false);
  });

  it("throws other failures as they are (a folder that does not exist)", () => {
    const path = join(makeTree("skillgate-lock-"), "missing", "the.lock");
    expect(() => tryLock(path, { staleMs: STALE_MS })).toThrow(expect.objectContaining({ code: "ENOENT" }));
  });

  it("of four processes racing for a lock an ended process left, exactly one takes it", async () => {
    const folder = makeTree("skillgate-lock-");
    const path = join(folder, "the.lock");
    writeFileSync(path, ownerLine(ended));
    const done = join(folder, "done");
    const startAt = Date.now() + 3_000;
    const child = fileURLToPath(new URL("./children/take-lock.ts", import.meta.url));
    const answered = new Set<number>();
    const outputs = await Promise.all(
      [0, 1, 2, 3].map(
        (index) =>
          new Promise<string>((resolve, reject) => {
            const contender = spawn(
              process.execPath,
              ["--import", "tsx", child, path, String(startAt), done],
              { cwd: repositoryRoot, stdio: ["ignore", "pipe", "inherit"] },
            );
            let output = "";
            contender.stdout.on("data", (chunk: Buffer) => {
              output += chunk.toString("utf8");
              // Once all four have answered, the winner may let go.
              if (output.includes("\n")) answered.add(index);
              if (answered.size === 4) writeFileSync(done, "");
            });
            contender.on("error", reject);
            contender.on("close", () => resolve(output.trim()));
          }),
      ),
    );
    expect(outputs.filter((output) => output === "taken")).toHaveLength(1);
    expect(outputs.filter((output) => output === "busy")).toHaveLength(3);
    expect(existsSync(path)).toBe(false);
  }, 60_000);
});
