// The platform API under /api/v1: accounts, then everything that needs a user, then everything inside a workspace.
import type { FastifyInstance } from "fastify";
import { requireAuthentication, requireWorkspaceAccess } from "../api/access.ts";
import type { SqlDialect } from "../db/index.ts";
import type { TargetPolicy } from "../http/targets.ts";
import { type AccountOptions, accountRoutes } from "./accounts/routes.ts";
import { activityRoutes } from "./activity/routes.ts";
import { agentRoutes } from "./agents/routes.ts";
import type { ToolNameCheck } from "./agents/service.ts";
import { apiKeyRoutes } from "./api-keys/routes.ts";
import { callRoutes } from "./calls/routes.ts";
import { commentRoutes } from "./comments/routes.ts";
import { dependencyRoutes } from "./dependencies/routes.ts";
import type { IssuePageCache } from "./issues/page-cache.ts";
import { issueRoutes } from "./issues/routes.ts";
import { labelRoutes } from "./labels/routes.ts";
import { memberRoutes } from "./members/routes.ts";
import { projectRoutes } from "./projects/routes.ts";
import { workspaceCollectionRoutes, workspaceRoutes } from "./workspaces/routes.ts";

interface PlatformOptions extends AccountOptions {
  dialect: SqlDialect;
  /** Agents may name only tools this says exist. */
  isKnownTool: ToolNameCheck;
  /** Whether agents may have stdio MCP servers (AGENT_MCP_STDIO). */
  mcpStdio: boolean;
  /** Where agents' HTTP MCP servers may be (AGENT_MCP_ALLOW_PRIVATE). */
  mcpTargets: TargetPolicy;
  /** Where the call server writes call recordings (CALL_RECORDINGS_DIR). */
  recordingsDir: string;
  /** The issue list's page cache; a test hands its own to watch its size. */
  issuePages?: IssuePageCache;
}

export async function platformRoutes(app: FastifyInstance, options: PlatformOptions): Promise<void> {
  const { db, dialect, authenticator, isKnownTool, mcpStdio, mcpTargets, issuePages } = options;
  const { tokens, loginLimiter, registrationLimiter, passwordRounds, isDev } = options;
  await app.register(accountRoutes, {
    db,
    tokens,
    authenticator,
    loginLimiter,
    registrationLimiter,
    passwordRounds,
    isDev,
  });
  await app.register(async (authenticated) => {
    requireAuthentication(authenticated, authenticator);
    await authenticated.register(workspaceCollectionRoutes, { db });
  });
  await app.register(
    async (workspace) => {
      requireWorkspaceAccess(workspace, authenticator);
      for (const routes of [
        workspaceRoutes,
        memberRoutes,
        projectRoutes,
        commentRoutes,
        labelRoutes,
        dependencyRoutes,
        activityRoutes,
        apiKeyRoutes,
      ])
        await workspace.register(routes, { db });
      await workspace.register(callRoutes, { db, recordingsDir: options.recordingsDir });
      await workspace.register(issueRoutes, { db, dialect, pages: issuePages });
      await workspace.register(agentRoutes, { db, isKnownTool, stdioAllowed: mcpStdio, mcpTargets });
    },
    { prefix: "/workspaces/:ws_id" },
  );
}
