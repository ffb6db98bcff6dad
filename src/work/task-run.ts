// One claimed task worked by its agent: the stage between the worker (claims, leases, cancellation) and the agent
// runtime. It gives the run its frame and tools (platform tools acting as the agent, the agent's registry tools, its
// MCP servers' tools), records the run's events, holds tool calls that need approval and ask_human calls until a person
// answers, posts the agent's answer, and ends the task as the run ended.

import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ModelError, type ModelSettings } from "../agents/model.ts";
import { createModelClient } from "../agents/models.ts";
import { type AgentRuntime, RunError, type RunResult } from "../agents/runtime.ts";
import type { ThreadMessage } from "../agents/threads.ts";
import type { Actor } from "../api/access.ts";
import { type Db, databaseRefusal } from "../db/index.ts";
import { fromJson } from "../db/values.ts";
import { HttpError } from "../http/errors.ts";
import type { TargetPolicy } from "../http/targets.ts";
import { STDIO_OFF } from "../platform/agents/checks.ts";
import { runtimeConfigSchema } from "../platform/agents/schemas.ts";
import { type Agent, toAgent } from "../platform/agents/service.ts";
import { addComment } from "../platform/comments/service.ts";
import { type Issue, NOT_STARTED, startIssues } from "../platform/issues/service.ts";
import { PLATFORM_TOOL_NAMES } from "../platform/tools.ts";
import type { ToolInvoker } from "../tools/invoker.ts";
import type { Tool } from "../tools/registry.ts";
import { exhaustedBudget } from "../usage/budgets.ts";
import { agentPrice, type PriceTable } from "../usage/prices.ts";
import { decisionFor } from "./approvals.ts";
import { questionGate } from "./ask-human.ts";
import { buildTaskFrame, newComments } from "./frame.ts";
import type { ClaimedTask } from "./leases.ts";
import { checkedFetch } from "./mcp-fetch.ts";
import { connectMcpServers, McpServerError, type McpToolset, NO_MCP_TOOLS } from "./mcp-tools.ts";
import {
  BUDGET_SPENT,
  closeCancelledRun,
  completeTask,
  type Failure,
  failTask,
  type NotOurs,
  pauseForPeople,
  releaseTask,
} from "./outcomes.ts";
import { lastEventSeq } from "./run-events.ts";
import { type RecorderLog, RunRecorder } from "./run-recorder.ts";

/** Thrown before a model call when the agent's or workspace's monthly budget is spent. */
class BudgetSpent extends Error {}

/** Why the worker stopped a run: a member cancelled the task, the server shuts down, or the lease was lost. */
export type StopReason = "cancelled" | "shutdown" | "lost";

export type RunEnd =
  | { kind: "succeeded" | "failed" | "waiting" }
  | { kind: "retry"; inMs: number }
  | { kind: "stopped"; reason: StopReason };

interface TaskRunLog extends RecorderLog {
  error(object: object, message: string): void;
}

interface TaskRunnerOptions {
  db: Db;
  runtime: AgentRuntime;
  tools: ToolInvoker;
  modelSettings: ModelSettings;
  mcpConnectTimeoutMs: number;
  /** Whether stdio MCP servers may run (AGENT_MCP_STDIO); an agent that still has one fails its run otherwise. */
  mcpStdio: boolean;
  /** Where HTTP MCP servers may be (AGENT_MCP_ALLOW_PRIVATE): every request to one is checked and pinned. */
  mcpTargets: TargetPolicy;
  retryBaseMs: number;
  /** Prices the runs' usage (an agent's `runtime_config.price` comes first). */
  prices: PriceTable;
  log: TaskRunLog;
}

/** The platform tools every task run gets, acting as its agent (list_agents comes from the agents' tool source). */
const TASK_PLATFORM_TOOLS = [...PLATFORM_TOOL_NAMES, "list_agents"];
/** One call of the agent runtime for this run: new messages, or (resume) the held tool calls settled first. */
type AgentTurn = (messages: ThreadMessage[], resume?: boolean) => Promise<RunResult>;

export class TaskRunner {
  private readonly mcpFetch: FetchLike;

  constructor(private readonly options: TaskRunnerOptions) {
    this.mcpFetch = checkedFetch(options.mcpTargets);
  }

