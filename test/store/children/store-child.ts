/**
 * A child process for the crash and concurrency tests, run as
 * `node --import tsx store-child.ts <mode> <data> <builtins> <prefix> <count>`.
 *
 * - `churn`: `count` writes of every kind (create, update, enable, disable, duplicate,
 *   delete) on the store's skills.
 * - `create`: creates `count` skills named `<prefix>-<n>`.
 * - `die`: `<prefix>` is `create`, `replace` or `delete` and `<count>` a change step: it
 *   applies that change to the skill `victim` and kills itself with SIGKILL right after the
 *   step; it exits with code 3 if the step never came.
 *
 * After each write it prints `done <n> <revision>` on its own line, so the parent can kill
 * it in the middle of the next write and check what every write returned.
 */
import { Store } from "../../../src/store/store.js";

const [mode, dataFolder, builtinFolder, prefix, countText] = process.argv.slice(2);
if (mode === undefined || dataFolder === undefined || builtinFolder === undefined || prefix === undefined) {
  throw new Error("usage: store-child.ts <churn|create|die> <data> <builtins> <prefix> <count>");
}
const count = Number(countText ?? "20");

const skillText = (name: string, body: string) =>
  `---\nname: ${name}\ndescription: Written by a child process of the store tests.\n---\n\n${body}\n`;

if (mode === "die") {
  const store = await Store.open({
    dataFolder,
    builtinFolder,
    lockStaleMs: 2_000,
    onChangeStep: (step, change) => {
      if (step === countText && change.name === "victim") process.kill(process.pid, "SIGKILL");
    },
  });
  if (prefix === "create") await store.create("victim", { "SKILL.md": skillText("victim", "New.") });
  else if (prefix === "replace") await store.updateFile("victim", "a.md", "v2\n");
  else await store.deleteSkill("victim");
  process.exit(3);
}

const store = await Store.open({ dataFolder, builtinFolder, lockStaleMs: 2_000 });

async function owned(): Promise<string[]> {
  return (await store.list()).filter((skill) => skill.source !== "builtin").map((skill) => skill.name);
}

async function churn(step: number): Promise<number> {
  const names = await owned();
  const pick = names[step % Math.max(names.length, 1)];
  const kind = pick === undefined || names.length < 3 ? 0 : step % 6;
  const fresh = `${prefix}-${step}`;
  switch (kind) {
    case 1:
      return (await store.updateFile(pick as string, `references/step-${step}.md`, `step ${step}\n`))
        .revision;
    case 2: {
      const skill = await store.get(pick as string);
      return (await store.enable(skill.name, { hash: skill.hash })).revision;
    }
    case 3:
      return (await store.disable(pick as string)).revision;
    case 4:
      return (await store.duplicate(pick as string, fresh)).revision;
    case 5:
      return names.length > 4 ? (await store.deleteSkill(pick as string)).revision : create(fresh);
    default:
      return create(fresh);
  }
}

async function create(name: string): Promise<number> {
  const result = await store.create(name, {
    "SKILL.md": skillText(name, `Step body for ${name}.`),
    "scripts/run.py": `print(${JSON.stringify(name)})\n`,
  });
  return result.revision;
}

for (let step = 0; step < count; step += 1) {
  const revision = mode === "churn" ? await churn(step) : await create(`${prefix}-${step}`);
  process.stdout.write(`done ${step + 1} ${revision}\n`);
}
