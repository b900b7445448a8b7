import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "ui/test/**/*.test.ts"],
    // A private HOME, XDG folders and SKILLGATE_HOME per test file: no test sees the user's skills.
    setupFiles: ["test/setup/private-home.ts"],
    // Child processes and real file systems: give slow CI machines room without asserting on time.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});