  /** Works the claimed task until its run ends, waits for approval, or `signal` stops it (reason: StopReason). */
  async run(claimed: ClaimedTask, owner: string, signal: AbortSignal): Promise<RunEnd> {
    const { db } = this.options;
    const startSeq = claimed.resumed ? await lastEventSeq(db, claimed.runId) : 0;
    const model = claimed.agent.model || this.options.modelSettings.defaultModel;
    const price = agentPrice(fromJson(claimed.agent.runtime_config, null)) ?? this.options.prices.priceOf(model);
    const recorder = new RunRecorder(db, claimed.runId, startSeq, this.options.log, price);
    let mcp: McpToolset = NO_MCP_TOOLS;
    try {
      const agent = toAgent(claimed.agent);
      const spec = this.options.runtime.agentSpec(agent);
      // A model that cannot be called fails the run before anything else moves.
      createModelClient(spec.model, this.options.modelSettings);
      const config = runtimeConfigOf(agent, this.options.mcpStdio);
      if (!claimed.resumed) recorder.runStarted(claimed.task.id);
      mcp = await connectMcpServers(config.mcp_servers ?? [], {
        timeoutMs: this.options.mcpConnectTimeoutMs,
        signal,
        fetch: this.mcpFetch,
      });
      const extraTools = [...mcp.tools, ...(await this.platformTools(agent))];
      const turn: AgentTurn = (messages, resume = false) =>
        this.options.runtime.run({
          agent: spec,
          scope: `task:${claimed.task.id}`,
          threadId: claimed.runId,
          messages,
          resume,
          extraTools,
          approvals: (call) => decisionFor(db, claimed.runId, call.id),
          gate: questionGate(db, claimed.runId),
          toolContext: { workspaceId: agent.workspace_id },
          managesAgentStatus: false,
          signal,
          sink: recorder,
          beforeModelCall: async () => {
            // What this claim spent so far is not in the rollup yet: it counts too.
            const spent = await exhaustedBudget(db, agent.workspace_id, agent.id, recorder.costUsd ?? 0);
            if (spent) throw new BudgetSpent();
          },
        });
      return await this.work(claimed, owner, agent, turn, recorder);
    } catch (error) {
      if (signal.aborted) return this.stop(signal.reason as StopReason, claimed, owner, recorder);
      await recorder.settle();
      if (error instanceof BudgetSpent) {
        await releaseTask(db, claimed, owner, recorder, BUDGET_SPENT);
        return { kind: "waiting" };
      }
      const failure = this.describeFailure(error, claimed);
      const ended = await failTask(db, claimed, owner, failure, recorder, this.options.retryBaseMs);
      if (typeof ended === "object") return { kind: "retry", inMs: ended.retryInMs };
      return ended === "failed" ? { kind: "failed" } : this.notOurs(ended, claimed, owner, recorder);
    } finally {
      await mcp.close();
    }
  }

  /**
   * The run from its first model call (or its resumption) to its end: comments that arrive meanwhile are its next
   * input, held tool calls make it wait for approval, and its last answer becomes the agent's comment.
   */
  private async work(
    claimed: ClaimedTask,
    owner: string,
    agent: Agent,
    turn: AgentTurn,
    recorder: RunRecorder,
  ): Promise<RunEnd> {
    const { db } = this.options;
    let seenUntil: string | null;
    let result: RunResult;
    if (claimed.resumed) {
      seenUntil = await this.commentsSeenUntil(claimed.runId);
      result = await turn([], true);
    } else {
      const frame = await buildTaskFrame(db, claimed.task, agent);
      seenUntil = frame.seenUntil;
      // The issue moves to in_progress while the model is already asked, not before.
      const [started, first] = await Promise.allSettled([this.startIssue(frame.issue, agent), turn([frame.message])]);
      if (started.status === "rejected") throw started.reason;
      if (first.status === "rejected") throw first.reason;
      result = first.value;
    }
    let inputVersion = Number(claimed.task.input_version);
    let commented = claimed.resumed && (await this.commentedSinceStart(claimed, agent));
    for (;;) {
      if (result.heldToolCalls.length > 0) {
        await recorder.settle();
        const paused = await pauseForPeople(db, claimed, owner, result.heldToolCalls, {
          tally: recorder,
          commentsSeenUntil: seenUntil,
        });
        return typeof paused === "object" ? { kind: "waiting" } : this.notOurs(paused, claimed, owner, recorder);
      }
      const fresh = await newComments(db, claimed.task, seenUntil);
      if (fresh) seenUntil = fresh.seenUntil;
      commented ||= fresh?.byAgent ?? false;
      if (fresh?.message) {
        result = await turn([fresh.message]);
        continue;
      }
      // The answer becomes the agent's comment in the transaction that ends the task (not at all if it does not).
      const answer = !commented && result.text.trim() !== "" ? result.text : undefined;
      const postAnswer =
        answer === undefined
          ? undefined
          : (trx: Db) =>
              addComment(trx, claimed.task.workspace_id, claimed.task.issue_id, { content: answer }, actorOf(agent));
      // The run's events not stored yet are stored with its end, in its transaction.
      const events = await recorder.unstored();
      const ended = await completeTask(db, claimed, owner, inputVersion, recorder, { events, alongside: postAnswer });
      if (ended === "succeeded") {
        recorder.stored(events.length);
        return { kind: "succeeded" };
      }
      if (ended !== "more_input") return this.notOurs(ended, claimed, owner, recorder);
      // A trigger folded in between the last look at the comments and the end: look again.
      inputVersion = await this.inputVersion(claimed.task.id);
    }
  }

