import { writeFile } from "node:fs/promises";
import { join } from "node:path";

/** Writes a file only this user can read (it holds the task token) into the task's private folder. */
export async function writeSecretFile(secretsDir: string, name: string, content: string): Promise<string> {
  const path = join(secretsDir, name);
  await writeFile(path, content, { mode: 0o600 });
  return path;
}

/** The name the platform's MCP server has in every CLI's configuration: its tools read `mcp__platform__…`. */
export const MCP_SERVER_NAME = "platform";
