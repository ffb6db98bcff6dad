// An agent's MCP server credentials are write-only, like a webhook's signing secret: an HTTP server's `headers` and a
// stdio server's `env` are stored for the runs and never shown again, to anyone (admins included), nor written to the
// activity log or the event stream; the API names them only (`headers_set`, `env_set`). An update that sends a server
// back without them keeps the stored ones while they would still go where they went before (headers: the same URL
// origin; env: the same command and args). Otherwise the client must send them again (422): nobody can point stored
// credentials at a server of their choosing.
import { invalid } from "../../http/errors.ts";
import type { McpServerConfig, McpServerInput, McpServerView, RuntimeConfigInput } from "./schemas.ts";

type Config = Record<string, unknown>;
type Secrets = Record<string, string>;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const namesOf = (secrets: unknown): string[] => (isObject(secrets) ? Object.keys(secrets) : []);

/** The MCP servers a stored runtime_config lists (valid when saved; anything else is skipped, never shown raw). */
const storedServers = (config: Config | null): Record<string, unknown>[] =>
  Array.isArray(config?.mcp_servers) ? config.mcp_servers.filter(isObject) : [];

/** The runtime_config as the API shows it: each MCP server without its credentials, naming them instead. */
export function showRuntimeConfig(config: Config): Config {
  if (config.mcp_servers === undefined) return config;
  return { ...config, mcp_servers: storedServers(config).map(showServer) };
}

function showServer(server: Record<string, unknown>): McpServerView {
  const view: McpServerView = { name: String(server.name) };
  if (typeof server.url === "string") view.url = server.url;
  if (typeof server.command === "string") view.command = server.command;
  if (Array.isArray(server.args)) view.args = server.args.map(String);
  const headers = namesOf(server.headers);
  if (headers.length > 0) view.headers_set = headers;
  const env = namesOf(server.env);
  if (env.length > 0) view.env_set = env;
  return view;
}

/**
 * The runtime_config to store for `input`, given what is stored now (`before`, null on create): a server sent without
 * `headers` or `env` keeps the stored ones of the server of the same name where they still apply, `null` (or `{}`)
 * removes them. 422 when stored credentials would go somewhere new without being sent again.
 */
export function withStoredSecrets(before: Config | null, input: RuntimeConfigInput | null): Config {
  const { mcp_servers: servers, ...rest } = input ?? {};
  if (servers === undefined) return rest;
  const stored = new Map(storedServers(before).map((server) => [server.name, server]));
  return {
    ...rest,
    mcp_servers: servers.map((server, index) => serverToStore(server, stored.get(server.name), index)),
  };
}

function serverToStore(
  server: McpServerInput,
  stored: Record<string, unknown> | undefined,
  index: number,
): McpServerConfig {
  const { headers, env, ...rest } = server;
  const headersToStore = secretsToStore(headers, stored?.headers, () => sameOrigin(stored?.url, server.url), {
    field: "headers",
    applies: server.url !== undefined,
    index,
    moved: `MCP server "${server.name}" now points at another origin`,
  });
  const envToStore = secretsToStore(env, stored?.env, () => sameCommand(stored, server), {
    field: "env",
    applies: server.command !== undefined,
    index,
    moved: `MCP server "${server.name}" now runs another command or other args`,
  });
  return { ...rest, ...(headersToStore && { headers: headersToStore }), ...(envToStore && { env: envToStore }) };
}

function secretsToStore(
  sent: Secrets | null | undefined,
  stored: unknown,
  stillGoesWhereItWent: () => boolean,
  at: { field: "headers" | "env"; applies: boolean; index: number; moved: string },
): Secrets | undefined {
  if (sent !== undefined) return sent && Object.keys(sent).length > 0 ? sent : undefined;
  if (!at.applies || !isObject(stored) || Object.keys(stored).length === 0) return undefined;
  if (!stillGoesWhereItWent()) {
    throw invalid(
      ["body", "runtime_config", "mcp_servers", String(at.index), at.field],
      `${at.moved}: send its ${at.field} again, or ${at.field}: null to drop the stored ones`,
    );
  }
  return stored as Secrets;
}

function sameOrigin(before: unknown, after: string | undefined): boolean {
  if (typeof before !== "string" || after === undefined) return false;
  try {
    return new URL(before).origin === new URL(after).origin;
  } catch {
    return false;
  }
}

const sameCommand = (stored: Record<string, unknown> | undefined, server: McpServerInput): boolean =>
  stored?.command === server.command && JSON.stringify(stored?.args ?? []) === JSON.stringify(server.args ?? []);
