// Every environment variable the service reads, parsed and validated in one place.
// Nothing else in the code base reads process.env.
import { isIP } from "node:net";
import { z } from "zod";

export const DEV_JWT_SECRET = "agent-platform-development-secret-change-me";
const MIN_SECRET_BYTES = 32;
const DEFAULT_REGISTER_RATE_LIMIT = 20;

/** Which environment variable each setting of the schema below is read from. */
const environment = z.registry<{ variable: string }>();

/** A setting read from `variable`: unset and empty are the same; `schema` holds its default, parse and message. */
function fromEnv<T extends z.ZodType>(variable: string, schema: T) {
  const setting = z.preprocess((value) => (value === "" ? undefined : value), schema);
  environment.add(setting, { variable });
  return setting;
}

const text = (fallback: string) => z.string().default(fallback);
const flag = () =>
  z
    .enum(["true", "false", "1", "0", "yes", "no", "on", "off"], { message: "must be true or false" })
    .transform((value) => ["true", "1", "yes", "on"].includes(value));
const httpUrl = () => z.url({ protocol: /^https?$/, message: "must be an http(s) URL" });
/** A positive whole number of `unit` (seconds, milliseconds), `fallback` when unset. */
const positiveWholeNumber = (unit: string, fallback: number) =>
  z.coerce
    .number({ message: `must be a whole number of ${unit}` })
    .int({ message: `must be a whole number of ${unit}` })
    .positive({ message: `must be a positive number of ${unit}` })
    .default(fallback);
/** A whole number of milliseconds that may be 0, `fallback` when unset. */
const wholeMilliseconds = (fallback: number) =>
  z.coerce
    .number({ message: "must be a whole number of milliseconds" })
    .int({ message: "must be a whole number of milliseconds" })
    .min(0, { message: "must be a whole number of milliseconds" })
    .default(fallback);
const wholeNumber = (min: number, max: number, fallback: number) =>
  z.coerce.number().int({ message: "must be a whole number" }).min(min).max(max).default(fallback);

/** proxy-addr's names for address ranges, accepted in a TRUST_PROXY list. */
const PROXY_RANGE_NAMES = ["loopback", "linklocal", "uniquelocal"];

function isAddressOrCidr(entry: string): boolean {
  if (PROXY_RANGE_NAMES.includes(entry)) return true;
  const [address = "", prefix, ...rest] = entry.split("/");
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return isIP(prefix) === version; // a netmask such as 255.255.0.0
  return Number(prefix) <= (version === 4 ? 32 : 128);
}

/** Fastify's `trustProxy`: off, every proxy, a hop count, or the proxies' addresses (CIDRs). */
export type TrustProxy = boolean | number | string[];

const trustProxy = z
  .string()
  .optional()
  .transform((value, context): TrustProxy => {
    if (value === undefined || value === "false" || value === "0") return false;
    if (value === "true") return true;
    if (/^\d+$/.test(value)) return Number(value);
    const entries = value.split(",").map((entry) => entry.trim());
    if (entries.every(isAddressOrCidr)) return entries;
    context.addIssue({
      code: "custom",
      message: "must be true, false, a hop count or comma-separated proxy addresses/CIDRs",
    });
    return z.NEVER;
  });

/** A place a call may be transferred to: an E.164 number or a SIP URI, with the name the model may use for it. */
export interface TransferTarget {
  name?: string;
  target: string;
}

