// The shell: sign-in when signed out; else the signed-in app, loaded as its own chunk so the sign-in page comes up
// with only what it needs.
import { lazy, Suspense } from "react";
import { Loading } from "./components.tsx";
import { SignIn } from "./pages/SignIn.tsx";
import { usePath } from "./router.tsx";
import { useSession } from "./use-resource.ts";

const SignedIn = lazy(() => import("./SignedIn.tsx"));

export function App() {
  const session = useSession();
  // The path alone: a new query (the board's filters and view) re-renders the board, not the whole shell.
  const path = usePath();
  if (!session) return <SignIn />;
  return (
    <Suspense fallback={<Loading />}>
      <SignedIn key={session.user.id} path={path} userName={session.user.name} />
    </Suspense>
  );
}
