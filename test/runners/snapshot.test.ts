import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SnapshotStore } from "../../src/runners/snapshot.js";
import { hashOf, requestFor, runnerTree, writeSkillFolder } from "./helpers.js";

const SCRIPT = { "scripts/run.py": "print('hello')\n", "references/guide.md": "# Guide\n" };

/** Every entry below `folder` (relative paths), for "nothing was written" checks. */
function listing(folder: string): string[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { recursive: true }).map(String).sort();
}

describe("SnapshotStore.prepare", () => {
  it("copies the verified bytes into <data>/runs/snapshots/<hash>, files 0444 and folders 0555", () => {
    const { data, skills } = runnerTree();
    const folder = writeSkillFolder(skills, "demo", SCRIPT);
    const store = new SnapshotStore({ dataFolder: data });
    const outcome = store.prepare(requestFor(folder, "scripts/run.py"));
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    const hash = hashOf(folder);
    expect(outcome.snapshot).toEqual({ folder: join(data, "runs", "snapshots", hash), hash, reused: false });
    expect(hashOf(outcome.snapshot.folder)).toBe(hash);
    expect(readFileSync(join(outcome.snapshot.folder, "scripts/run.py"), "utf8")).toBe("print('hello')\n");
    expect(lstatSync(join(outcome.snapshot.folder, "scripts/run.py")).mode & 0o7777).toBe(0o444);
    expect(lstatSync(join(outcome.snapshot.folder, "SKILL.md")).mode & 0o7777).toBe(0o444);
    expect(lstatSync(join(outcome.snapshot.folder, "scripts")).mode & 0o7777).toBe(0o555);
    expect(lstatSync(outcome.snapshot.folder).mode & 0o7777).toBe(0o555);
    // No temporary folder is left next to it.
    expect(readdirSync(join(data, "runs", "snapshots"))).toEqual([hash]);
  });

  it("reuses the snapshot of an unchanged skill without copying, and makes a new one when it changes", () => {
    const { data, skills } = runnerTree();
    const folder = writeSkillFolder(skills, "demo", SCRIPT);
    const store = new SnapshotStore({ dataFolder: data });
    const first = store.prepare(requestFor(folder, "scripts/run.py"));
    const second = store.prepare(requestFor(folder, "scripts/run.py"));
    expect(first.ok && second.ok).toBe(true);
    if (!first.ok || !second.ok) return;
    expect(second.snapshot.reused).toBe(true);
    expect(second.snapshot.folder).toBe(first.snapshot.folder);
    // The reused file is the very inode written the first time: nothing was copied again.
    const inode = (snapshot: string) => lstatSync(join(snapshot, "scripts/run.py")).ino;
    expect(inode(second.snapshot.folder)).toBe(inode(first.snapshot.folder));
    writeFileSync(join(folder, "scripts/run.py"), "print('changed')\n");
    const third = store.prepare(requestFor(folder, "scripts/run.py"));
    expect(third.ok && !third.snapshot.reused && third.snapshot.folder !== first.snapshot.folder).toBe(true);
  });

  it("a snapshot altered on disk is not reused: it is made anew from the verified live folder", () => {
    const { data, skills } = runnerTree();
    const folder = writeSkillFolder(skills, "demo", SCRIPT);
    const store = new SnapshotStore({ dataFolder: data });
    const first = store.prepare(requestFor(folder, "scripts/run.py"));
    if (!first.ok) throw new Error("no snapshot");
    const copy = join(first.snapshot.folder, "scripts/run.py");
    chmodSync(join(first.snapshot.folder, "scripts"), 0o755);
    chmodSync(copy, 0o644);
    writeFileSync(copy, "import os; os.system('evil')\n");
    const again = store.prepare(requestFor(folder, "scripts/run.py"));
    expect(again.ok).toBe(true);
    if (!again.ok) return;
    expect(again.snapshot.reused).toBe(false);
    expect(readFileSync(join(again.snapshot.folder, "scripts/run.py"), "utf8")).toBe("print('hello')\n");
  });

  it("a hash mismatch is skill_changed and writes nothing", () => {
    const { data, skills } = runnerTree();
    const folder = writeSkillFolder(skills, "demo", SCRIPT);
    const approved = hashOf(folder);
    writeFileSync(join(folder, "scripts/run.py"), "print('swapped')\n");
    const outcome = new SnapshotStore({ dataFolder: data }).prepare(
      requestFor(folder, "scripts/run.py", { hash: approved }),
    );
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.refusal.status).toBe("refused");
    expect(outcome.refusal.code).toBe("skill_changed");
    expect(outcome.refusal.message).toMatch(/^HOST: demo changed after this call was approved/);
    expect(outcome.refusal.message).toMatch(/\[skill_changed\]$/);
    expect(listing(data)).toEqual([]);
  });

  it("a file swapped between the check and the copy is caught by hashing the copy", () => {
    const { data, skills } = runnerTree();
    const folder = writeSkillFolder(skills, "demo", SCRIPT);
    const store = new SnapshotStore({
      dataFolder: data,
      beforeCopy: (live) => writeFileSync(join(live, "scripts/run.py"), "print('swapped')\n"),
    });
    const outcome = store.prepare(requestFor(folder, "scripts/run.py"));
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.refusal.code).toBe("skill_changed");
    expect(outcome.refusal.message).toContain("changed while it was being copied");
    expect(listing(join(data, "runs", "snapshots"))).toEqual([]);
  });

  it("a file swapped for a symbolic link between the check and the copy is not followed", () => {
    const { data, skills, root } = runnerTree();
    const folder = writeSkillFolder(skills, "demo", SCRIPT);
    writeFileSync(join(root, "secret"), "secret\n");
    const store = new SnapshotStore({
      dataFolder: data,
      beforeCopy: (live) => {
        const path = join(live, "references/guide.md");
        execFileSync("rm", [path]);
        symlinkSync(join(root, "secret"), path);
      },
    });
    const outcome = store.prepare(requestFor(folder, "scripts/run.py"));
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.refusal.code).toBe("skill_changed");
    expect(listing(join(data, "runs", "snapshots"))).toEqual([]);
  });

  const hostile: [string, string, (folder: string, root: string) => void | Promise<void>][] = [
    [
      "a symbolic link",
      "symlink_not_allowed",
      (folder, root) => {
        writeFileSync(join(root, "outside"), "x");
        symlinkSync(join(root, "outside"), join(folder, "references/link.md"));
      },
    ],
    [
      "a hardlink to a file outside the skill",
      "hardlink_not_allowed",
      (folder, root) => {
        writeFileSync(join(root, "outside"), "x");
        linkSync(join(root, "outside"), join(folder, "references/hard.md"));
      },
    ],
    ["a FIFO", "special_file_not_allowed", (folder) => execFileSync("mkfifo", [join(folder, "pipe")])],
    [
      "a socket",
      "special_file_not_allowed",
      async (folder) => {
        const server = createServer();
        await new Promise<void>((resolve) => server.listen(join(folder, "sock"), resolve));
        // Closing removes the socket file; keep the file by not closing before the check.
        (globalThis as { openServers?: unknown[] }).openServers = [server];
      },
    ],
    [
      "a setuid file",
      "setuid_not_allowed",
      (folder) => {
        writeFileSync(join(folder, "scripts/su.sh"), "id\n");
        chmodSync(join(folder, "scripts/su.sh"), 0o4755);
      },
    ],
    [
      "a setgid file",
      "setuid_not_allowed",
      (folder) => {
        writeFileSync(join(folder, "scripts/sg.sh"), "id\n");
        chmodSync(join(folder, "scripts/sg.sh"), 0o2755);
      },
    ],
  ];

  it.each(hostile)("%s is refused with %s and nothing is written", async (_name, code, plant) => {
    const { data, skills, root } = runnerTree();
    const folder = writeSkillFolder(skills, "demo", SCRIPT);
    await plant(folder, root);
    try {
      const outcome = new SnapshotStore({ dataFolder: data }).prepare(requestFor(folder, "scripts/run.py"));
      expect(outcome.ok).toBe(false);
      if (outcome.ok) return;
      expect(outcome.refusal.code).toBe(code);
      expect(outcome.refusal.message).toMatch(/^HOST: demo holds /);
      expect(outcome.refusal.message).toContain("scripts/run.py did not run");
      expect(listing(data)).toEqual([]);
    } finally {
      const servers = (globalThis as { openServers?: { close(): void }[] }).openServers ?? [];
      for (const server of servers) server.close();
      delete (globalThis as { openServers?: unknown }).openServers;
    }
  });

  it("a character device is refused with special_file_not_allowed (where mknod is allowed)", (context) => {
    const { data, skills } = runnerTree();
    const folder = writeSkillFolder(skills, "demo", SCRIPT);
    try {
      execFileSync("mknod", [join(folder, "null"), "c", "1", "3"], { stdio: "ignore" });
    } catch {
      context.skip();
    }
    const outcome = new SnapshotStore({ dataFolder: data }).prepare(requestFor(folder, "scripts/run.py"));
    expect(outcome.ok ? undefined : outcome.refusal.code).toBe("special_file_not_allowed");
    expect(listing(data)).toEqual([]);
  });

  it("a hash that is not 64 hex digits is refused", () => {
    const { data, skills } = runnerTree();
    const folder = writeSkillFolder(skills, "demo", SCRIPT);
    const outcome = new SnapshotStore({ dataFolder: data }).prepare(
      requestFor(folder, "scripts/run.py", { hash: "../../etc" }),
    );
    expect(outcome.ok ? undefined : outcome.refusal.code).toBe("skill_changed");
    expect(listing(data)).toEqual([]);
  });

  it("keeps the most recently used snapshots and prunes the rest, never one in use", () => {
    const { data, skills } = runnerTree();
    const store = new SnapshotStore({ dataFolder: data, keep: 2 });
    const folders = [0, 1, 2, 3].map((index) =>
      writeSkillFolder(skills, `skill-${index}`, { "scripts/run.py": `print(${index})\n` }),
    );
    const snapshotOf = (index: number) => {
      const outcome = store.prepare(requestFor(folders[index] as string, "scripts/run.py"));
      if (!outcome.ok) throw new Error("no snapshot");
      return outcome.snapshot;
    };
    const zero = snapshotOf(0); // held: never released
    const one = snapshotOf(1);
    store.release(one);
    // Age them so the order of use is clear whatever the clock's resolution.
    utimesSync(zero.folder, new Date(1_000_000), new Date(1_000_000));
    utimesSync(one.folder, new Date(2_000_000), new Date(2_000_000));
    store.release(snapshotOf(2));
    store.release(snapshotOf(3));
    const kept = readdirSync(join(data, "runs", "snapshots")).sort();
    // Kept: the two newest (2, 3) and zero, which is in use; one is pruned.
    expect(kept).toEqual([zero.hash, hashOf(folders[2] as string), hashOf(folders[3] as string)].sort());
    expect(existsSync(one.folder)).toBe(false);
  });

  it("leftover temporary folders of a crashed copy are removed once they are old", () => {
    const { data, skills } = runnerTree();
    const snapshots = join(data, "runs", "snapshots");
    mkdirSync(join(snapshots, ".tmp-deadbeef-000000", "scripts"), { recursive: true });
    utimesSync(join(snapshots, ".tmp-deadbeef-000000"), new Date(0), new Date(0));
    const store = new SnapshotStore({ dataFolder: data });
    const folder = writeSkillFolder(skills, "demo", SCRIPT);
    expect(store.prepare(requestFor(folder, "scripts/run.py")).ok).toBe(true);
    expect(readdirSync(snapshots)).toEqual([hashOf(folder)]);
  });
});
