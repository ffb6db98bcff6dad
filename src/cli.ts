// agent-platform serve | call | mcp | migrate
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import { type Config, ConfigError, loadConfig } from "./config.ts";
import { openDatabase } from "./db/index.ts";
import { migrateToLatest } from "./db/migrate.ts";
import { runMcpCommand } from "./mcp/stdio-command.ts";
import { Drain } from "./ops/drain.ts";
import { runnerCommand } from "./runner/command.ts";
import { buildServer } from "./server.ts";
import { loadCustomTools, ToolsFileError } from "./tools/custom.ts";
import { staticSource, ToolRegistry } from "./tools/registry.ts";
import { runCallCommand } from "./voice/index.ts";

const USAGE = `Usage:
  agent-platform serve [--host 127.0.0.1] [--port 8000] [--tools PATH]   platform API, tool protocol, agent UI
  agent-platform call [--public] [--port 8090] [--tools PATH]             voice-call server
  agent-platform mcp [--tools PATH] [--workspace ID]                      tool protocol over stdio
  agent-platform migrate                                                  bring the database schema up to date`;

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

function readConfig(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message);
    throw error;
  }
}

function parsePort(value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`Invalid --port: ${value} (expected 0-65535)`);
  return port;
}

async function serve(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { host: { type: "string" }, port: { type: "string" }, tools: { type: "string" } },
  });
  const config = readConfig();
  const host = values.host ?? config.host;
  const port = parsePort(values.port, config.port ?? 8000);
  const custom = await loadTools(values.tools);
  const database = openDatabase(config.databaseUrl, { maxConnections: config.databasePoolSize });
  const applied = await migrateToLatest(database.db);
  const registry = new ToolRegistry().addSource(staticSource(custom.tools));
  const drain = new Drain();
  const app = await buildServer({ config, database, registry, drain });
  if (applied.length) app.log.info({ migrations: applied }, "applied migrations");

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    const { drainDelayMs, shutdownTimeoutMs } = config.operations;
    app.log.info({ signal, drainDelayMs }, "draining");
    drain.start(); // /ready answers 503, the worker claims no more tasks
    if (drainDelayMs > 0) await sleep(drainDelayMs);
    // Past the bound, what is still open (an agent run's stream, a slow request) is cut so the stop stays bounded.
    const cut = setTimeout(() => {
      app.log.warn({ shutdownTimeoutMs }, "shutdown bound reached: cutting the connections still open");
      app.server.closeAllConnections();
    }, shutdownTimeoutMs);
    await app.close(); // ends event streams (clients resume elsewhere), lets requests in flight finish
    clearTimeout(cut);
    await custom.close();
    await database.close();
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));

  const tools = custom.file ? `, ${custom.tools.length} tools from ${custom.file}` : "";
  // Fastify's own start-up log line (JSON, like every other), in our words.
  await app.listen({
    host,
    port,
    listenTextResolver: (address) =>
      `agent-platform listening on ${address} (docs ${address}/docs, database ${database.location}${tools})`,
  });
}

/** The tools file of the working directory or --tools; a file that does not load stops the start with its line. */
async function loadTools(path: string | undefined) {
  try {
    return await loadCustomTools(path === undefined ? {} : { path });
  } catch (error) {
    if (error instanceof ToolsFileError) fail(error.message);
    throw error;
  }
}

async function migrate(): Promise<void> {
  const config = readConfig();
  const database = openDatabase(config.databaseUrl, { maxConnections: config.databasePoolSize });
  const applied = await migrateToLatest(database.db);
  await database.close();
  console.log(applied.length ? `Applied ${applied.join(", ")}` : "Database is up to date");
}

const [command, ...rest] = process.argv.slice(2);
try {
  switch (command) {
    case "serve":
    case undefined:
      await serve(rest);
      break;
    case "call":
      process.exitCode = await runCallCommand(rest);
      break;
    case "mcp":
      process.exitCode = await runMcpCommand(rest);
      break;
    case "migrate":
      await migrate();
      break;
    case "runner":
      process.exitCode = await runnerCommand(rest, process.env);
      break;
    case "--help":
    case "-h":
    case "help":
      console.log(USAGE);
      break;
    default:
      fail(`Unknown command: ${command}\n${USAGE}`);
  }
} catch (error) {
  fail(error instanceof Error ? `agent-platform: ${error.message}` : String(error));
}
