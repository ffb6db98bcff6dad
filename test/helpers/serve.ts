// `agent-platform serve` as a user starts it, as a child process on a given database: for tests of several real
// processes sharing one PostgreSQL (and of what happens when one is killed).
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor } from "../work/helpers.ts";
import { ApiClient } from "./app.ts";

const root = new URL("../../", import.meta.url).pathname;

export interface ServeProcess {
  child: ChildProcess;
  url: string;
  api: ApiClient;
  /** SIGKILL, then the working directory is removed. */
  kill(): void;
}

export async function startServeProcess(databaseUrl: string, env: Record<string, string> = {}): Promise<ServeProcess> {
  const cwd = mkdtempSync(join(tmpdir(), "agent-platform-serve-"));
  const child = spawn(process.execPath, [join(root, "bin/agent-platform.js"), "serve", "--port", "0"], {
    cwd,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: "warn", DATABASE_URL: databaseUrl, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.once("exit", () => rmSync(cwd, { recursive: true, force: true }));
  let output = "";
  const collect = (chunk: Buffer) => {
    output += chunk;
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const url = await waitFor(
    () => {
      if (child.exitCode !== null) throw new Error(`serve exited: ${output}`);
      return /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
    },
    "the server to listen",
    45_000,
  );
  return { child, url, api: new ApiClient(url), kill: () => child.kill("SIGKILL") };
}