  /** An ending found the task no longer ours: cancelled meanwhile, or taken over by another process. */
  private notOurs(why: NotOurs, claimed: ClaimedTask, owner: string, recorder: RunRecorder): Promise<RunEnd> {
    return this.stop(why === "cancelled" ? "cancelled" : "lost", claimed, owner, recorder);
  }

  private async stop(reason: StopReason, claimed: ClaimedTask, owner: string, recorder: RunRecorder): Promise<RunEnd> {
    const { db } = this.options;
    if (reason === "lost") {
      recorder.discard();
    } else {
      await recorder.settle();
      if (reason === "cancelled") await closeCancelledRun(db, claimed, owner, recorder);
      else await releaseTask(db, claimed, owner, recorder);
    }
    return { kind: "stopped", reason };
  }

  /** Failures outside the agent are retried; what the agent or its configuration caused is not. */
  private describeFailure(error: unknown, claimed: ClaimedTask): Failure {
    if (error instanceof McpServerError)
      return { message: error.message, code: "mcp_server_unreachable", retryable: true };
    if (error instanceof ModelError) {
      const retryable = error.code === "model_error" || error.code === "model_timeout";
      return { message: error.message, code: error.code, retryable };
    }
    if (error instanceof RunError) return { message: error.message, code: error.code, retryable: false };
    // A platform service refused (e.g. the issue was deleted meanwhile): the same again would be refused again.
    if (error instanceof HttpError) return { message: error.detail, code: "refused", retryable: false };
    // A row the run wrote for went with a deletion: the end of this work, not a failure of the server.
    if (databaseRefusal(error) === "missing_reference") {
      return { message: "What the run worked on was deleted meanwhile", code: "refused", retryable: false };
    }
    this.options.log.error({ err: error, taskId: claimed.task.id }, "task run failed");
    return {
      message: "The run failed unexpectedly (the server log has the details)",
      code: "internal_error",
      retryable: true,
    };
  }

  private async platformTools(agent: Agent): Promise<Tool[]> {
    const context = { workspaceId: agent.workspace_id, agentId: agent.id };
    const found = await Promise.all(TASK_PLATFORM_TOOLS.map((name) => this.options.tools.find(name, context)));
    return found.filter((tool): tool is Tool => tool !== undefined);
  }

  /** The issue moves to in_progress when a run starts on it, as the agent's own change. */
  private async startIssue(issue: Issue, agent: Agent): Promise<void> {
    if (!NOT_STARTED.includes(issue.status)) return;
    await startIssues(this.options.db, issue.workspace_id, [{ issueId: issue.id, agentId: agent.id }]);
  }

  /** Whether the agent commented on the issue since the run started (a resumed run may have, before it waited). */
  private async commentedSinceStart(claimed: ClaimedTask, agent: Agent): Promise<boolean> {
    const comment = await this.options.db
      .selectFrom("comments")
      .select("id")
      .where("issue_id", "=", claimed.task.issue_id)
      .where("author_type", "=", "agent")
      .where("author_id", "=", agent.id)
      .where("created_at", ">=", claimed.runStartedAt)
      .executeTakeFirst();
    return comment !== undefined;
  }

  private async commentsSeenUntil(runId: string): Promise<string | null> {
    const run = await this.options.db
      .selectFrom("runs")
      .select("comments_seen_until")
      .where("id", "=", runId)
      .executeTakeFirst();
    return run?.comments_seen_until ?? null;
  }

  private async inputVersion(taskId: string): Promise<number> {
    const task = await this.options.db
      .selectFrom("tasks")
      .select("input_version")
      .where("id", "=", taskId)
      .executeTakeFirst();
    return Number(task?.input_version ?? 0);
  }
}

const actorOf = (agent: Agent): Actor => ({ type: "agent", id: agent.id });

/**
 * The agent's runtime_config as the runtime reads it. A stored value that no longer validates fails the run, and so
 * does a stdio MCP server (configured while they were allowed) on a server that runs none.
 */
function runtimeConfigOf(agent: Agent, stdioAllowed: boolean) {
  const parsed = runtimeConfigSchema.safeParse(agent.runtime_config);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new RunError(
      "invalid_runtime_config",
      `The agent's runtime_config is invalid at ${issue?.path.join(".") || "(top)"}: ${issue?.message}`,
    );
  }
  const stdio = stdioAllowed ? undefined : parsed.data.mcp_servers?.find((server) => server.command !== undefined);
  if (stdio) throw new RunError("mcp_stdio_off", `MCP server "${stdio.name}": ${STDIO_OFF}`);
  return parsed.data;
}
