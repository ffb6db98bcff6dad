// The shell: sign-in when signed out; else the signed-in app, loaded as its own chunk (signed-in-chunk.ts).
import { LoadFailed, Loading } from "./components.tsx";
import { SignIn } from "./pages/SignIn.tsx";
import { usePath } from "./router.tsx";
import { loadSignedIn, useSignedInChunk } from "./signed-in-chunk.ts";
import { useSession } from "./use-resource.ts";

export function App() {
  const session = useSession();
  // The path alone: a new query (the board's filters and view) re-renders the board, not the whole shell.
  const path = usePath();
  const { chunk, error } = useSignedInChunk(session !== null);
  if (!session) return <SignIn />;
  if (!chunk)
    return (
      <main className="page">
        {error ? <LoadFailed error={error} onRetry={loadSignedIn} what="the dashboard" /> : <Loading />}
      </main>
    );
  return <chunk.default key={session.user.id} path={path} userName={session.user.name} />;
}