const E164 = /^\+[1-9]\d{1,14}$/;
const SIP_URI = /^sips?:[^\s<>"'&,]+@[^\s<>"'&,]+$/i;

/** `+4930123456, sales=+4940111222, desk=sip:desk@pbx.example.com`. */
const transferTargets = z
  .string()
  .optional()
  .transform((value, context): TransferTarget[] => {
    const targets: TransferTarget[] = [];
    for (const entry of (value ?? "").split(",").map((part) => part.trim())) {
      if (entry === "") continue;
      const equals = entry.indexOf("=");
      const name = equals === -1 ? undefined : entry.slice(0, equals).trim();
      const target = (equals === -1 ? entry : entry.slice(equals + 1)).trim();
      if (name === "" || !(E164.test(target) || SIP_URI.test(target))) {
        context.addIssue({
          code: "custom",
          message: `has ${JSON.stringify(entry)}: each entry must be an E.164 number (+4930…) or a sip: URI, optionally as name=target`,
        });
        return z.NEVER;
      }
      targets.push(name === undefined ? { target } : { name, target });
    }
    return targets;
  });

/**
 * Every setting, each read from one environment variable (its name, default, parse and message in one place).
 * A few defaults depend on PLATFORM_ENV: those settings are optional here and decided in `configSchema`.
 */
const settingsSchema = z.object({
  host: fromEnv("HOST", text("127.0.0.1")),
  /** Undefined when PORT is unset: each command has its own default (serve 8000, call 8090). */
  port: fromEnv("PORT", z.coerce.number().int().min(0).max(65535).optional()),
  databaseUrl: fromEnv(
    "DATABASE_URL",
    z
      .string()
      .regex(/^(postgres(ql)?:\/\/|sqlite:|file:)/, {
        message: "must start with postgres://, postgresql://, sqlite: or file:",
      })
      .default("sqlite:./data/agent-platform.db"),
  ),
  /** PostgreSQL connections each process pools for requests and work (SQLite has one). */
  databasePoolSize: fromEnv("DATABASE_POOL_SIZE", positiveWholeNumber("connections", 10)),
  logLevel: fromEnv(
    "LOG_LEVEL",
    z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  ),
  platformEnv: fromEnv("PLATFORM_ENV", text("dev")),
  /** Checked in `configSchema`: outside dev it must be set, strong and not the development value. */
  jwtSecret: fromEnv("PLATFORM_JWT_SECRET", z.string().optional()),
  jwtTtlSeconds: fromEnv("PLATFORM_JWT_TTL", positiveWholeNumber("seconds", 2_592_000)),
  http: z.object({
    /** Whose X-Forwarded-For to believe for the client address (rate limits): Fastify's `trustProxy`. */
    trustProxy: fromEnv("TRUST_PROXY", trustProxy),
    /** A request (headers and body) not received in full by then gets 408 and its connection closed. */
    requestBodyTimeoutMs: fromEnv("REQUEST_BODY_TIMEOUT_MS", positiveWholeNumber("milliseconds", 10_000)),
    /** Registrations per client address per hour; 0: no limit (the default in dev). */
    registerRateLimit: fromEnv(
      "REGISTER_RATE_LIMIT",
      z.coerce
        .number({ message: "must be a whole number of registrations per hour (0: no limit)" })
        .int({ message: "must be a whole number of registrations per hour (0: no limit)" })
        .min(0, { message: "must be a whole number of registrations per hour (0: no limit)" })
        .optional(),
    ),
    /** Long-lived streams (event streams, run streams, agent-UI runs) one user may hold open at once, over every process. */
    maxStreamsPerUser: fromEnv("MAX_STREAMS_PER_USER", wholeNumber(1, 100_000, 20)),
  }),
  /** A tool call still running after this long is aborted and fails, whoever called it. */
  toolTimeoutMs: fromEnv("TOOL_TIMEOUT_MS", positiveWholeNumber("milliseconds", 60_000)),
  agent: z.object({
    defaultModel: fromEnv(
      "AGENT_MODEL",
      z
        .string()
        .regex(/^(openai|ollama|anthropic)\/.+/, {
          message: "must look like openai/<model>, ollama/<model> or anthropic/<model>",
        })
        .default("openai/gpt-4o-mini"),
    ),
    defaultInstructions: fromEnv("AGENT_INSTRUCTIONS", text("You are a helpful assistant.")),
    /** A JSON file of model prices over the built-in ones (src/usage/prices.ts). */
    modelPrices: fromEnv("MODEL_PRICES", z.string().optional()),
    openaiApiKey: fromEnv("OPENAI_API_KEY", z.string().optional()),
    openaiBaseUrl: fromEnv("OPENAI_BASE_URL", httpUrl().optional()),
    ollamaBaseUrl: fromEnv("OLLAMA_BASE_URL", httpUrl().default("http://127.0.0.1:11434/v1")),
    anthropicApiKey: fromEnv("ANTHROPIC_API_KEY", z.string().optional()),
    anthropicBaseUrl: fromEnv("ANTHROPIC_BASE_URL", httpUrl().optional()),
    /** Longest silence allowed from a model stream before the run fails with a timeout. */
    modelTimeoutMs: fromEnv("AGENT_MODEL_TIMEOUT_MS", positiveWholeNumber("milliseconds", 60_000)),
    /** Model calls per run at most (each tool-calling round is one). */
    maxSteps: fromEnv("AGENT_MAX_STEPS", wholeNumber(1, 100, 10)),
    /** Interval of keep-alive comments on an agent-UI stream while nothing else is sent (e.g. a long tool call). */
    keepAliveMs: fromEnv("AGUI_KEEPALIVE_MS", positiveWholeNumber("milliseconds", 15_000)),
  }),
  mcp: z.object({
    /** The workspace API key `agent-platform mcp` acts with: its workspace's tools, as the key's creator. */
    apiKey: fromEnv(
      "AGENT_PLATFORM_API_KEY",
      z.string().startsWith("ap_", { message: "must be a workspace API key (ap_…)" }).optional(),
    ),
  }),
  events: z.object({
    /** Interval of keep-alive comments on a quiet event stream. */
    keepAliveMs: fromEnv("EVENTS_KEEPALIVE_MS", positiveWholeNumber("milliseconds", 15_000)),
    /** One webhook attempt's limit. */
    webhookTimeoutMs: fromEnv("WEBHOOK_TIMEOUT_MS", positiveWholeNumber("milliseconds", 10_000)),
    /** Webhooks may target private, loopback and link-local addresses, over plain http too (tests, intranets). */
    webhookAllowPrivate: fromEnv("WEBHOOK_ALLOW_PRIVATE", flag().default(false)),
  }),
  work: z.object({
    /** Tasks this process runs at once (0: this process runs none, only serves the API). */
    workers: fromEnv("AGENT_WORKERS", wholeNumber(0, 1000, 8)),
    /** Runs per task at most: failures outside the agent are retried until then. */
    maxAttempts: fromEnv("TASK_MAX_ATTEMPTS", wholeNumber(1, 100, 3)),
    /** How long a claimed task stays ours without renewal; a dead process's task is taken up after it. */
    leaseMs: fromEnv("TASK_LEASE_MS", positiveWholeNumber("milliseconds", 30_000)),
    /** First retry delay; each further retry waits twice as long. */
    retryBaseMs: fromEnv("TASK_RETRY_BASE_MS", positiveWholeNumber("milliseconds", 2_000)),
    /** How long an agent's MCP server may take to connect before the run fails. */
    mcpConnectTimeoutMs: fromEnv("MCP_CONNECT_TIMEOUT_MS", positiveWholeNumber("milliseconds", 10_000)),
    /**
     * Whether agents may have stdio MCP servers: commands the server runs on its host, which any workspace admin (so
     * anyone who can sign up and make a workspace) could choose. On in dev, off elsewhere unless AGENT_MCP_STDIO=true.
     */
    mcpStdio: fromEnv("AGENT_MCP_STDIO", flag().optional()),
    /**
     * Whether agents' HTTP MCP servers may be on private, loopback or link-local addresses (and plain http): the
     * server would otherwise reach its own network for anyone who can make a workspace. On in dev, off elsewhere.
     */
    mcpAllowPrivate: fromEnv("AGENT_MCP_ALLOW_PRIVATE", flag().optional()),
    /** A runner that has not called for this long is offline, with its runtimes. */
    runnerOfflineMs: fromEnv("RUNNER_OFFLINE_MS", positiveWholeNumber("milliseconds", 60_000)),
    /** Agents triggering agents (comments, mentions, assignments), bounded: see work/trigger-bounds.ts. */
    triggerBounds: z.object({
      /** Agent-made triggers in a row on one issue before the next is stopped. */
      maxChainDepth: fromEnv("AGENT_CHAIN_MAX_DEPTH", wholeNumber(0, 1000, 5)),
      /** Agent-triggered tasks one agent may get per window. */
      rate: fromEnv("AGENT_TRIGGER_RATE", wholeNumber(0, 100_000, 20)),
      windowMs: fromEnv("AGENT_TRIGGER_WINDOW_MS", positiveWholeNumber("milliseconds", 60_000)),
    }),
  }),
  autopilots: z.object({
    /** Fires per autopilot per hour at most; beyond, fires are recorded as skipped ("rate limit"). */
    maxFiresPerHour: fromEnv("AUTOPILOT_MAX_FIRES_PER_HOUR", wholeNumber(1, 1_000_000, 60)),
  }),
  operations: z.object({
    /** After SIGTERM, how long the process keeps serving (with /ready at 503) so load balancers stop sending to it. */
    drainDelayMs: fromEnv("DRAIN_DELAY_MS", wholeMilliseconds(0)),
    /** After the drain delay, how long requests and streams in flight may take before they are cut and it exits. */
    shutdownTimeoutMs: fromEnv("SHUTDOWN_TIMEOUT_MS", positiveWholeNumber("milliseconds", 10_000)),
    /** When set, /metrics answers a bearer of this token from anywhere; unset, only direct loopback callers. */
    metricsToken: fromEnv(
      "METRICS_TOKEN",
      z.string().min(16, { message: "must be at least 16 characters" }).optional(),
    ),
  }),
  voice: z.object({
    vendorApiKey: fromEnv("VENDOR_API_KEY", z.string().optional()),
    realtimeUrl: fromEnv(
      "VENDOR_REALTIME_URL",
      z
        .url({ protocol: /^wss?$/, message: "must be a ws:// or wss:// URL" })
        .default("wss://api.openai.com/v1/realtime?model=gpt-realtime"),
    ),
    realtimeDialect: fromEnv("VENDOR_REALTIME_DIALECT", z.enum(["auto", "ga", "beta"]).default("auto")),
    tunnelAuthToken: fromEnv("TUNNEL_AUTH_TOKEN", z.string().optional()),
    public: fromEnv("PUBLIC", flag().default(false)),
    publicUrl: fromEnv("PUBLIC_URL", httpUrl().optional()),
    twilioAuthToken: fromEnv("TWILIO_AUTH_TOKEN", z.string().optional()),
    /** With TWILIO_AUTH_TOKEN, the carrier REST API's credentials: call control (end_call, transfer_call). */
    twilioAccountSid: fromEnv(
      "TWILIO_ACCOUNT_SID",
      z
        .string()
        .regex(/^AC[0-9a-f]{32}$/i, { message: "must be a Twilio account SID (AC followed by 32 hex digits)" })
        .optional(),
    ),
    twilioApiBase: fromEnv("TWILIO_API_BASE", httpUrl().default("https://api.twilio.com")),
    /** Record every call, both sides mixed, as a WAV file under recordingsDir. */
    recording: fromEnv("CALL_RECORDING", flag().default(false)),
    /** Where call recordings are written (call server) and read (the platform API): both must see the same files. */
    recordingsDir: fromEnv("CALL_RECORDINGS_DIR", text("./data/recordings")),
    /** Where transfer_call may send a caller; empty, the function is not offered. */
    transferTargets: fromEnv("CALL_TRANSFER_TO", transferTargets),
    /** The workspace whose members see this call server's calls; unset, calls are recorded under no workspace. */
    workspaceId: fromEnv(
      "CALL_WORKSPACE_ID",
      z
        .string()
        .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, { message: "must be a workspace id" })
        .transform((id) => id.toLowerCase())
        .optional(),
    ),
    /** The platform agent that takes the calls (with CALL_WORKSPACE_ID); unset, the model speaks without one. */
    agentId: fromEnv(
      "CALL_AGENT_ID",
      z
        .string()
        .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, { message: "must be an agent id" })
        .transform((id) => id.toLowerCase())
        .optional(),
    ),
    /** After each call, the phone agent files it on the board (an issue "Call from <number>", or a comment). */
    fileIssues: fromEnv("CALL_ISSUE", flag().default(false)),
    /** The number outbound calls come from when POST /calls names none. */
    fromNumber: fromEnv(
      "CALL_FROM_NUMBER",
      z.string().regex(E164, { message: "must be an E.164 number such as +4930123456" }).optional(),
    ),
    /** Outbound calls this call server places per minute at most; beyond, POST /calls answers 429. */
    maxOutboundPerMinute: fromEnv("CALL_MAX_OUTBOUND_PER_MINUTE", wholeNumber(1, 10_000, 10)),
  }),
});

