// startCallServer: the voice-call server from code (the `call` command uses it too).
import type { FastifyBaseLogger, FastifyServerOptions } from "fastify";
import { Authenticator } from "../auth/authenticator.ts";
import { TokenService } from "../auth/tokens.ts";
import { type Config, DEV_JWT_SECRET, loadConfig } from "../config.ts";
import { buildCore } from "../core.ts";
import { type Db, openDatabase } from "../db/index.ts";
import { migrateToLatest } from "../db/migrate.ts";
import { type CustomTools, loadCustomTools } from "../tools/custom.ts";
import { ToolInvoker } from "../tools/invoker.ts";
import { staticSource, ToolRegistry } from "../tools/registry.ts";
import { buildCallApp } from "./app.ts";
import { endCallDefinition, transferCallDefinition } from "./call-control.ts";
import { CarrierRest } from "./carrier-rest.ts";
import { PhoneAgent } from "./phone-agent.ts";
import { StreamTokens } from "./stream-token.ts";
import { WhisperLinks } from "./transfer.ts";
import { openTunnel, type Tunnel } from "./tunnel.ts";

export interface CallServerOptions {
  /** 0 picks a free port. */
  port: number;
  usePublic: boolean;
  /** Interface to bind; defaults to HOST (127.0.0.1). */
  host?: string;
  /** A tools file (or directory) to load instead of looking for tools.ts/.js/.mjs/.py in the working directory. */
  toolsPath?: string;
  /** Where to look for the tools file (default process.cwd()). */
  cwd?: string;
  config?: Config;
  /** Tools to offer instead of loading a tools file, for code that builds its own registry. */
  registry?: ToolRegistry;
  /** Waits before giving up on a silent peer: the carrier's `start`, the provider's `session.created` (10 s each). */
  timeouts?: { startMs?: number; sessionCreatedMs?: number };
  /** Fastify logger option; defaults to LOG_LEVEL on stdout. */
  logger?: FastifyServerOptions["logger"];
}

export interface CallServer {
  /** Local address, e.g. http://127.0.0.1:8090 */
  url: string;
  /** The tunnel's public address in public mode. */
  publicUrl?: string;
  /** The tools file loaded, if any. */
  toolsFile?: string;
  /** Names of the tools offered to the model, the built-in functions (end_call, transfer_call) first. */
  toolNames: string[];
  /** The server's logger (JSON lines). */
  log: FastifyBaseLogger;
  close(): Promise<void>;
}

/** A start-up problem the user can fix; its message is one line. */
export class CallServerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CallServerError";
  }
}

