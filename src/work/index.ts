// Agents at work: the task queue ⇄ the worker ⇄ the agent runtime, and the API of tasks, runs, approvals and questions.
// This plugin only wires them: the signals (how processes hear of work, opened by server.ts), the task runner, the worker of this process,
// the run event streams, and the routes inside the workspace membership guard.
import type { FastifyInstance } from "fastify";
import type { ModelSettings } from "../agents/model.ts";
import type { AgentRuntime } from "../agents/runtime.ts";
import { requireWorkspaceAccess } from "../api/access.ts";
import type { Authenticator } from "../auth/authenticator.ts";
import type { Config } from "../config.ts";
import type { Db } from "../db/index.ts";
import type { AccessWatch } from "../events/access-watch.ts";
import type { OpenStreams } from "../http/open-streams.ts";
import type { TargetPolicy } from "../http/targets.ts";
import type { Drain } from "../ops/drain.ts";
import type { ToolInvoker } from "../tools/invoker.ts";
import type { PriceTable } from "../usage/prices.ts";
import { questionRoutes } from "./question-routes.ts";
import { workRoutes } from "./routes.ts";
import { RunEventStreams } from "./run-stream.ts";
import type { WorkSignals } from "./signals.ts";
import { TaskRunner } from "./task-run.ts";
import { TaskService, type WaitingForRuntime } from "./tasks.ts";
import { Worker } from "./worker.ts";

interface WorkOptions {
  db: Db;
  authenticator: Authenticator;
  runtime: AgentRuntime;
  tools: ToolInvoker;
  modelSettings: ModelSettings;
  settings: Config["work"];
  /** Where agents' HTTP MCP servers may be (every request of a run is checked). */
  mcpTargets: TargetPolicy;
  /** This process's work signals, shared with runtimes/ (server.ts opens and closes them). */
  signals: WorkSignals;
  /** Which queued tasks wait for a runtime (runtimes/). */
  waitingForRuntime?: WaitingForRuntime;
  /** Prices the runs' usage. */
  prices: PriceTable;
  /** Draining (SIGTERM): the worker stops claiming; its runs go on until the server closes. */
  drain?: Drain;
  /** Ends a run stream whose viewer loses access to the workspace. */
  accessWatch: AccessWatch;
  /** The cap on streams open per user. */
  openStreams: OpenStreams;
}

export async function workPlugin(app: FastifyInstance, options: WorkOptions): Promise<void> {
  const { db, settings, modelSettings, signals } = options;
  const tasks = new TaskService(db, settings.maxAttempts, options.waitingForRuntime);
  const streams = new RunEventStreams(db, signals, options.accessWatch, modelSettings.keepAliveMs);
  const runner = new TaskRunner({
    db,
    runtime: options.runtime,
    tools: options.tools,
    modelSettings,
    mcpConnectTimeoutMs: settings.mcpConnectTimeoutMs,
    mcpStdio: settings.mcpStdio,
    mcpTargets: options.mcpTargets,
    retryBaseMs: settings.retryBaseMs,
    prices: options.prices,
    log: app.log,
  });
  const worker = new Worker(db, signals, runner, { ...settings, defaultModel: modelSettings.defaultModel }, app.log);

  await app.register(
    async (workspace) => {
      requireWorkspaceAccess(workspace, options.authenticator);
      await workspace.register(workRoutes, { db, tasks, streams, openStreams: options.openStreams });
      await workspace.register(questionRoutes, { db });
    },
    { prefix: "/api/v1/workspaces/:ws_id" },
  );
  app.addHook("onReady", async () => worker.start());
  options.drain?.onStart(() => worker.stopClaiming());
  // Open run streams would hold the server open: they end, and their clients resume with Last-Event-ID.
  app.addHook("preClose", async () => streams.closeAll());
  app.addHook("onClose", async () => {
    await worker.stop();
  });
}
