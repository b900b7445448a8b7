import type { Runner } from "../runners/contract.js";

/**
 * The runner used when an embedder gives none: it runs nothing and says so, in the form a
 * model understands. The sandbox and local runners replace it once configured.
 */
export const unavailableRunner: Runner = {
  run: async (request) => ({
    status: "refused",
    exitCode: null,
    stdout: "",
    stderr: "",
    stdoutTruncated: false,
    stderrTruncated: false,
    durationMs: 0,
    message: `HOST: no runner for ${request.execution} scripts is configured on this host, so ${request.script} did not run.`,
  }),
};
