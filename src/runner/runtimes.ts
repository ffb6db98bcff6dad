// What a runner offers: one runtime per agent CLI found on PATH, one per `--runtime name=command`.

export const CLI_KINDS = ["claude", "codex", "opencode", "gemini"] as const;
type CliKind = (typeof CLI_KINDS)[number];
export type RuntimeKind = CliKind | "command";

/** A runtime as this machine knows it: `command` is the executable's path, or the shell command of a `command` runtime. */
export interface LocalRuntime {
  name: string;
  kind: RuntimeKind;
  command: string;
  version?: string;
  tags: string[];
}

/** Runtime names are short words, as the dashboard and `--runtime name=command` show them. */
export const RUNTIME_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
