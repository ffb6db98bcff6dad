// `agent-platform mcp [--tools PATH] [--workspace ID]`: the tool protocol over stdio, for clients that start their
// servers as commands (Claude Desktop, Cursor, VS Code, the MCP Inspector). stdout carries protocol messages only;
// logs are JSON lines on stderr.
//
// Who the tools act as: with AGENT_PLATFORM_API_KEY, the key's workspace and its creator, exactly as over HTTP.
// With --workspace ID alone, that workspace as its first owner: whoever runs the command already holds the database
// (DATABASE_URL), so no credential could stop them, and issues and comments need a member to be written by.
import { parseArgs } from "node:util";
import type { Authenticator } from "../auth/authenticator.ts";
import { type Config, ConfigError, loadConfig } from "../config.ts";
import { buildCore } from "../core.ts";
import { type DatabaseHandle, type Db, openDatabase } from "../db/index.ts";
import { migrateToLatest } from "../db/migrate.ts";
import { isId } from "../db/values.ts";
import { HttpError } from "../http/errors.ts";
import { VERSION } from "../server.ts";
import { loadCustomTools, ToolsFileError } from "../tools/custom.ts";
import { ToolInvoker } from "../tools/invoker.ts";
import { staticSource, type ToolContext, ToolRegistry } from "../tools/registry.ts";
import { McpDispatcher } from "./dispatcher.ts";
import { serveStdio } from "./stdio.ts";

const USAGE =
  "usage: agent-platform mcp [--tools PATH] [--workspace ID]   (AGENT_PLATFORM_API_KEY: a workspace API key)";

/** A start-up problem worth one line on stderr and exit code 1. */
class StdioStartError extends Error {}

/** Runs until stdin closes or a signal arrives; resolves with the process exit code. */
export async function runMcpCommand(args: string[]): Promise<number> {
  // Tools that print (console.log in a tools.ts) must not break the protocol on stdout.
  console.log = console.info = console.debug = console.error;
  let flags: { tools?: string; workspace?: string; help?: boolean };
  try {
    flags = parseArgs({
      args,
      options: { tools: { type: "string" }, workspace: { type: "string" }, help: { type: "boolean", short: "h" } },
      strict: true,
    }).values;
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return 2;
  }
  if (flags.help) {
    console.error(USAGE);
    return 0;
  }
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    return 1;
  }
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
      await migrateToLatest(database.db);
      const core = buildCore(config, database.db, registry);
      closeStatus = () => core.status.close();
      tools = core.tools;
      caller = await actingCaller(
        core.authenticator,
        database.db,
        config.mcp.apiKey,
        flags.workspace,
        database.location,
      );
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
  location: string,
): Promise<ToolContext> {
  if (apiKey !== undefined) {
    let key: { workspaceId: string } | undefined;
    let userId: string;
    try {
      const principal = await authenticator.authenticate({ "x-api-key": apiKey });
      key = principal?.apiKey;
      userId = principal?.user.id ?? "";
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      throw new StdioStartError(`AGENT_PLATFORM_API_KEY: ${error.detail} (database ${location})`);
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
  if (!owner) throw new StdioStartError(`--workspace ${workspaceId}: no such workspace in database ${location}`);
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