export async function startCallServer(options: CallServerOptions): Promise<CallServer> {
  const config = options.config ?? loadConfig();
  const { voice } = config;
  if (!voice.vendorApiKey) {
    throw new CallServerError("VENDOR_API_KEY is not set: the call server needs the realtime provider's API key.");
  }
  if (voice.twilioAccountSid && !voice.twilioAuthToken) {
    throw new CallServerError(
      "TWILIO_ACCOUNT_SID is set without TWILIO_AUTH_TOKEN: the carrier's REST API needs both.",
    );
  }
  if (voice.transferTargets.length > 0 && !voice.twilioAccountSid) {
    throw new CallServerError(
      "CALL_TRANSFER_TO needs TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN: transfers go through the carrier's REST API.",
    );
  }
  if (voice.agentId && !voice.workspaceId) {
    throw new CallServerError("CALL_AGENT_ID needs CALL_WORKSPACE_ID: the workspace the agent belongs to.");
  }
  if (voice.fileIssues && !voice.agentId) {
    throw new CallServerError("CALL_ISSUE needs CALL_AGENT_ID: the phone agent files each call on the board.");
  }
  if (options.usePublic && !voice.tunnelAuthToken) {
    throw new CallServerError("Public mode needs TUNNEL_AUTH_TOKEN (an ngrok authtoken) to open the tunnel.");
  }

  // A tools file that does not load stops the start (ToolsFileError names the file and line).
  let custom: CustomTools | undefined;
  let registry = options.registry;
  if (!registry) {
    custom = await loadCustomTools({ cwd: options.cwd, path: options.toolsPath });
    registry = new ToolRegistry().addSource(staticSource(custom.tools));
  }
  const builtIns = [endCallDefinition];
  if (voice.transferTargets.length > 0) builtIns.push(transferCallDefinition(voice.transferTargets));
  const builtInNames = new Set(builtIns.map((definition) => definition.name));
  const customTools = (await registry.list()).filter((tool) => !builtInNames.has(tool.name));

  let database: ReturnType<typeof openDatabase>;
  try {
    database = openDatabase(config.databaseUrl, { maxConnections: config.databasePoolSize });
  } catch (error) {
    await custom?.close();
    throw error;
  }
  // A phone agent needs what every run of an agent has: the platform and agent tools, the runtime (its skills).
  const core = voice.agentId ? buildCore(config, database.db, registry) : undefined;
  const tools = core?.tools ?? new ToolInvoker(registry, { timeoutMs: config.toolTimeoutMs });
  const phoneAgent =
    core && voice.agentId && voice.workspaceId
      ? new PhoneAgent({
          runtime: core.runtime,
          tools,
          db: database.db,
          workspaceId: voice.workspaceId,
          agentId: voice.agentId,
          fileCalls: voice.fileIssues,
        })
      : undefined;
  let tunnel: Tunnel | undefined;
  const sharedSecret = config.jwtSecret === DEV_JWT_SECRET ? undefined : config.jwtSecret;
  const app = await buildCallApp({
    bridge: {
      providerUrl: voice.realtimeUrl,
      apiKey: voice.vendorApiKey,
      apiVersion: voice.realtimeDialect,
      builtInDefinitions: builtIns,
      customTools,
      tools,
      phoneAgent,
      db: database.db,
      workspaceId: voice.workspaceId,
      carrier: carrierRestOf(voice),
      transferTargets: voice.transferTargets,
      recordingsDir: voice.recording ? voice.recordingsDir : undefined,
      tokens: new StreamTokens(database.db, sharedSecret),
      startTimeoutMs: options.timeouts?.startMs,
      sessionCreatedTimeoutMs: options.timeouts?.sessionCreatedMs,
    },
    twilioAuthToken: voice.twilioAuthToken,
    whisperLinks: new WhisperLinks(sharedSecret),
    publicOrigin: () => tunnel?.url ?? voice.publicUrl,
    logger: options.logger ?? { level: config.logLevel },
    metricsToken: config.operations.metricsToken,
    outbound: {
      authenticator:
        core?.authenticator ?? new Authenticator(database.db, new TokenService(config.jwtSecret, config.jwtTtlSeconds)),
      fromNumber: voice.fromNumber,
      maxPerMinute: voice.maxOutboundPerMinute,
    },
  });
  app.addHook("onClose", async () => {
    await tunnel?.close().catch(() => {});
    await core?.status.close();
    await custom?.close();
    await database.close();
  });

  try {
    await migrateToLatest(database.db);
    if (voice.workspaceId !== undefined) await checkCallWorkspace(database.db, voice.workspaceId, voice.agentId);
    const host = options.host ?? config.host;
    // Fastify's own "Server listening" line is held back: the caller reports the URL it gets back, once.
    const level = app.log.level;
    app.log.level = "warn";
    try {
      await app.listen({ port: options.port, host });
    } finally {
      app.log.level = level;
    }
    const address = app.server.address();
    const port = typeof address === "object" && address ? address.port : options.port;
    const urlHost = host.includes(":") ? `[${host}]` : host;
    if (options.usePublic) tunnel = await openTunnel(`127.0.0.1:${port}`, voice.tunnelAuthToken!);
    if ((tunnel || voice.publicUrl) && !voice.twilioAuthToken) {
      app.log.warn(
        "the webhook is public and TWILIO_AUTH_TOKEN is not set: requests are not checked for Twilio's signature",
      );
    }
    return {
      url: `http://${urlHost}:${port}`,
      publicUrl: tunnel?.url,
      toolsFile: custom?.file,
      toolNames: [...builtIns.map((definition) => definition.name), ...customTools.map((tool) => tool.name)],
      log: app.log,
      close: () => app.close(),
    };
  } catch (error) {
    await app.close();
    throw error;
  }
}

async function checkCallWorkspace(db: Db, workspaceId: string, agentId: string | undefined): Promise<void> {
  const workspace = await db.selectFrom("workspaces").select("id").where("id", "=", workspaceId).executeTakeFirst();
  if (!workspace) throw new CallServerError(`CALL_WORKSPACE_ID names no workspace in this database: ${workspaceId}`);
  if (agentId === undefined) return;
  const agent = await db
    .selectFrom("agents")
    .select("id")
    .where("id", "=", agentId)
    .where("workspace_id", "=", workspaceId)
    .executeTakeFirst();
  if (!agent) throw new CallServerError(`CALL_AGENT_ID names no agent of workspace ${workspaceId}: ${agentId}`);
}

/** The carrier's REST API when its credentials are set; without them call control falls back to the media stream. */
function carrierRestOf(voice: Config["voice"]): CarrierRest | undefined {
  if (!voice.twilioAccountSid || !voice.twilioAuthToken) return undefined;
  return new CarrierRest({
    accountSid: voice.twilioAccountSid,
    authToken: voice.twilioAuthToken,
    apiBase: voice.twilioApiBase,
  });
}
