// The autopilots plugin: the API under /workspaces/:ws_id, the webhook receiver, and on every process the scheduler
// and the event-trigger consumer (woken across processes through the outbox's signal).
import type { FastifyInstance } from "fastify";
import { requireWorkspaceAccess } from "../api/access.ts";
import type { Authenticator } from "../auth/authenticator.ts";
import type { Db } from "../db/index.ts";
import type { FireSettings } from "./fire.ts";
import { autopilotRoutes } from "./routes.ts";

export interface AutopilotsOptions {
  db: Db;
  authenticator: Authenticator;
  settings: FireSettings;
}

/** Registered under `/api/v1`. */
export async function autopilotsPlugin(app: FastifyInstance, options: AutopilotsOptions): Promise<void> {
  const { db, authenticator, settings } = options;
  await app.register(
    async (workspace) => {
      requireWorkspaceAccess(workspace, authenticator);
      await workspace.register(autopilotRoutes, { db, settings });
    },
    { prefix: "/workspaces/:ws_id" },
  );
}
