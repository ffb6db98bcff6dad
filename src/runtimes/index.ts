// Runtimes on the server: runner tokens, runners and their runtimes, the runner API, task tokens' tasks. This plugin
// only wires them: the work signals (long polls wake on them), the service, the routes (members' inside the
// membership guard, the runner API behind runner tokens) and the sweep that turns silent runners offline.
import type { FastifyInstance } from "fastify";
import { requireWorkspaceAccess } from "../api/access.ts";
import type { Authenticator } from "../auth/authenticator.ts";
import type { Config } from "../config.ts";
import type { Db } from "../db/index.ts";
import type { PriceTable } from "../usage/prices.ts";
import { recoverExpiredLeases } from "../work/leases.ts";
import type { WorkSignals } from "../work/signals.ts";
import { runtimeRoutes } from "./routes.ts";
import { runnerApiRoutes } from "./runner-routes.ts";
import { markSilentRunnersOffline } from "./runners.ts";
import { RunnerService } from "./service.ts";

export interface RuntimesOptions {
  db: Db;
  /** This process's work signals (server.ts opens them for work/ and runtimes/). */
  signals: WorkSignals;
  authenticator: Authenticator;
  settings: Config["work"];
  /** Prices runner runs that report no cost of their own. */
  prices: PriceTable;
}

/** Silent runners are looked for this often: a quarter of RUNNER_OFFLINE_MS, between 50 ms and 5 s. */
const sweepEveryMs = (offlineMs: number) => Math.min(Math.max(offlineMs / 4, 50), 5_000);

export async function runtimesPlugin(app: FastifyInstance, options: RuntimesOptions): Promise<void> {
  const { db, settings, signals } = options;
  const service = new RunnerService(db, signals, settings, options.prices);
  const recoverLeases = () => recoverExpiredLeases(db, settings);

  await app.register(
    async (workspace) => {
      requireWorkspaceAccess(workspace, options.authenticator);
      await workspace.register(runtimeRoutes, { db, recoverLeases });
    },
    { prefix: "/api/v1/workspaces/:ws_id" },
  );
  await app.register(runnerApiRoutes, { prefix: "/api/v1/runner", authenticator: options.authenticator, service });

  let sweeping: Promise<unknown> | undefined;
  const sweep = setInterval(() => {
    sweeping ??= markSilentRunnersOffline(db, settings.runnerOfflineMs)
      .catch((error: unknown) =>
        app.log.warn({ message: error instanceof Error ? error.message : String(error) }, "runner sweep failed"),
      )
      .finally(() => {
        sweeping = undefined;
      });
  }, sweepEveryMs(settings.runnerOfflineMs));
  app.addHook("onClose", async () => {
    clearInterval(sweep);
    await sweeping;
    await service.close();
  });
}
