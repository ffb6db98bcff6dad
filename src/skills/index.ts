// Skills: Agent Skills folders stored per workspace, created from JSON or a zip, read by runs and runners.
import type { FastifyInstance } from "fastify";
import { requireWorkspaceAccess } from "../api/access.ts";
import type { Authenticator } from "../auth/authenticator.ts";
import type { Db } from "../db/index.ts";
import { skillRoutes } from "./routes.ts";

export interface SkillsOptions {
  db: Db;
  authenticator: Authenticator;
}

export async function skillsPlugin(app: FastifyInstance, options: SkillsOptions): Promise<void> {
  await app.register(
    async (workspace) => {
      requireWorkspaceAccess(workspace, options.authenticator);
      await workspace.register(skillRoutes, { db: options.db });
    },
    { prefix: "/api/v1/workspaces/:ws_id" },
  );
}
