// The autopilots plugin: the API under /workspaces/:ws_id, the webhook receiver, and on every process the scheduler
// and the event-trigger consumer, woken across processes through the outbox's signal (an `autopilot.*` event means
// autopilots changed).
import type { FastifyInstance } from "fastify";
import { requireWorkspaceAccess } from "../api/access.ts";
import type { Authenticator } from "../auth/authenticator.ts";
import type { Db } from "../db/index.ts";
import type { EventSignal } from "../events/signal.ts";
import { AUTOPILOT_CHANGES, EventTriggerConsumer } from "./event-triggers.ts";
import type { FireSettings } from "./fire.ts";
import { autopilotHookRoutes } from "./hook-routes.ts";
import { autopilotRoutes } from "./routes.ts";
import { AutopilotScheduler } from "./scheduler.ts";

export interface AutopilotsOptions {
  db: Db;
  /** This process's listener for the workspaces' events (server.ts opens and closes it). */
  signal: EventSignal;
  authenticator: Authenticator;
  settings: FireSettings;
  /** Backstop re-read of the outbox for event triggers without a hint (default 5 s). */
  sweepMs?: number;
}

const DEFAULT_SWEEP_MS = 5_000;

/** Registered under `/api/v1`. */
export async function autopilotsPlugin(app: FastifyInstance, options: AutopilotsOptions): Promise<void> {
  const { db, authenticator, settings } = options;
  const scheduler = new AutopilotScheduler(db, settings, app.log);
  let closing = false;
  const logError = (error: unknown) => {
    if (!closing) app.log.error({ message: error instanceof Error ? error.message : String(error) }, "autopilots");
  };
  const events = new EventTriggerConsumer(db, settings, logError);
  const sweep = () => void events.sweep().catch(logError);
  const { signal } = options;
  // Hints carry their committed event (when it fits): only an autopilot's change can move a fire time; its fires
  // (`autopilot.fired|skipped`) need no wake, each process's timer is set for them.
  signal.onHint((workspaceId, _seq, event) => {
    if (!event || AUTOPILOT_CHANGES.has(event.type)) scheduler.wake();
    events.hint(workspaceId, event);
  });
  signal.onResync(() => {
    scheduler.wake();
    events.forget();
    sweep();
  });
  const backstop = setInterval(sweep, options.sweepMs ?? DEFAULT_SWEEP_MS).unref();
  app.addHook("onReady", async () => {
    scheduler.wake();
    sweep();
  });
  app.addHook("preClose", async () => {
    closing = true;
    clearInterval(backstop);
    await scheduler.close();
    await events.idle();
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
