// A secret the server shows once (a new API key, a new webhook's signing secret): said so, with Copy and Done.
import type { ReactNode } from "react";
import { CopyButton } from "../../components/CopyButton.tsx";

export function SecretOnce(props: { secret: string; children: ReactNode; onDone: () => void }) {
  return (
    <div className="notice" role="status">
      <p>{props.children}. Copy it now: it is not shown again.</p>
      <code className="secret">{props.secret}</code>
      <div className="actions left">
        <CopyButton text={props.secret} />
        <button type="button" className="ghost small" onClick={props.onDone}>
          Done
        </button>
      </div>
    </div>
  );
}
