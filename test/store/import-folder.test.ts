import { spawnSync } from "node:child_process";
import {
  appendFileSync,
  chmodSync,
  linkSync,
  mkdirSync,
  renameSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type ErrorCode, isSkillgateError } from "../../src/core/errors.js";
import { importFolder, importZip } from "../../src/store/importers.js";
import { openTestStore, refusal, skillMd, snapshot, temporaryFolder } from "./store-helpers.js";

const MiB = 1024 * 1024;

/** A skill folder named `name` holding SKILL.md and `files`, in a fresh temporary folder. */
function skillFolder(name: string, files: Record<string, string | Buffer> = {}): string {
  const folder = join(temporaryFolder(), name);
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, "SKILL.md"), skillMd(name));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(folder, path, ".."), { recursive: true });
    writeFileSync(join(folder, path), content);
  }
  return folder;
}

describe("store import of a local folder", () => {
  it("imports a folder as a disabled skill, execute bits and nested folders kept, the source untouched", async () => {
    const { store } = await openTestStore();
    const source = skillFolder("local", { "scripts/run.sh": "echo hi\n", "references/a/b.md": "ref\n" });
    chmodSync(join(source, "scripts", "run.sh"), 0o755);
    const before = snapshot(source);
    const result = await importFolder(store, source);
    expect(result).toMatchObject({ name: "local", source: "folder", enabled: false });
    expect((await store.get("local")).files.map((file) => file.path)).toEqual([
      "SKILL.md",
      "references/a/b.md",
      "scripts/run.sh",
    ]);
    expect((await store.list()).find((skill) => skill.name === "local")?.origin).toBe(source);
    expect(snapshot(source)).toEqual(before);
    // Enabling needs the hash, as for a zip.
    await refusal(() => store.enable("local", { hash: "0".repeat(64) }), "unknown_hash");
    expect((await store.enable("local", { hash: result.hash })).enabled).toBe(true);
  });

  it("a folder that is taken by name is skill_exists; a missing one is not_found", async () => {
    const { store } = await openTestStore();
    await importFolder(store, skillFolder("twice"));
    await refusal(() => importFolder(store, skillFolder("twice")), "skill_exists");
    await refusal(() => importFolder(store, join(temporaryFolder(), "absent")), "not_found");
  });
});

interface HostileFolder {
  readonly name: string;
  readonly code: ErrorCode;
  readonly make: () => string | Promise<string>;
}

const hostile: HostileFolder[] = [
  {
    name: "a symbolic link out of the folder",
    code: "symlink_not_allowed",
    make: () => {
      const folder = skillFolder("linked");
      symlinkSync("/etc/passwd", join(folder, "passwd"));
      return folder;
    },
  },
  {
    name: "a symbolic link to a file inside the folder",
    code: "symlink_not_allowed",
    make: () => {
      const folder = skillFolder("linked", { "a.md": "a\n" });
      symlinkSync("a.md", join(folder, "b.md"));
      return folder;
    },
  },
  {
    name: "a symbolic link to a folder",
    code: "symlink_not_allowed",
    make: () => {
      const folder = skillFolder("linked");
      symlinkSync("/etc", join(folder, "etc"));
      return folder;
    },
  },
  {
    name: "too many files",
    code: "too_many_files",
    make: () =>
      skillFolder("many", Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`f${i}.txt`, "x"]))),
  },
  {
    name: "too many entries (empty folders)",
    code: "too_many_files",
    make: () => {
      const folder = skillFolder("folders");
      for (let i = 0; i < 900; i += 1) mkdirSync(join(folder, `d${i}`));
      return folder;
    },
  },
  {
    name: "a file over 1 MiB",
    code: "file_too_large",
    make: () => skillFolder("big", { "big.bin": Buffer.alloc(MiB + 1) }),
  },
  {
    name: "a skill over 5 MiB",
    code: "skill_too_large",
    make: () =>
      skillFolder(
        "huge",
        Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`p${i}.bin`, Buffer.alloc(MiB - 10)])),
      ),
  },
  {
    name: "a FIFO",
    code: "unsupported_entry",
    make: () => {
      const folder = skillFolder("fifo");
      const made = spawnSync("mkfifo", [join(folder, "pipe")]);
      if (made.status !== 0) throw new Error("mkfifo (coreutils) is needed for this case");
      return folder;
    },
  },
  {
    name: "a socket",
    code: "unsupported_entry",
    make: () => {
      const folder = skillFolder("socket");
      // Bound and left behind by a process that exits: the socket file stays.
      const made = spawnSync("python3", [
        "-c",
        "import socket, sys\nsocket.socket(socket.AF_UNIX).bind(sys.argv[1])",
        join(folder, "s.sock"),
      ]);
      if (made.status !== 0) throw new Error("python3 is needed for this case");
      return folder;
    },
  },
  {
    name: "a hard link to a file outside",
    code: "unsupported_entry",
    make: () => {
      const folder = skillFolder("hard");
      const outside = join(temporaryFolder(), "secret");
      writeFileSync(outside, "secret\n");
      linkSync(outside, join(folder, "copy"));
      return folder;
    },
  },
  {
    name: "a setuid file",
    code: "unsupported_entry",
    make: () => {
      const folder = skillFolder("setuid", { "scripts/run.sh": "echo\n" });
      chmodSync(join(folder, "scripts", "run.sh"), 0o4755);
      return folder;
    },
  },
  {
    name: "a backslash in a name",
    code: "path_not_allowed",
    make: () => skillFolder("slash", { "a\\b.md": "x" }),
  },
  {
    name: "a control character in a name",
    code: "path_not_allowed",
    make: () => skillFolder("ctl", { "a\u0001.md": "x" }),
  },
  {
    name: "nested deeper than 16 folders",
    code: "path_not_allowed",
    make: () =>
      skillFolder("deep", { [`${Array.from({ length: 17 }, (_, i) => `d${i}`).join("/")}/f.md`]: "x" }),
  },
  {
    name: "no SKILL.md at its top",
    code: "missing_skill_file",
    make: () => {
      const folder = join(temporaryFolder(), "empty");
      mkdirSync(join(folder, "inner"), { recursive: true });
      writeFileSync(join(folder, "inner", "SKILL.md"), skillMd("inner"));
      return folder;
    },
  },
  {
    name: "a file, not a folder",
    code: "not_a_folder",
    make: () => {
      const file = join(temporaryFolder(), "file.txt");
      writeFileSync(file, "x");
      return file;
    },
  },
];

