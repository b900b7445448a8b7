import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import yazl from "yazl";

/** A minimal valid SKILL.md. */
export const SKILL_MD = "---\nname: demo\ndescription: A demo skill for import tests.\n---\n\nDo the demo.\n";

/** Builds a zip with yazl from path → content (a string or bytes), deflated unless `store` is set. */
export async function yazlZip(
  files: Record<string, string | Buffer>,
  options: { store?: boolean; mode?: Record<string, number> } = {},
): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [path, content] of Object.entries(files)) {
    const mode = options.mode?.[path];
    zip.addBuffer(Buffer.isBuffer(content) ? content : Buffer.from(content), path, {
      compress: options.store !== true,
      ...(mode === undefined ? {} : { mode }),
    });
  }
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const createdRoots: string[] = [];

/** A fresh temp root holding one empty `target` folder, as the store's staging folder would be. */
export async function emptyTarget(): Promise<{ root: string; target: string }> {
  const root = await mkdtemp(join(tmpdir(), "skillgate-import-"));
  createdRoots.push(root);
  const target = join(root, "target");
  await mkdir(target);
  return { root, target };
}

/** Every entry below `folder`, recursively, sorted; for "nothing was written" checks. */
export async function listTree(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true });
  return entries.map(String).sort();
}

/** Incompressible bytes. */
export function noise(size: number): Buffer {
  return randomBytes(size);
}

/** Text that deflates about 2:1 to 3:1, like real scripts (hex of random bytes). */
export function hexText(size: number): Buffer {
  return Buffer.from(
    randomBytes(Math.ceil(size / 2))
      .toString("hex")
      .slice(0, size),
  );
}

/** Removes every root made by {@link emptyTarget}; call it from `afterAll`. */
export async function removeTargets(): Promise<void> {
  for (const root of createdRoots.splice(0)) await rm(root, { recursive: true, force: true });
}
