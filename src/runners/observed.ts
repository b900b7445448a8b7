import type { Runner, RunRequest, RunResult } from "./contract.js";

/** Who watches runs: a terminal that prints output as it comes, a server that streams it. */
export interface RunObserver {
  /** Output as the script writes it (only what is kept under the cap). */
  readonly onOutput?: (stream: "stdout" | "stderr", chunk: string) => void;
  /** Every run's raw result, refusals included, once it ends. */
  readonly onResult?: (request: RunRequest, result: RunResult) => void;
}

/**
 * A runner that tells `observer` about each run of `runner`, adding its output listener to
 * any the request already has. An observer that throws is ignored: it never changes a run.
 */
export function observedRunner(runner: Runner, observer: RunObserver): Runner {
  const onOutput = observer.onOutput;
  return {
    ...(runner.admit !== undefined ? { admit: (request: RunRequest) => runner.admit?.(request) } : {}),
    run: async (request) => {
      const own = request.onOutput;
      const listened: RunRequest =
        onOutput === undefined
          ? request
          : {
              ...request,
              onOutput: (stream, chunk) => {
                own?.(stream, chunk);
                quietly(() => onOutput(stream, chunk));
              },
            };
      const result = await runner.run(listened);
      quietly(() => observer.onResult?.(request, result));
      return result;
    },
  };
}

function quietly(action: () => void): void {
  try {
    action();
  } catch {
    // An observer's failure is its own.
  }
}
