import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { packFolder } from "../../src/nodes/packages/package-builder.js";
import { extractPackage } from "../../src/nodes/packages/package-extract.js";
import { hashSkillFolder } from "../../src/skill/content-hash.js";
import { seededRandom } from "../helpers/seeded-random.js";
import { makeTree } from "../helpers/skill-tree.js";

const NAMES = [
  "SKILL.md",
  "run.py",
  "a",
  "b.txt",
  "Z",
  "é.md",
  "x-y_z.sh",
  `${"long".repeat(30)}.txt`,
  ".hidden",
];
const FOLDERS = ["scripts", "references", "a", "deep/er", `${"d".repeat(90)}/${"e".repeat(90)}`, "é"];

describe("packages of random skill trees", () => {
  it("unpack to the same content hash, and two copies give the same bytes", () => {
    const random = seededRandom("SKILLGATE_TEST_SEED", "npx vitest run test/nodes/package-roundtrip.test.ts");
    const pick = <Item>(items: readonly Item[]): Item => items[random.below(items.length)] as Item;
    for (let round = 0; round < 25; round += 1) {
      const tree = makeTree("skillgate-roundtrip-");
      const source = join(tree, "source");
      mkdirSync(source);
      const count = 1 + random.below(12);
      const taken = new Set<string>();
      for (let index = 0; index < count; index += 1) {
        const path = random.below(3) === 0 ? pick(NAMES) : `${pick(FOLDERS)}/${pick(NAMES)}`;
        // A name already used as a folder (or the reverse) cannot be both.
        if ([...taken].some((other) => other.startsWith(`${path}/`) || path.startsWith(`${other}/`)))
          continue;
        taken.add(path);
        const size = random.below(4) === 0 ? random.below(70_000) : random.below(600);
        const bytes = Buffer.alloc(size);
        for (let offset = 0; offset < size; offset += 1)
          bytes[offset] = random.below(4) === 0 ? random.below(256) : 97;
        mkdirSync(dirname(join(source, path)), { recursive: true });
        writeFileSync(join(source, path), bytes);
      }
      const hash = hashSkillFolder(source).hash as string;
      const copy = join(tree, "copy");
      cpSync(source, copy, { recursive: true });
      const built = packFolder(source, hash);
      expect(packFolder(copy, hash).bytes.equals(built.bytes)).toBe(true);
      const out = join(tree, "out");
      extractPackage(built.bytes, out);
      expect(hashSkillFolder(out).hash).toBe(hash);
    }
  });
});
