import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hashSkillFolder } from "../../src/skill/content-hash.js";
import { Store } from "../../src/store/store.js";
import {
  BUILTIN,
  builtinFolder,
  openTestStore,
  refusal,
  skillMd,
  snapshot,
  temporaryFolder,
} from "./store-helpers.js";

describe("built-in skills", () => {
  it("are listed as builtin, enabled, with the hash of their folder", async () => {
    const { store, builtins } = await openTestStore();
    expect(await store.list()).toEqual([
      {
        name: BUILTIN,
        source: "builtin",
        enabled: true,
        hash: hashSkillFolder(join(builtins, BUILTIN)).hash,
      },
    ]);
    expect(store.isBuiltIn(BUILTIN)).toBe(true);
    expect(store.isBuiltIn("other")).toBe(false);
    const skill = await store.get(BUILTIN);
    expect(skill.files.map((file) => file.path)).toEqual(["SKILL.md", "scripts/help.py"]);
    expect(Buffer.from(await store.readFile(BUILTIN, "scripts/help.py")).toString()).toBe("print('help')\n");
  });

  it("default to the package's skills/ folder, and every shipped one loads and can be duplicated", async () => {
    const store = await Store.open({ dataFolder: temporaryFolder(), lockStaleMs: 2_000 });
    expect(store.report.builtinDiagnostics).toEqual([]);
    const shipped = (await store.list()).filter((skill) => skill.source === "builtin");
    expect(shipped.map((skill) => skill.name)).toContain("skill-authoring");
    for (const skill of shipped) {
      const copy = await store.duplicate(skill.name, `copy-of-${skill.name}`);
      expect(copy.diagnostics, skill.name).toEqual([]);
    }
  });

  it("are present in a store that was never written and are not in index.json", async () => {
    const { store, data } = await openTestStore();
    await store.create("mine", { "SKILL.md": skillMd("mine") });
    const index = JSON.parse(readFileSync(join(data, "skills", "index.json"), "utf8"));
    expect(Object.keys(index.skills)).toEqual(["mine"]);
    expect((await store.list()).map((skill) => skill.name)).toContain(BUILTIN);
  });

  it("refuse every write with builtin_read_only (403) and leave their folder untouched", async () => {
    const { store, builtins } = await openTestStore();
    const before = snapshot(builtins);
    const hash = (await store.get(BUILTIN)).hash;
    for (const action of [
      () => store.updateFile(BUILTIN, "SKILL.md", skillMd(BUILTIN, "", "changed")),
      () => store.removeFile(BUILTIN, "scripts/help.py"),
      () => store.deleteSkill(BUILTIN),
      () => store.disable(BUILTIN),
      () => store.enable(BUILTIN, { hash }),
      () => store.create(BUILTIN, { "SKILL.md": skillMd(BUILTIN) }),
    ]) {
      const error = await refusal(action, "builtin_read_only");
      expect(error).toMatchObject({ httpStatus: 403 });
    }
    expect(snapshot(builtins)).toEqual(before);
  });

  it("duplicating one gives an owned, editable copy with the new name and the comments kept", async () => {
    const { store, data, builtins } = await openTestStore();
    const copy = await store.duplicate(BUILTIN, "my-helper");
    expect(copy).toMatchObject({ name: "my-helper", source: "owner", enabled: false });
    const text = readFileSync(join(data, "skills", "my-helper", "SKILL.md"), "utf8");
    expect(text).toBe(
      readFileSync(join(builtins, BUILTIN, "SKILL.md"), "utf8").replace(
        `name: ${BUILTIN}`,
        "name: my-helper",
      ),
    );
    expect(text).toContain("# a comment that must survive duplication");
    expect(readFileSync(join(data, "skills", "my-helper", "scripts", "help.py"), "utf8")).toBe(
      "print('help')\n",
    );
    await store.updateFile("my-helper", "scripts/help.py", "print('mine')\n");
    expect(readFileSync(join(builtins, BUILTIN, "scripts", "help.py"), "utf8")).toBe("print('help')\n");
  });

  it("duplicate rewrites a quoted or multi-line name and inserts one when missing", async () => {
    const builtins = join(temporaryFolder(), "skills");
    const write = (name: string, text: string) => {
      mkdirSync(join(builtins, name), { recursive: true });
      writeFileSync(join(builtins, name, "SKILL.md"), text);
    };
    write("quoted", '---\r\nname: "quoted"\r\ndescription: CRLF and quotes.\r\n---\r\nbody\r\n');
    write("folded", "---\nname: >-\n  folded\ndescription: A folded name.\n---\nbody\n");
    const store = await Store.open({ dataFolder: temporaryFolder(), builtinFolder: builtins });
    await store.duplicate("quoted", "quoted-copy");
    expect((await store.get("quoted-copy")).skillFile).toBe(
      "---\r\nname: quoted-copy\r\ndescription: CRLF and quotes.\r\n---\r\nbody\r\n",
    );
    await store.duplicate("folded", "folded-copy");
    expect((await store.get("folded-copy")).skillFile).toBe(
      "---\nname: folded-copy\ndescription: A folded name.\n---\nbody\n",
    );
  });

  it("a broken built-in is left out and reported; a stored skill a built-in shadows is reported", async () => {
    const builtins = builtinFolder();
    mkdirSync(join(builtins, "broken"));
    writeFileSync(join(builtins, "broken", "SKILL.md"), "---\nname: [\n---\n");
    const data = temporaryFolder();
    const plain = await Store.open({ dataFolder: data, builtinFolder: join(data, "none") });
    await plain.create(BUILTIN, { "SKILL.md": skillMd(BUILTIN) });
    const store = await Store.open({ dataFolder: data, builtinFolder: builtins });
    expect(store.report.builtinDiagnostics.map((item) => item.code)).toContain("invalid_front_matter");
    expect((await store.list()).map((skill) => [skill.name, skill.source])).toEqual([[BUILTIN, "builtin"]]);
    expect(store.report.findings.map((finding) => [finding.kind, finding.name])).toEqual([
      ["shadowed_by_builtin", BUILTIN],
    ]);
  });
});
