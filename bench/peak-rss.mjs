/**
 * Preloaded with `node --import bench/peak-rss.mjs …` by the scale benchmark: when the
 * process exits, it writes one JSON line to file descriptor 3 (a pipe the benchmark
 * opened) with the process's peak resident set size, so the real CLI is measured as it
 * is, with nothing added on its path but this exit handler.
 */

import { writeSync } from "node:fs";

process.on("exit", () => {
  try {
    writeSync(3, `${JSON.stringify({ maxRss: process.resourceUsage().maxRSS * 1024 })}\n`);
  } catch {
    // No descriptor 3: run by hand, nothing to report to.
  }
});
