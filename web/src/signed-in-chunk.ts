// The signed-in app is a chunk of its own, so the sign-in page comes up with only what it needs. It is loaded here,
// not through React.lazy: React shows a suspended tree's content no sooner than 300 ms after its fallback appeared
// (its FALLBACK_THROTTLE_MS), which held every sign-in and every reload ~300 ms on "Loading…" after the chunk had
// arrived (bench/web.ts, "sign-in click → all cards").
import { useEffect, useSyncExternalStore } from "react";

type Chunk = typeof import("./SignedIn.tsx");

interface ChunkState {
  chunk?: Chunk;
  error?: unknown;
}

let state: ChunkState = {};
let loading = false;
const listeners = new Set<() => void>();

/** Starts loading the chunk unless it is loaded or on its way (the sign-in form calls it beside its request). */
export function loadSignedIn(): void {
  if (state.chunk || loading) return;
  loading = true;
  import("./SignedIn.tsx").then(
    (chunk) => settle({ chunk }),
    // In words a person can act on: the browser's own message is a module URL.
    () => settle({ error: new Error("its code could not be fetched from the server") }),
  );
}

function settle(next: ChunkState): void {
  loading = false;
  state = next;
  for (const listener of listeners) listener();
}

function subscribe(onChange: () => void): () => void {
  listeners.add(onChange);
  return () => listeners.delete(onChange);
}

/** The chunk once loaded, or why it failed; loading starts when `wanted`. */
export function useSignedInChunk(wanted: boolean): ChunkState {
  const current = useSyncExternalStore(subscribe, () => state);
  useEffect(() => {
    if (wanted && !current.error) loadSignedIn();
  }, [wanted, current.error]);
  return current;
}
