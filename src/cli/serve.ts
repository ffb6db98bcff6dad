// `agent-platform serve`: the platform API, the tool protocol, the agent UI and the dashboard on one port.
import { setTimeout as sleep } from "node:timers/promises";
import { type Config, ConfigError, loadConfig } from "../config.ts";
import { openDatabase } from "../db/index.ts";
import { migrateToLatest } from "../db/migrate.ts";
import { Drain } from "../ops/drain.ts";
import { buildServer } from "../server.ts";
import { loadCustomTools, ToolsFileError } from "../tools/custom.ts";
import { staticSource, ToolRegistry } from "../tools/registry.ts";
import { portOption } from "./options.ts";

/** Resolves with 0 once it listens; the process then runs until SIGINT/SIGTERM, which drain and stop it. */
export async function serve(values: { host?: string; port?: string; tools?: string }): Promise<number> {
  const portFlag = portOption("port", values.port);
  let config: Config;
  let custom: Awaited<ReturnType<typeof loadCustomTools>>;
  try {
    config = loadConfig();
    // The tools file of the working directory or --tools; one that does not load stops the start with its line.
    custom = await loadCustomTools(values.tools === undefined ? {} : { path: values.tools });
  } catch (error) {
    if (!(error instanceof ConfigError || error instanceof ToolsFileError)) throw error;
    console.error(error.message);
    return 1;
  }
  const host = values.host ?? config.host;
  const port = portFlag ?? config.port ?? 8000;
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
  return 0;
}
