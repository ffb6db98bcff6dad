// What creating or changing an agent checks beyond its schema: the tools it names exist, who may make it run a
// command on this host (a stdio MCP server), and where its HTTP MCP servers may be.
import { hasRole, type Role } from "../../auth/membership.ts";
import { forbidden, invalid } from "../../http/errors.ts";
import { checkTarget, type TargetPolicy } from "../../http/targets.ts";
import type { McpServerConfig } from "./schemas.ts";

/**
 * Whether `name` is a tool an agent of this workspace can be given: the registry has it as the workspace sees it,
 * or it is one the agent will bring itself (its own ask_<agent> tool).
 */
export type ToolNameCheck = (
  name: string,
  scope: { workspaceId: string; userId: string; agentName: string },
) => Promise<boolean>;

/** What creating or changing an agent checks beyond its schema; unset checks nothing (services called directly). */
export interface AgentChecks {
  isKnownTool?: ToolNameCheck;
  /** The caller's role: a stdio MCP server runs a command on this host, so only admins configure one. */
  role?: Role;
  /** False when this server runs no stdio MCP servers at all (AGENT_MCP_STDIO): none may be configured. */
  stdioAllowed?: boolean;
  /** Where HTTP MCP servers may be (AGENT_MCP_ALLOW_PRIVATE); the worker checks each request again. */
  mcpTargets?: TargetPolicy;
}

export async function checkTools(
  names: string[] | undefined,
  checks: AgentChecks,
  scope: { workspaceId: string; userId: string; agentName: string },
): Promise<void> {
  if (!names || !checks.isKnownTool) return;
  for (const [index, name] of names.entries()) {
    if (!(await checks.isKnownTool(name, scope))) {
      throw invalid(["body", "tools", String(index)], `Unknown tool: ${name} (not in this workspace's tool registry)`);
    }
  }
}

/** Why a stdio MCP server is refused when AGENT_MCP_STDIO is off; a run of an agent that still has one says it too. */
export const STDIO_OFF = "This server runs no stdio MCP servers (commands on the host): AGENT_MCP_STDIO is off";

/** The MCP servers a runtime_config lists (already validated by its schema). */
const serversOf = (runtimeConfig: Record<string, unknown> | null | undefined): McpServerConfig[] =>
  (runtimeConfig?.mcp_servers as McpServerConfig[] | undefined) ?? [];

const stdioServers = (runtimeConfig: Record<string, unknown> | null | undefined) =>
  JSON.stringify(serversOf(runtimeConfig).filter((server) => server.command !== undefined));

export function checkStdioServers(
  before: Record<string, unknown> | null,
  after: Record<string, unknown> | null | undefined,
  checks: AgentChecks,
): void {
  if (after === undefined) return;
  if (checks.stdioAllowed === false) {
    const index = serversOf(after).findIndex((server) => server.command !== undefined);
    if (index >= 0) {
      throw invalid(
        ["body", "runtime_config", "mcp_servers", String(index), "command"],
        `${STDIO_OFF}: give the server's url instead`,
      );
    }
  }
  if (checks.role === undefined || hasRole(checks.role, "admin")) return;
  if (stdioServers(after) !== stdioServers(before)) {
    throw forbidden("Only an admin may configure a stdio MCP server (a command run on the server)");
  }
}

/** Each HTTP MCP server's URL must be one the worker may reach: 422 naming the first that is not. */
export async function checkMcpServerUrls(
  runtimeConfig: Record<string, unknown> | null | undefined,
  checks: AgentChecks,
): Promise<void> {
  if (!checks.mcpTargets || checks.mcpTargets.allowPrivate) return;
  for (const [index, server] of serversOf(runtimeConfig).entries()) {
    if (server.url === undefined) continue;
    const target = await checkTarget(server.url, checks.mcpTargets);
    if (!target.ok) throw invalid(["body", "runtime_config", "mcp_servers", String(index), "url"], target.problem);
  }
}
