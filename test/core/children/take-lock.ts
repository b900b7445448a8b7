import { existsSync } from "node:fs";
import { tryLock } from "../../../src/core/file-lock.js";

/**
 * One contender for a lock: waits until the start time (so contenders race), tries the lock
 * once and prints `taken` or `busy`. A winner keeps the lock until the `done` file appears,
 * so every other contender meets it held.
 */
const [lock = "", startAt = "0", done = ""] = process.argv.slice(2);
while (Date.now() < Number(startAt)) {
  // Spin: a timer's granularity would spread the contenders apart.
}
const held = tryLock(lock, { staleMs: 60_000 });
process.stdout.write(held === undefined ? "busy\n" : "taken\n");
if (held !== undefined) {
  const wait = (): void => {
    if (existsSync(done)) held.release();
    else setTimeout(wait, 10);
  };
  wait();
}