describe("store import of a hostile folder refuses it and writes nothing", () => {
  it.each(hostile)("$name → $code", async ({ code, make }) => {
    const { store, data } = await openTestStore();
    const source = await make();
    const before = snapshot(data);
    const error = await importFolder(store, source).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(isSkillgateError(error, code), String(error)).toBe(true);
    expect(snapshot(data)).toEqual(before);
  });

  // Changes made after the walk, before the files are read: each is caught, nothing is written.
  const changes: readonly [string, ErrorCode, (folder: string) => void][] = [
    ["a file that grew", "source_changed", (folder) => appendFileSync(join(folder, "log.txt"), "more\n")],
    [
      "a file rewritten with the same size",
      "source_changed",
      (folder) => {
        writeFileSync(join(folder, "log.txt"), "START\n");
        const later = new Date(Date.now() + 5_000);
        utimesSync(join(folder, "log.txt"), later, later);
      },
    ],
    [
      "a file replaced by another",
      "source_changed",
      (folder) => {
        writeFileSync(join(folder, "other"), "start\n");
        renameSync(join(folder, "other"), join(folder, "log.txt"));
      },
    ],
    ["a file removed", "source_changed", (folder) => unlinkSync(join(folder, "log.txt"))],
    [
      "a file replaced by a link out",
      "symlink_not_allowed",
      (folder) => {
        unlinkSync(join(folder, "log.txt"));
        symlinkSync("/etc/passwd", join(folder, "log.txt"));
      },
    ],
  ];
  it.each(changes)("%s while the folder is imported → %s", async (_name, code, change) => {
    const { store, data } = await openTestStore();
    const source = skillFolder("moving", { "log.txt": "start\n" });
    const before = snapshot(data);
    let walkedFiles = 0;
    const error = await importFolder(store, source, {
      onWalked: ({ files }) => {
        walkedFiles = files;
        change(source);
      },
    }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(walkedFiles).toBe(2);
    expect(isSkillgateError(error, code), String(error)).toBe(true);
    expect(snapshot(data)).toEqual(before);
  });
});

describe("store import --replace", () => {
  it("puts a newer folder in place of the stored skill, saved disabled; enabling needs the new hash", async () => {
    const { store } = await openTestStore();
    const first = await importFolder(store, skillFolder("evolving", { "scripts/run.sh": "echo one\n" }));
    await store.enable("evolving", { hash: first.hash });
    const newer = skillFolder("evolving", { "scripts/run.sh": "echo two\n" });
    const replaced = await importFolder(store, newer, { replace: true });
    expect(replaced).toMatchObject({ name: "evolving", enabled: false, source: "folder" });
    expect(replaced.hash).not.toBe(first.hash);
    expect(new TextDecoder().decode(await store.readFile("evolving", "scripts/run.sh"))).toBe("echo two\n");
    // The reviewed old hash is recognised as an earlier version, not accepted.
    const stale = await refusal(() => store.enable("evolving", { hash: first.hash }), "skill_changed");
    expect(stale).toMatchObject({ data: { seen: "earlier" } });
    expect((await store.enable("evolving", { hash: replaced.hash })).enabled).toBe(true);
  });

  it("replacing from a zip works the same; replacing a skill that is not stored is not_found, nothing written", async () => {
    const { store, data } = await openTestStore();
    const first = await importFolder(store, skillFolder("zipped", { "a.md": "one\n" }));
    const zipFolder = temporaryFolder();
    const zipPath = join(zipFolder, "zipped.zip");
    const zipped = spawnSync("python3", [
      "-c",
      "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w') as z:\n    z.writestr('SKILL.md', sys.argv[2])\n    z.writestr('a.md', 'two\\n')\n",
      zipPath,
      skillMd("zipped"),
    ]);
    expect(zipped.status).toBe(0);
    const replaced = await importZip(store, zipPath, { replace: true });
    expect(replaced).toMatchObject({ name: "zipped", source: "zip", enabled: false });
    expect(replaced.hash).not.toBe(first.hash);
    const before = snapshot(data);
    await refusal(() => importFolder(store, skillFolder("never-stored"), { replace: true }), "not_found");
    expect(snapshot(data)).toEqual(before);
  });

  it("--replace with an identical version changes nothing: still enabled, same hash and revision", async () => {
    const { store } = await openTestStore();
    const source = skillFolder("same", { "a.md": "x\n" });
    const first = await importFolder(store, source);
    await store.enable("same", { hash: first.hash });
    const again = await importFolder(store, source, { replace: true });
    expect(again).toMatchObject({ hash: first.hash, enabled: true, revision: first.revision + 1 });
  });
});
