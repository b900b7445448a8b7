import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Child processes and real file systems: give slow CI machines room without asserting on time.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});
