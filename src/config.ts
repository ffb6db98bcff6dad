// Every environment variable the service reads, parsed and validated in one place.
// Nothing else in the code base reads process.env.
import { isIP } from "node:net";
import { z } from "zod";

export const DEV_JWT_SECRET = "agent-platform-development-secret-change-me";
const MIN_SECRET_BYTES = 32;
const DEFAULT_REGISTER_RATE_LIMIT = 20;

const emptyAsUndefined = (value: unknown) => (value === "" ? undefined : value);
const optionalString = z.preprocess(emptyAsUndefined, z.string().optional());
const port = z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).max(65535).optional());
const bool = z.preprocess(
  emptyAsUndefined,
  z
    .enum(["true", "false", "1", "0", "yes", "no", "on", "off"], {
      message: "must be true or false",
    })
    .transform((value) => ["true", "1", "yes", "on"].includes(value))
    .optional(),
);
const httpUrlSchema = z.url({ protocol: /^https?$/, message: "must be an http(s) URL" });
const httpUrl = z.preprocess(emptyAsUndefined, httpUrlSchema.optional());
/** A positive whole number of `unit` (seconds, milliseconds), `fallback` when unset. */
const positiveWholeNumber = (unit: string, fallback: number) =>
  z.preprocess(
    emptyAsUndefined,
    z.coerce
      .number({ message: `must be a whole number of ${unit}` })
      .int({ message: `must be a whole number of ${unit}` })
      .positive({ message: `must be a positive number of ${unit}` })
      .default(fallback),
  );

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

const trustProxy = z.preprocess(
  emptyAsUndefined,
  z
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
    }),
);
/** A whole number of milliseconds that may be 0, `fallback` when unset. */
const wholeMilliseconds = (fallback: number) =>
  z.preprocess(
    emptyAsUndefined,
    z.coerce
      .number({ message: "must be a whole number of milliseconds" })
      .int({ message: "must be a whole number of milliseconds" })
      .min(0, { message: "must be a whole number of milliseconds" })
      .default(fallback),
  );

