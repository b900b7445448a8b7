import { createContext, type ReactNode, useContext, useEffect, useState } from "react";
import { subscribeToEvents } from "./api/events.js";
import type { ServerEvent } from "./api/types.js";

/** What the open event stream has told: a counter pages refetch on, and the last event. */
export interface LiveState {
  readonly version: number;
  readonly last?: ServerEvent;
}

const LiveContext = createContext<LiveState>({ version: 0 });

/** Keeps `/api/events` open while signed in; every update bumps the version. */
export function LiveProvider(props: { readonly children: ReactNode }): ReactNode {
  const [state, setState] = useState<LiveState>({ version: 0 });
  useEffect(
    () =>
      subscribeToEvents((event) => setState((previous) => ({ version: previous.version + 1, last: event }))),
    [],
  );
  return <LiveContext.Provider value={state}>{props.children}</LiveContext.Provider>;
}

/** The live state: pages list `version` in their effects' dependencies to refetch on updates. */
export function useLive(): LiveState {
  return useContext(LiveContext);
}
