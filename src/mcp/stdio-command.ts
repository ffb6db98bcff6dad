// `agent-platform mcp`: the tool protocol over stdio, for clients that start their servers as commands (Claude
// Desktop, Cursor, VS Code, the MCP Inspector). stdout carries protocol messages only; logs are JSON lines on stderr.
//
// Who the tools act as: with AGENT_PLATFORM_API_KEY, the key's workspace and its creator, exactly as over HTTP.
// With --workspace ID alone, that workspace as its first owner: whoever runs the command already holds the database
// (DATABASE_URL), so no credential could stop them, and issues and comments need a member to be written by.
import type { Authenticator } from "../auth/authenticator.ts";
import { loadConfigForCommand } from "../config.ts";
import { buildCore } from "../core.ts";
import { type DatabaseHandle, type Db, openDatabase } from "../db/index.ts";
import { migrateToLatest } from "../db/migrate.ts";
import { isId } from "../db/values.ts";
import { HttpError } from "../http/errors.ts";
import { loadCustomTools, ToolsFileError } from "../tools/custom.ts";
import { ToolInvoker } from "../tools/invoker.ts";
import { staticSource, type ToolContext, ToolRegistry } from "../tools/registry.ts";
import { VERSION } from "../version.ts";
import { McpDispatcher } from "./dispatcher.ts";
import { serveStdio } from "./stdio.ts";

/** A start-up problem worth one line on stderr and exit code 1. */
class StdioStartError extends Error {}

export interface McpFlags {
  tools?: string;
  workspace?: string;
}

/** Runs until stdin closes or a signal arrives; resolves with the process exit code. */
export async function runMcpCommand(flags: McpFlags): Promise<number> {
  // Tools that print (console.log in a tools.ts) must not break the protocol on stdout.
  console.log = console.info = console.debug = console.error;
  const config = loadConfigForCommand();
  if (config === undefined) return 1;
  const log = stderrLog(config.logLevel);

  let custom: Awaited<ReturnType<typeof loadCustomTools>>;
  try {
    custom = await loadCustomTools(flags.tools === undefined ? {} : { path: flags.tools });
  } catch (error) {
    if (!(error instanceof ToolsFileError)) throw error;
    console.error(error.message);
    return 1;
  }
  const registry = new ToolRegistry().addSource(staticSource(custom.tools));
  let tools = new ToolInvoker(registry, { timeoutMs: config.toolTimeoutMs });
  let database: DatabaseHandle | undefined;
  let caller: ToolContext = {};
  let closeStatus = async () => {};
  const closeAll = async () => {
    await closeStatus();
    await custom.close();
    await database?.close();
  };
  try {
    if (config.mcp.apiKey !== undefined || flags.workspace !== undefined) {
      database = openDatabase(config.databaseUrl, { maxConnections: config.databasePoolSize });
      const applied = await migrateToLatest(database.db);
      // Keys and workspaces live in the database they were made in: a run in another directory makes a new one.
      const where = applied.includes("0001_init")
        ? `database ${database.location} (created just now, so empty: set DATABASE_URL to the platform's database)`
        : `database ${database.location}`;
      const core = buildCore(config, database.db, registry);
      closeStatus = () => core.status.close();
      tools = core.tools;
      caller = await actingCaller(core.authenticator, database.db, config.mcp.apiKey, flags.workspace, where);
    }
  } catch (error) {
    await closeAll();
    if (!(error instanceof StdioStartError)) throw error;
    console.error(error.message);
    return 1;
  }

  const dispatcher = new McpDispatcher(tools, { name: "agent-platform", version: VERSION }, (error) =>
    log("error", "tool-protocol request failed", { err: serializeError(error) }),
  );
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  log("info", "tool protocol on stdio", {
    tools: (await registry.list(caller)).length,
    ...(custom.file && { toolsFile: custom.file }),
    ...(caller.workspaceId && { workspaceId: caller.workspaceId, actingUserId: caller.userId }),
    ...(database && { database: database.location }),
  });
  await serveStdio(dispatcher, { input: process.stdin, output: process.stdout, caller, stop: stop.signal });
  process.off("SIGINT", onSignal);
  process.off("SIGTERM", onSignal);
  await closeAll();
  log("info", stop.signal.aborted ? "stopped by a signal" : "stdin closed");
  return 0;
}

/** The API key's workspace and creator; or the chosen workspace, as its first owner. */
async function actingCaller(
  authenticator: Authenticator,
  db: Db,
  apiKey: string | undefined,
  workspaceId: string | undefined,
  /** The database looked in, as the error lines name it. */
  where: string,
): Promise<ToolContext> {
  if (apiKey !== undefined) {
    let key: { workspaceId: string } | undefined;
    let userId: string;
    try {
      const principal = await authenticator.authenticate({ "x-api-key": apiKey });
      key = principal?.apiKey;
      userId = principal?.user.id ?? "";
    } catch (error) {
      // The one 401 of an API key: no key with that secret (a revoked key is gone too).
      if (!(error instanceof HttpError)) throw error;
      throw new StdioStartError(`AGENT_PLATFORM_API_KEY: no such API key in ${where}`);
    }
    if (!key) throw new StdioStartError("AGENT_PLATFORM_API_KEY: not a workspace API key");
    if (workspaceId !== undefined && workspaceId !== key.workspaceId) {
      throw new StdioStartError(`--workspace ${workspaceId} is not the workspace of AGENT_PLATFORM_API_KEY`);
    }
    return { workspaceId: key.workspaceId, userId };
  }
  const owner =
    workspaceId !== undefined && isId(workspaceId)
      ? await db
          .selectFrom("members")
          .select("user_id")
          .where("workspace_id", "=", workspaceId)
          .where("role", "=", "owner")
          .orderBy("created_at")
          .orderBy("user_id")
          .executeTakeFirst()
      : undefined;
  if (!owner) throw new StdioStartError(`--workspace ${workspaceId}: no such workspace in ${where}`);
  return { workspaceId, userId: owner.user_id };
}

const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Number.POSITIVE_INFINITY };

/** One JSON line per entry on stderr, in the shape of the server's logs. */
function stderrLog(level: keyof typeof LEVELS) {
  const threshold = LEVELS[level];
  return (at: "info" | "error", msg: string, fields: Record<string, unknown> = {}) => {
    if (LEVELS[at] < threshold) return;
    process.stderr.write(
      `${JSON.stringify({ level: LEVELS[at], time: Date.now(), pid: process.pid, msg, ...fields })}\n`,
    );
  };
}

function serializeError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { message: String(error) };
  return { type: error.name, message: error.message, stack: error.stack };
}
