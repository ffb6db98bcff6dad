// The platform API under /api/v1: auth, then everything that needs a user, then everything inside a workspace.
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../context.ts";
import { requireAuthentication, requireWorkspaceRole } from "./access.ts";
import { authRoutes } from "./auth/routes.ts";
import { memberRoutes } from "./members/routes.ts";
import { workspaceCollectionRoutes, workspaceRoutes } from "./workspaces/routes.ts";

export async function platformRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  await app.register(authRoutes, ctx);
  await app.register(async (authenticated) => {
    requireAuthentication(authenticated, ctx.authenticator);
    await authenticated.register(workspaceCollectionRoutes, ctx);
    await authenticated.register(
      async (workspace) => {
        requireWorkspaceRole(workspace, ctx.db);
        for (const routes of [workspaceRoutes, memberRoutes]) await workspace.register(routes, ctx);
      },
      { prefix: "/workspaces/:ws_id" },
    );
  });
}
