// Usage, prices and budgets: this plugin wires the usage report inside the membership guard.
import type { FastifyInstance } from "fastify";
import { requireWorkspaceAccess } from "../api/access.ts";
import type { Authenticator } from "../auth/authenticator.ts";
import type { Db } from "../db/index.ts";
import { usageRoutes } from "./routes.ts";

export interface UsageOptions {
  db: Db;
  authenticator: Authenticator;
}

export async function usagePlugin(app: FastifyInstance, options: UsageOptions): Promise<void> {
  await app.register(
    async (workspace) => {
      requireWorkspaceAccess(workspace, options.authenticator);
      await workspace.register(usageRoutes, { db: options.db });
    },
    { prefix: "/api/v1/workspaces/:ws_id" },
  );
}