/** The settings with the defaults that depend on PLATFORM_ENV decided, and the JWT secret checked. */
const configSchema = settingsSchema.transform((settings, context) => {
  const isDev = settings.platformEnv === "dev";
  const jwtSecret = checkJwtSecret(settings.jwtSecret, isDev, settings.platformEnv);
  if (jwtSecret.problem !== undefined) {
    context.addIssue({ code: "custom", path: ["jwtSecret"], message: jwtSecret.problem });
    return z.NEVER;
  }
  return {
    ...settings,
    isDev,
    jwtSecret: jwtSecret.secret,
    http: {
      ...settings.http,
      registerRateLimit: settings.http.registerRateLimit ?? (isDev ? 0 : DEFAULT_REGISTER_RATE_LIMIT),
    },
    work: {
      ...settings.work,
      mcpStdio: settings.work.mcpStdio ?? isDev,
      mcpAllowPrivate: settings.work.mcpAllowPrivate ?? isDev,
    },
  };
});

export type Config = z.output<typeof configSchema>;

interface EnvironmentSetting {
  /** Where the setting sits in the settings, e.g. ["http", "trustProxy"]. */
  path: string[];
  variable: string;
}

/** Every environment variable the schema reads, with where its setting sits, in the schema's order. */
function environmentSettings(shape: z.ZodRawShape = settingsSchema.shape, path: string[] = []): EnvironmentSetting[] {
  return Object.entries(shape).flatMap(([key, schema]) => {
    const variable = environment.get(schema)?.variable;
    if (variable !== undefined) return [{ path: [...path, key], variable }];
    if (schema instanceof z.ZodObject) return environmentSettings(schema.shape, [...path, key]);
    return [];
  });
}

