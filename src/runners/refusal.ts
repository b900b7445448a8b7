import type { RunRefusalCode, RunResult } from "./contract.js";

/**
 * A run that did not start: status `refused`, the `HOST:` text a model is shown (ending in
 * the stable code in brackets, as every skillgate refusal does) and the code itself.
 */
export function refusal(code: RunRefusalCode | (string & {}), text: string): RunResult {
  const body = text.startsWith("HOST:") ? text : `HOST: ${text}`;
  return {
    status: "refused",
    exitCode: null,
    stdout: "",
    stderr: "",
    stdoutTruncated: false,
    stderrTruncated: false,
    durationMs: 0,
    message: `${body} [${code}]`,
    code,
  };
}
