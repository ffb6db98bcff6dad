// What a runner keeps between starts: its runner_id, a UUID chosen once, so the server knows the machine again.
import { randomUUID } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";

const StateSchema = z.object({ runner_id: z.uuid() });

export async function runnerId(stateDir: string): Promise<string> {
  const file = join(stateDir, "runner.json");
  try {
    const state = StateSchema.safeParse(JSON.parse(await readFile(file, "utf8")));
    if (state.success) return state.data.runner_id;
  } catch {
    // first start, or a file that is not ours any more: choose again
  }
  const id = randomUUID();
  await writeFile(file, `${JSON.stringify({ runner_id: id }, null, 2)}\n`, { mode: 0o600 });
  return id;
}
