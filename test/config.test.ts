import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CONFIG_VARIABLES, ConfigError, DEV_JWT_SECRET, loadConfig } from "../src/config.ts";

const strongSecret = "x".repeat(32);

function configError(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("expected a ConfigError");
}

describe("config", () => {
  it("has working defaults for a fresh machine", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      host: "127.0.0.1",
      port: undefined,
      databaseUrl: "sqlite:./data/agent-platform.db",
      platformEnv: "dev",
      isDev: true,
      jwtSecret: DEV_JWT_SECRET,
      jwtTtlSeconds: 2_592_000,
    });
    expect(config.agent.defaultModel).toBe("openai/gpt-4o-mini");
    expect(config.voice).toMatchObject({ public: false, realtimeDialect: "auto" });
  });

  it("outside dev demands a strong, non-default JWT secret", () => {
    expect(configError({ PLATFORM_ENV: "production" })).toMatch(
      /^Invalid configuration: PLATFORM_JWT_SECRET must be set/,
    );
    expect(configError({ PLATFORM_ENV: "production", PLATFORM_JWT_SECRET: DEV_JWT_SECRET })).toMatch(
      /PLATFORM_JWT_SECRET must not be the development value/,
    );
    expect(configError({ PLATFORM_ENV: "staging", PLATFORM_JWT_SECRET: "short" })).toMatch(
      /PLATFORM_JWT_SECRET must be at least 32 bytes/,
    );
    expect(loadConfig({ PLATFORM_ENV: "production", PLATFORM_JWT_SECRET: strongSecret }).jwtSecret).toBe(strongSecret);
  });

  it("names the variable of a bad value in one line", () => {
    const cases: Record<string, string> = {
      PORT: "eighty",
      PLATFORM_JWT_TTL: "-5",
      DATABASE_URL: "mysql://x",
      PUBLIC: "maybe",
      VENDOR_REALTIME_DIALECT: "v2",
      AGENT_MODEL: "gpt-4o",
      OPENAI_BASE_URL: "not a url",
      AGENT_WORKERS: "-1",
      TASK_MAX_ATTEMPTS: "0",
      TASK_LEASE_MS: "soon",
      TASK_RETRY_BASE_MS: "1.5",
      MCP_CONNECT_TIMEOUT_MS: "0",
      TRUST_PROXY: "10.0.0.0/33,example.com",
      REQUEST_BODY_TIMEOUT_MS: "0",
      REGISTER_RATE_LIMIT: "-1",
      TOOL_TIMEOUT_MS: "1m",
      DRAIN_DELAY_MS: "-1",
      SHUTDOWN_TIMEOUT_MS: "0",
      METRICS_TOKEN: "short",
      CALL_WORKSPACE_ID: "my-workspace",
    };
    for (const [variable, value] of Object.entries(cases)) {
      const message = configError({ [variable]: value });
      expect(message).toContain(`Invalid configuration: ${variable} `);
      expect(message).not.toContain("\n");
    }
  });

  it("reads the HTTP hardening settings: no proxy trusted, body timeout, registrations limited outside dev", () => {
    expect(loadConfig({}).http).toEqual({
      trustProxy: false,
      requestBodyTimeoutMs: 10_000,
      registerRateLimit: 0,
      maxStreamsPerUser: 20,
    });
    expect(loadConfig({ MAX_STREAMS_PER_USER: "3" }).http.maxStreamsPerUser).toBe(3);
    expect(() => loadConfig({ MAX_STREAMS_PER_USER: "0" })).toThrow(/MAX_STREAMS_PER_USER/);
    const production = { PLATFORM_ENV: "production", PLATFORM_JWT_SECRET: strongSecret };
    expect(loadConfig(production).http.registerRateLimit).toBe(20);
    expect(loadConfig({ ...production, REGISTER_RATE_LIMIT: "0" }).http.registerRateLimit).toBe(0);
    expect(loadConfig({ REGISTER_RATE_LIMIT: "5" }).http.registerRateLimit).toBe(5);
    expect(loadConfig({ REQUEST_BODY_TIMEOUT_MS: "2500" }).http.requestBodyTimeoutMs).toBe(2500);
    const trusted = (value: string) => loadConfig({ TRUST_PROXY: value }).http.trustProxy;
    expect(trusted("true")).toBe(true);
    expect(trusted("false")).toBe(false);
    expect(trusted("2")).toBe(2);
    expect(trusted("loopback, 10.0.0.0/8,192.168.1.1,::1,fd00::/8,172.16.0.0/255.240.0.0")).toEqual([
      "loopback",
      "10.0.0.0/8",
      "192.168.1.1",
      "::1",
      "fd00::/8",
      "172.16.0.0/255.240.0.0",
    ]);
    for (const bad of ["yes please", "10.0.0.0/33", "10.0.0.1/8/8", "300.1.1.1", "::1/129", "1.2.3.4,"]) {
      expect(configError({ TRUST_PROXY: bad })).toMatch(/^Invalid configuration: TRUST_PROXY must be true, false/);
    }
  });

  it("reads the voice and agent settings", () => {
    const config = loadConfig({
      PUBLIC: "true",
      PORT: "9000",
      VENDOR_API_KEY: "vk",
      VENDOR_REALTIME_DIALECT: "beta",
      OPENAI_BASE_URL: "http://127.0.0.1:1234/v1",
    });
    expect(config.port).toBe(9000);
    expect(config.voice).toMatchObject({ public: true, vendorApiKey: "vk", realtimeDialect: "beta" });
    expect(config.agent.openaiBaseUrl).toBe("http://127.0.0.1:1234/v1");
  });

  it("reads the event stream and webhook settings, safe by default", () => {
    expect(loadConfig({}).events).toEqual({
      keepAliveMs: 15_000,
      webhookTimeoutMs: 10_000,
      webhookAllowPrivate: false,
    });
    expect(
      loadConfig({ EVENTS_KEEPALIVE_MS: "500", WEBHOOK_TIMEOUT_MS: "2500", WEBHOOK_ALLOW_PRIVATE: "true" }).events,
    ).toEqual({ keepAliveMs: 500, webhookTimeoutMs: 2_500, webhookAllowPrivate: true });
    expect(configError({ WEBHOOK_ALLOW_PRIVATE: "sometimes" })).toBe(
      "Invalid configuration: WEBHOOK_ALLOW_PRIVATE must be true or false",
    );
    expect(configError({ WEBHOOK_TIMEOUT_MS: "10s" })).toBe(
      "Invalid configuration: WEBHOOK_TIMEOUT_MS must be a whole number of milliseconds",
    );
    expect(configError({ EVENTS_KEEPALIVE_MS: "0" })).toBe(
      "Invalid configuration: EVENTS_KEEPALIVE_MS must be a positive number of milliseconds",
    );
  });

  it("reads the task settings, with defaults for a fresh machine", () => {
    expect(loadConfig({}).work).toEqual({
      workers: 8,
      maxAttempts: 3,
      leaseMs: 30_000,
      retryBaseMs: 2_000,
      mcpConnectTimeoutMs: 10_000,
      mcpStdio: true,
      mcpAllowPrivate: true,
      runnerOfflineMs: 60_000,
      triggerBounds: { maxChainDepth: 5, rate: 20, windowMs: 60_000 },
    });
    const config = loadConfig({ AGENT_WORKERS: "0", TASK_MAX_ATTEMPTS: "5", TASK_LEASE_MS: "1500" });
    expect(config.work).toMatchObject({ workers: 0, maxAttempts: 5, leaseMs: 1_500 });
    const bounds = { AGENT_CHAIN_MAX_DEPTH: "0", AGENT_TRIGGER_RATE: "3", AGENT_TRIGGER_WINDOW_MS: "5000" };
    expect(loadConfig(bounds).work.triggerBounds).toEqual({ maxChainDepth: 0, rate: 3, windowMs: 5_000 });
    expect(() => loadConfig({ AGENT_CHAIN_MAX_DEPTH: "-1" })).toThrow(/^Invalid configuration: AGENT_CHAIN_MAX_DEPTH /);
    expect(configError({ RUNNER_OFFLINE_MS: "soon" })).toBe(
      "Invalid configuration: RUNNER_OFFLINE_MS must be a whole number of milliseconds",
    );
  });

  it("pools DATABASE_POOL_SIZE PostgreSQL connections, 10 unless set", () => {
    expect(loadConfig({}).databasePoolSize).toBe(10);
    expect(loadConfig({ DATABASE_POOL_SIZE: "25" }).databasePoolSize).toBe(25);
    expect(configError({ DATABASE_POOL_SIZE: "0" })).toBe(
      "Invalid configuration: DATABASE_POOL_SIZE must be a positive number of connections",
    );
  });

  it("runs stdio MCP servers and reaches private addresses for agents in dev only, unless told otherwise", () => {
    const production = { PLATFORM_ENV: "production", PLATFORM_JWT_SECRET: strongSecret };
    expect(loadConfig({}).work.mcpStdio).toBe(true);
    expect(loadConfig(production).work.mcpStdio).toBe(false);
    expect(loadConfig({ ...production, AGENT_MCP_STDIO: "true" }).work.mcpStdio).toBe(true);
    expect(loadConfig({ AGENT_MCP_STDIO: "false" }).work.mcpStdio).toBe(false);
    expect(loadConfig(production).work.mcpAllowPrivate).toBe(false);
    expect(loadConfig({ ...production, AGENT_MCP_ALLOW_PRIVATE: "true" }).work.mcpAllowPrivate).toBe(true);
    expect(loadConfig({ AGENT_MCP_ALLOW_PRIVATE: "false" }).work.mcpAllowPrivate).toBe(false);
    expect(configError({ AGENT_MCP_STDIO: "sometimes" })).toBe(
      "Invalid configuration: AGENT_MCP_STDIO must be true or false",
    );
  });

  it("limits every tool call to TOOL_TIMEOUT_MS, a minute unless set", () => {
    expect(loadConfig({}).toolTimeoutMs).toBe(60_000);
    expect(loadConfig({ TOOL_TIMEOUT_MS: "2500" }).toolTimeoutMs).toBe(2_500);
    expect(configError({ TOOL_TIMEOUT_MS: "0" })).toBe(
      "Invalid configuration: TOOL_TIMEOUT_MS must be a positive number of milliseconds",
    );
  });

  it("reads the operations settings: no drain delay, a 10 s stop bound and no metrics token by default", () => {
    expect(loadConfig({}).operations).toEqual({ drainDelayMs: 0, shutdownTimeoutMs: 10_000, metricsToken: undefined });
    const token = "a-metrics-token-long-enough";
    expect(
      loadConfig({ DRAIN_DELAY_MS: "2000", SHUTDOWN_TIMEOUT_MS: "5000", METRICS_TOKEN: token }).operations,
    ).toEqual({ drainDelayMs: 2_000, shutdownTimeoutMs: 5_000, metricsToken: token });
    expect(configError({ DRAIN_DELAY_MS: "1.5" })).toBe(
      "Invalid configuration: DRAIN_DELAY_MS must be a whole number of milliseconds",
    );
    expect(configError({ METRICS_TOKEN: "short" })).toBe(
      "Invalid configuration: METRICS_TOKEN must be at least 16 characters",
    );
  });

  it("docs/configuration.md's tables list exactly the variables the configuration reads, each once", () => {
    const page = readFileSync(new URL("../docs/configuration.md", import.meta.url), "utf8");
    // The first cell of each table row: one or more `NAME`s.
    const documented = [...page.matchAll(/^\|\s*((?:`[A-Z][A-Z0-9_]*`(?:,\s*)?)+)\s*\|/gm)].flatMap((row) =>
      [...(row[1] ?? "").matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((name) => name[1]),
    );
    expect(CONFIG_VARIABLES.length).toBeGreaterThan(40);
    expect(documented.toSorted()).toEqual(CONFIG_VARIABLES.toSorted());
  });
});
