// Which CLI a working directory's session belongs to, kept beside the folder (DIR/work/<task id>.session.json):
// a session of one CLI is never handed to another (an agent's pool can hold several kinds).
import { existsSync, writeFileSync } from "node:fs";
import { readFile, rm } from "node:fs/promises";
import { z } from "zod";
import type { RuntimeKind } from "./runtimes.ts";

const SessionSchema = z.object({ kind: z.string(), session_id: z.string() });

function markerOf(workDir: string): string {
  return `${workDir.replace(/[/\\]+$/, "")}.session.json`;
}

/** Written as the CLI names its session, before the server hears of it. */
export function rememberSession(workDir: string, kind: RuntimeKind, sessionId: string): void {
  writeFileSync(markerOf(workDir), JSON.stringify({ kind, session_id: sessionId }));
}

export async function readSession(workDir: string): Promise<z.infer<typeof SessionSchema> | undefined> {
  try {
    const parsed = SessionSchema.safeParse(JSON.parse(await readFile(markerOf(workDir), "utf8")));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export async function forgetSession(workDir: string): Promise<void> {
  const marker = markerOf(workDir);
  if (existsSync(marker)) await rm(marker, { force: true });
}
