import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";

/**
 * Writes JSON only this user can read (it holds the task token) into the task's private folder, made by the first
 * file (a CLI that needs none costs no folder); its path.
 */
export async function writeSecretJson(secretsDir: string, name: string, value: unknown): Promise<string> {
  await mkdir(secretsDir, { recursive: true, mode: 0o700 });
  const path = join(secretsDir, name);
  await writeFile(path, JSON.stringify(value), { mode: 0o600 });
  return path;
}

/** The header that gives a CLI's MCP client the task token. */
export const taskTokenHeaders = (input: { taskToken: string }) => ({ Authorization: `Bearer ${input.taskToken}` });

/** The name the platform's MCP server has in every CLI's configuration: its tools read `mcp__platform__…`. */
export const MCP_SERVER_NAME = "platform";
