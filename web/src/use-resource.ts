// Loads something from the API for a view, and reloads it on demand (live updates call reload).
import { useCallback, useEffect, useRef, useState } from "react";
import { getSession, onSessionChange } from "./api.ts";
import type { Session } from "./api-types.ts";

export interface Resource<T> {
  data: T | undefined;
  error: Error | undefined;
  reload: () => void;
  /** Replaces the data at once (optimistic changes), until the next load. */
  set: (update: (data: T) => T) => void;
}

export function useResource<T>(load: () => Promise<T>, deps: unknown[]): Resource<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<Error | undefined>(undefined);
  const generation = useRef(0);
  const latest = useRef(load);
  latest.current = load;

  const reload = useCallback(() => {
    const mine = ++generation.current;
    setError(undefined);
    latest
      .current()
      .then((value) => {
        if (mine !== generation.current) return;
        setData(value);
        setError(undefined);
      })
      .catch((failure: Error) => {
        if (mine === generation.current) setError(failure);
      });
  }, []);

  // The caller's deps say when to load again; compared by value, as React compares them by identity.
  const key = JSON.stringify(deps);
  // biome-ignore lint/correctness/useExhaustiveDependencies: key stands for the caller's deps
  useEffect(() => {
    setData(undefined);
    reload();
  }, [key, reload]);

  const set = useCallback((update: (data: T) => T) => {
    generation.current++;
    setData((previous) => (previous === undefined ? previous : update(previous)));
  }, []);
  return { data, error, reload, set };
}

export function useSession(): Session | null {
  const [session, setSession] = useState(getSession());
  useEffect(() => onSessionChange(setSession), []);
  return session;
}

/** Asks again each time `signal` changes after the first load, keeping what is on screen meanwhile. */
export function useReloadOn(signal: unknown, reload: () => void): void {
  const seen = useRef(signal);
  useEffect(() => {
    if (Object.is(seen.current, signal)) return;
    seen.current = signal;
    reload();
  }, [signal, reload]);
}
