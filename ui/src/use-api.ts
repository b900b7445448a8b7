import { type DependencyList, useCallback, useEffect, useState } from "react";

/** A read of the API: its value, its error, and whether it is still loading. */
export interface Loaded<Value> {
  readonly value?: Value;
  readonly error?: unknown;
  readonly loading: boolean;
  /** Reads again. */
  readonly reload: () => void;
}

/**
 * Runs `read` when `dependencies` change (and on `reload`), keeping the last value shown while
 * a new read runs, so a live update does not blank the page. A read that is overtaken is ignored.
 */
export function useApi<Value>(read: () => Promise<Value>, dependencies: DependencyList): Loaded<Value> {
  const [state, setState] = useState<{ value?: Value; error?: unknown; loading: boolean }>({ loading: true });
  const [round, setRound] = useState(0);
  const reload = useCallback(() => setRound((value) => value + 1), []);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the caller names what the read depends on.
  useEffect(() => {
    let current = true;
    setState((previous) => ({ ...previous, loading: true }));
    read().then(
      (value) => {
        if (current) setState({ value, loading: false });
      },
      (error: unknown) => {
        if (current) setState((previous) => ({ ...previous, error, loading: false }));
      },
    );
    return () => {
      current = false;
    };
  }, [...dependencies, round]);
  return { ...state, reload };
}