const envSchema = z.object({
  HOST: z.preprocess(emptyAsUndefined, z.string().default("127.0.0.1")),
  PORT: port,
  DATABASE_URL: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .regex(/^(postgres(ql)?:\/\/|sqlite:|file:)/, {
        message: "must start with postgres://, postgresql://, sqlite: or file:",
      })
      .default("sqlite:./data/agent-platform.db"),
  ),
  DATABASE_POOL_SIZE: positiveWholeNumber("connections", 10),
  LOG_LEVEL: z.preprocess(
    emptyAsUndefined,
    z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  ),
  PLATFORM_ENV: z.preprocess(emptyAsUndefined, z.string().default("dev")),
  PLATFORM_JWT_SECRET: optionalString,
  PLATFORM_JWT_TTL: positiveWholeNumber("seconds", 2_592_000),
  // HTTP hardening
  TRUST_PROXY: trustProxy,
  REQUEST_BODY_TIMEOUT_MS: positiveWholeNumber("milliseconds", 10_000),
  REGISTER_RATE_LIMIT: z.preprocess(
    emptyAsUndefined,
    z.coerce
      .number({ message: "must be a whole number of registrations per hour (0: no limit)" })
      .int({ message: "must be a whole number of registrations per hour (0: no limit)" })
      .min(0, { message: "must be a whole number of registrations per hour (0: no limit)" })
      .optional(),
  ),
  // Agent runtime (models)
  AGENT_MODEL: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .regex(/^(openai|ollama|anthropic)\/.+/, {
        message: "must look like openai/<model>, ollama/<model> or anthropic/<model>",
      })
      .default("openai/gpt-4o-mini"),
  ),
  AGENT_INSTRUCTIONS: z.preprocess(emptyAsUndefined, z.string().default("You are a helpful assistant.")),
  OPENAI_API_KEY: optionalString,
  OPENAI_BASE_URL: httpUrl,
  OLLAMA_BASE_URL: z.preprocess(emptyAsUndefined, httpUrlSchema.default("http://127.0.0.1:11434/v1")),
  ANTHROPIC_API_KEY: optionalString,
  ANTHROPIC_BASE_URL: httpUrl,
  AGENT_MODEL_TIMEOUT_MS: positiveWholeNumber("milliseconds", 60_000),
  AGENT_MAX_STEPS: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int({ message: "must be a whole number" }).min(1).max(100).default(10),
  ),
  AGUI_KEEPALIVE_MS: positiveWholeNumber("milliseconds", 15_000),
  // Tools (every source: tools files, platform tools, agents' MCP servers)
  TOOL_TIMEOUT_MS: positiveWholeNumber("milliseconds", 60_000),
  // Tool protocol over stdio (`agent-platform mcp`)
  AGENT_PLATFORM_API_KEY: z.preprocess(
    emptyAsUndefined,
    z.string().startsWith("ap_", { message: "must be a workspace API key (ap_…)" }).optional(),
  ),
  // Workspace events and webhooks
  EVENTS_KEEPALIVE_MS: positiveWholeNumber("milliseconds", 15_000),
  WEBHOOK_TIMEOUT_MS: positiveWholeNumber("milliseconds", 10_000),
  WEBHOOK_ALLOW_PRIVATE: bool,
  // Agents at work (tasks)
  AGENT_WORKERS: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int({ message: "must be a whole number" }).min(0).max(1000).default(8),
  ),
  TASK_MAX_ATTEMPTS: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int({ message: "must be a whole number" }).min(1).max(100).default(3),
  ),
  TASK_LEASE_MS: positiveWholeNumber("milliseconds", 30_000),
  TASK_RETRY_BASE_MS: positiveWholeNumber("milliseconds", 2_000),
  MCP_CONNECT_TIMEOUT_MS: positiveWholeNumber("milliseconds", 10_000),
  AGENT_MCP_STDIO: bool,
  AGENT_MCP_ALLOW_PRIVATE: bool,
  // Operations: graceful stop, metrics
  DRAIN_DELAY_MS: wholeMilliseconds(0),
  SHUTDOWN_TIMEOUT_MS: positiveWholeNumber("milliseconds", 10_000),
  METRICS_TOKEN: z.preprocess(
    emptyAsUndefined,
    z.string().min(16, { message: "must be at least 16 characters" }).optional(),
  ),
  // Voice-call server
  VENDOR_API_KEY: optionalString,
  VENDOR_REALTIME_URL: z.preprocess(
    emptyAsUndefined,
    z
      .url({ protocol: /^wss?$/, message: "must be a ws:// or wss:// URL" })
      .default("wss://api.openai.com/v1/realtime?model=gpt-realtime"),
  ),
  VENDOR_REALTIME_DIALECT: z.preprocess(emptyAsUndefined, z.enum(["auto", "ga", "beta"]).default("auto")),
  TUNNEL_AUTH_TOKEN: optionalString,
  PUBLIC: bool,
  PUBLIC_URL: httpUrl,
  TWILIO_AUTH_TOKEN: optionalString,
  CALL_WORKSPACE_ID: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, { message: "must be a workspace id" })
      .optional(),
  ),
});

type Env = z.infer<typeof envSchema>;

