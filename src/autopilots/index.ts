// The autopilots plugin: the API under /workspaces/:ws_id, the webhook receiver, and on every process the scheduler
// and the event-trigger consumer, woken across processes through the outbox's signal (an `autopilot.*` event means
// autopilots changed).
import type { FastifyInstance } from "fastify";
import { requireWorkspaceAccess } from "../api/access.ts";
import type { Authenticator } from "../auth/authenticator.ts";
import type { Db, SqlDialect } from "../db/index.ts";
import { openEventSignal } from "../events/signal.ts";
import type { FireSettings } from "./fire.ts";
import { autopilotHookRoutes } from "./hook-routes.ts";
import { autopilotRoutes } from "./routes.ts";
import { AutopilotScheduler } from "./scheduler.ts";

export interface AutopilotsOptions {
  db: Db;
  dialect: SqlDialect;
  databaseUrl: string;
  authenticator: Authenticator;
  settings: FireSettings;
}

/** Registered under `/api/v1`. */
export async function autopilotsPlugin(app: FastifyInstance, options: AutopilotsOptions): Promise<void> {
  const { db, authenticator, settings } = options;
  const scheduler = new AutopilotScheduler(db, settings, app.log);
  const signal = openEventSignal(options.dialect, options.databaseUrl, app.log);
  signal.onHint((_workspaceId, _seq, event) => {
    if (!event || event.type.startsWith("autopilot.")) scheduler.wake();
  });
  signal.onResync(() => scheduler.wake());
  app.addHook("onReady", async () => scheduler.wake());
  app.addHook("preClose", async () => {
    await scheduler.close();
    await signal.close();
  });

  await app.register(
    async (workspace) => {
      requireWorkspaceAccess(workspace, authenticator);
      await workspace.register(autopilotRoutes, { db, settings });
    },
    { prefix: "/workspaces/:ws_id" },
  );
  await app.register(autopilotHookRoutes, { db, settings });
}
