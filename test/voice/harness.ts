// Starts the real call server against a provider double and a throwaway database, and captures its log lines.
import { loadConfig } from "../../src/config.ts";
import { type DatabaseHandle, openDatabase, type SqlDialect } from "../../src/db/index.ts";
import type { Tool, ToolRegistry } from "../../src/tools/registry.ts";
import { type CallServer, startCallServer } from "../../src/voice/index.ts";
import { createTestDatabase } from "../helpers/databases.ts";
import { registryWith } from "../helpers/registry.ts";
import type { CarrierCall } from "./doubles/carrier.ts";
import {
  type ProviderConnection,
  type ProviderDialect,
  type ProviderDoubleOptions,
  RealtimeProviderDouble,
} from "./doubles/realtime-provider.ts";

export interface HarnessOptions extends Partial<ProviderDoubleOptions> {
  /** VENDOR_REALTIME_DIALECT (default auto). */
  configuredDialect?: "auto" | "ga" | "beta";
  tools?: Tool[];
  registry?: ToolRegistry;
  /** Load the tools file from here (the server's own loader) instead of `tools`/`registry`. */
  toolsPath?: string;
  database?: SqlDialect;
  /** Serve the database of another harness (a second call process) instead of a throwaway one of its own. */
  sharedDatabaseUrl?: string;
  env?: Record<string, string>;
  timeouts?: { startMs?: number; sessionCreatedMs?: number };
}

export interface Harness {
  server: CallServer;
  provider: RealtimeProviderDouble;
  /** A second handle on the server's database, to read what it stored. */
  database: DatabaseHandle;
  databaseUrl: string;
  logs: string[];
  close(): Promise<void>;
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const dialect: ProviderDialect = options.dialect ?? "ga";
  const provider = await RealtimeProviderDouble.start({ ...options, dialect });
  const testDatabase =
    options.sharedDatabaseUrl === undefined
      ? await createTestDatabase(options.database ?? "sqlite")
      : { url: options.sharedDatabaseUrl, drop: async () => {} };
  const config = loadConfig({
    VENDOR_API_KEY: "test-vendor-key",
    VENDOR_REALTIME_URL: provider.url,
    VENDOR_REALTIME_DIALECT: options.configuredDialect ?? "auto",
    DATABASE_URL: testDatabase.url,
    ...options.env,
  });
  const logs: string[] = [];
  const registry =
    options.toolsPath === undefined ? (options.registry ?? registryWith(...(options.tools ?? []))) : undefined;
  let server: CallServer;
  try {
    server = await startCallServer({
      port: 0,
      usePublic: false,
      config,
      registry,
      toolsPath: options.toolsPath,
      timeouts: options.timeouts,
      logger: { level: "info", stream: { write: (line: string) => void logs.push(line) } },
    });
  } catch (error) {
    await provider.close();
    await testDatabase.drop();
    throw error;
  }
  const database = openDatabase(testDatabase.url);
  return {
    server,
    provider,
    database,
    databaseUrl: testDatabase.url,
    logs,
    close: async () => {
      await server.close();
      await provider.close();
      await database.close();
      await testDatabase.drop();
    },
  };
}

/**
 * The bridge has handled everything the carrier sent before this point, and the provider has received everything
 * the bridge wrote to it before: a caller frame sent now reaches the provider after all of it.
 */
export async function settle(call: CarrierCall, provider: ProviderConnection): Promise<void> {
  const before = provider.ofType("input_audio_buffer.append").length;
  call.sendMediaFrame(Buffer.alloc(160, 0xff).toString("base64"));
  await provider.waitForType("input_audio_buffer.append", before + 1);
}

/**
 * The bridge has handled everything the provider sent before this point, and the carrier has received everything
 * the bridge wrote to it before: provider audio sent now reaches the carrier after all of it.
 */
export async function settleFromProvider(call: CarrierCall, provider: ProviderConnection): Promise<void> {
  const before = call.ofEvent("media").length;
  provider.sendAudio("item_settle", Buffer.alloc(160, 0xff), 160);
  await call.waitFor(() => call.ofEvent("media").length > before);
}