export interface Config {
  host: string;
  /** Undefined when PORT is unset: each command has its own default (serve 8000, call 8090). */
  port: number | undefined;
  databaseUrl: string;
  /** PostgreSQL connections each process pools for requests and work (SQLite has one). */
  databasePoolSize: number;
  logLevel: Env["LOG_LEVEL"];
  platformEnv: string;
  isDev: boolean;
  jwtSecret: string;
  jwtTtlSeconds: number;
  http: {
    /** Whose X-Forwarded-For to believe for the client address (rate limits): Fastify's `trustProxy`. */
    trustProxy: TrustProxy;
    /** A request (headers and body) not received in full by then gets 408 and its connection closed. */
    requestBodyTimeoutMs: number;
    /** Registrations per client address per hour; 0: no limit (the default in dev). */
    registerRateLimit: number;
  };
  /** A tool call still running after this long is aborted and fails, whoever called it. */
  toolTimeoutMs: number;
  agent: {
    defaultModel: string;
    defaultInstructions: string;
    openaiApiKey: string | undefined;
    openaiBaseUrl: string | undefined;
    ollamaBaseUrl: string;
    anthropicApiKey: string | undefined;
    anthropicBaseUrl: string | undefined;
    /** Longest silence allowed from a model stream before the run fails with a timeout. */
    modelTimeoutMs: number;
    /** Model calls per run at most (each tool-calling round is one). */
    maxSteps: number;
    /** Interval of keep-alive comments on an agent-UI stream while nothing else is sent (e.g. a long tool call). */
    keepAliveMs: number;
  };
  mcp: {
    /** The workspace API key `agent-platform mcp` acts with: its workspace's tools, as the key's creator. */
    apiKey: string | undefined;
  };
  events: {
    /** Interval of keep-alive comments on a quiet event stream. */
    keepAliveMs: number;
    /** One webhook attempt's limit. */
    webhookTimeoutMs: number;
    /** Webhooks may target private, loopback and link-local addresses, over plain http too (tests, intranets). */
    webhookAllowPrivate: boolean;
  };
  work: {
    /** Tasks this process runs at once (0: this process runs none, only serves the API). */
    workers: number;
    /** Runs per task at most: failures outside the agent are retried until then. */
    maxAttempts: number;
    /** How long a claimed task stays ours without renewal; a dead process's task is taken up after it. */
    leaseMs: number;
    /** First retry delay; each further retry waits twice as long. */
    retryBaseMs: number;
    /** How long an agent's MCP server may take to connect before the run fails. */
    mcpConnectTimeoutMs: number;
    /**
     * Whether agents may have stdio MCP servers: commands the server runs on its host, which any workspace admin (so
     * anyone who can sign up and make a workspace) could choose. On in dev, off elsewhere unless AGENT_MCP_STDIO=true.
     */
    mcpStdio: boolean;
    /**
     * Whether agents' HTTP MCP servers may be on private, loopback or link-local addresses (and plain http): the
     * server would otherwise reach its own network for anyone who can make a workspace. On in dev, off elsewhere.
     */
    mcpAllowPrivate: boolean;
  };
  operations: {
    /** After SIGTERM, how long the process keeps serving (with /ready at 503) so load balancers stop sending to it. */
    drainDelayMs: number;
    /** After the drain delay, how long requests and streams in flight may take before they are cut and it exits. */
    shutdownTimeoutMs: number;
    /** When set, /metrics answers a bearer of this token from anywhere; unset, only direct loopback callers. */
    metricsToken: string | undefined;
  };
  voice: {
    vendorApiKey: string | undefined;
    realtimeUrl: string;
    realtimeDialect: "auto" | "ga" | "beta";
    tunnelAuthToken: string | undefined;
    public: boolean;
    publicUrl: string | undefined;
    twilioAuthToken: string | undefined;
    /** The workspace whose members see this call server's calls; unset, calls are recorded under no workspace. */
    workspaceId: string | undefined;
  };
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
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(String(issue?.path[0] ?? "environment"), issue?.message ?? "is invalid");
  }
  const vars = parsed.data;
  const isDev = vars.PLATFORM_ENV === "dev";
  return {
    host: vars.HOST,
    port: vars.PORT,
    databaseUrl: vars.DATABASE_URL,
    databasePoolSize: vars.DATABASE_POOL_SIZE,
    logLevel: vars.LOG_LEVEL,
    platformEnv: vars.PLATFORM_ENV,
    isDev,
    jwtSecret: checkJwtSecret(vars.PLATFORM_JWT_SECRET, isDev, vars.PLATFORM_ENV),
    jwtTtlSeconds: vars.PLATFORM_JWT_TTL,
    http: {
      trustProxy: vars.TRUST_PROXY,
      requestBodyTimeoutMs: vars.REQUEST_BODY_TIMEOUT_MS,
      registerRateLimit: vars.REGISTER_RATE_LIMIT ?? (isDev ? 0 : DEFAULT_REGISTER_RATE_LIMIT),
    },
    toolTimeoutMs: vars.TOOL_TIMEOUT_MS,
    agent: {
      defaultModel: vars.AGENT_MODEL,
      defaultInstructions: vars.AGENT_INSTRUCTIONS,
      openaiApiKey: vars.OPENAI_API_KEY,
      openaiBaseUrl: vars.OPENAI_BASE_URL,
      ollamaBaseUrl: vars.OLLAMA_BASE_URL,
      anthropicApiKey: vars.ANTHROPIC_API_KEY,
      anthropicBaseUrl: vars.ANTHROPIC_BASE_URL,
      modelTimeoutMs: vars.AGENT_MODEL_TIMEOUT_MS,
      maxSteps: vars.AGENT_MAX_STEPS,
      keepAliveMs: vars.AGUI_KEEPALIVE_MS,
    },
    mcp: { apiKey: vars.AGENT_PLATFORM_API_KEY },
    events: {
      keepAliveMs: vars.EVENTS_KEEPALIVE_MS,
      webhookTimeoutMs: vars.WEBHOOK_TIMEOUT_MS,
      webhookAllowPrivate: vars.WEBHOOK_ALLOW_PRIVATE ?? false,
    },
    work: {
      workers: vars.AGENT_WORKERS,
      maxAttempts: vars.TASK_MAX_ATTEMPTS,
      leaseMs: vars.TASK_LEASE_MS,
      retryBaseMs: vars.TASK_RETRY_BASE_MS,
      mcpConnectTimeoutMs: vars.MCP_CONNECT_TIMEOUT_MS,
      mcpStdio: vars.AGENT_MCP_STDIO ?? isDev,
      mcpAllowPrivate: vars.AGENT_MCP_ALLOW_PRIVATE ?? isDev,
    },
    operations: {
      drainDelayMs: vars.DRAIN_DELAY_MS,
      shutdownTimeoutMs: vars.SHUTDOWN_TIMEOUT_MS,
      metricsToken: vars.METRICS_TOKEN,
    },
    voice: {
      vendorApiKey: vars.VENDOR_API_KEY,
      realtimeUrl: vars.VENDOR_REALTIME_URL,
      realtimeDialect: vars.VENDOR_REALTIME_DIALECT,
      tunnelAuthToken: vars.TUNNEL_AUTH_TOKEN,
      public: vars.PUBLIC ?? false,
      publicUrl: vars.PUBLIC_URL,
      twilioAuthToken: vars.TWILIO_AUTH_TOKEN,
      workspaceId: vars.CALL_WORKSPACE_ID?.toLowerCase(),
    },
  };
}

function checkJwtSecret(secret: string | undefined, isDev: boolean, platformEnv: string): string {
  if (isDev) return secret ?? DEV_JWT_SECRET;
  const where = `(PLATFORM_ENV=${platformEnv})`;
  if (secret === undefined) throw new ConfigError("PLATFORM_JWT_SECRET", `must be set outside dev ${where}`);
  if (secret === DEV_JWT_SECRET) {
    throw new ConfigError("PLATFORM_JWT_SECRET", `must not be the development value outside dev ${where}`);
  }
  if (Buffer.byteLength(secret) < MIN_SECRET_BYTES) {
    throw new ConfigError("PLATFORM_JWT_SECRET", `must be at least ${MIN_SECRET_BYTES} bytes outside dev ${where}`);
  }
  return secret;
}