const ENVIRONMENT_SETTINGS = environmentSettings();

/** The names of every environment variable the configuration reads (the table in docs/configuration.md). */
export const CONFIG_VARIABLES: readonly string[] = ENVIRONMENT_SETTINGS.map((setting) => setting.variable);

/** The environment arranged as the settings are: each variable's value at its setting's place. */
function settingsInput(env: Record<string, string | undefined>): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const { path, variable } of ENVIRONMENT_SETTINGS) {
    let node = input;
    for (const key of path.slice(0, -1)) {
      node[key] ??= {};
      node = node[key] as Record<string, unknown>;
    }
    node[path.at(-1) ?? ""] = env[variable];
  }
  return input;
}

/** A bad setting: its message is one line naming the variable, fit to print as the only output of a failed start. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`Invalid configuration: ${variable} ${problem}`);
    this.name = "ConfigError";
  }
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = configSchema.safeParse(settingsInput(env));
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue?.path.join(".");
  const variable = ENVIRONMENT_SETTINGS.find((setting) => setting.path.join(".") === where)?.variable;
  throw new ConfigError(variable ?? "environment", issue?.message ?? "is invalid");
}

/** For a command's start: the configuration, or undefined once what is wrong with it is on stderr. */
export function loadConfigForCommand(): Config | undefined {
  try {
    return loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    return undefined;
  }
}

function checkJwtSecret(
  secret: string | undefined,
  isDev: boolean,
  platformEnv: string,
): { secret: string; problem?: undefined } | { secret?: undefined; problem: string } {
  if (isDev) return { secret: secret ?? DEV_JWT_SECRET };
  const where = `(PLATFORM_ENV=${platformEnv})`;
  if (secret === undefined) return { problem: `must be set outside dev ${where}` };
  if (secret === DEV_JWT_SECRET) return { problem: `must not be the development value outside dev ${where}` };
  if (Buffer.byteLength(secret) < MIN_SECRET_BYTES) {
    return { problem: `must be at least ${MIN_SECRET_BYTES} bytes outside dev ${where}` };
  }
  return { secret };
}
