// The agent runtime: one agent (instructions + model + tools) run over a stored thread, with our own
// tool-calling loop. What it does is told to a RunSink as it happens (the agent-UI endpoint encodes it).
import type { Db } from "../db/index.ts";
import { newId } from "../db/values.ts";
import type { Agent } from "../platform/agents/service.ts";
import type { ToolInvoker } from "../tools/invoker.ts";
import type { Tool, ToolContext } from "../tools/registry.ts";
import type { AgentStatusTracker } from "./agent-status.ts";
import { type ApprovalDecisions, approvalGate } from "./approval-gate.ts";
import type { ModelClient, ModelSettings, ToolCallRecord, ToolSpec, Usage } from "./model.ts";
import { createModelClient } from "./models.ts";
import type { RunAddition } from "./run-additions.ts";
import { RunAbortedError, RunError, type RunSink, SILENT_SINK, type ToolGate } from "./run-types.ts";
import {
  appendMessages,
  modelReadyHistory,
  openThread,
  type Thread,
  type ThreadMessage,
  unseenMessages,
} from "./threads.ts";
import { streamTurn } from "./turn.ts";

export { RunAbortedError, RunError, type RunSink } from "./run-types.ts";

/** An agent ready to run: a platform agent, or the default one (no id) with every custom tool. */
export interface AgentSpec {
  platform?: Agent;
  model: string;
  instructions: string;
}

interface RunRequest {
  agent: AgentSpec;
  /** Keeps threads of different callers apart, e.g. `ws:<id>`, `user:<id>`, `anon`. */
  scope: string;
  threadId: string;
  /** The request's messages: only the new one, or the whole history (already stored ones are skipped by id). */
  messages: ThreadMessage[];
  /** Said to the model after the agent's instructions for this run only (client context, system messages). */
  extraInstructions?: string;
  /** Tools the client runs itself: a call to one ends the run, the client answers in its next request. */
  clientTools?: ToolSpec[];
  /** The caller, as tools see it (workspace, user); the agent id is added here. */
  toolContext: ToolContext;
  signal: AbortSignal;
  sink: RunSink;
  /** How many runs this one is nested in (ask_<agent> calls); 0 for a top-level run. */
  depth?: number;
  /** Tools offered besides the agent's own (a task run's platform tools and MCP server tools); theirs win a clash. */
  extraTools?: Tool[];
  /**
   * The approvals of the agent's own task run: its gated calls (approval_required) are held until a person decides,
   * which ends the run until it resumes. Without, every run of the agent refuses them (approval-gate.ts).
   */
  approvals?: ApprovalDecisions;
  /**
   * Asked before the approval gate about every tool call: what the run itself holds or answers (a task run's
   * ask_human calls wait for a person's answer). A call it lets run still passes the approval gate.
   */
  gate?: ToolGate;
  /** Awaited before every model call after the first; a throw ends the run there (a spent budget). */
  beforeModelCall?: () => Promise<void>;
  /** The stored thread ends with held tool calls: settle them through the gate before the next model call. */
  resume?: boolean;
  /** False when the caller keeps the agent's status itself (the task worker, from the tasks table). */
  managesAgentStatus?: boolean;
}

export interface RunResult {
  /** The last assistant text. */
  text: string;
  usage: Usage;
  /** Client tool calls left for the client to answer. */
  pendingToolCallIds: string[];
  /** Tool calls the gate held: the run stopped before them and resumes once they are settled. */
  heldToolCalls: ToolCallRecord[];
}

interface AgentRuntimeOptions {
  db: Db;
  tools: ToolInvoker;
  settings: ModelSettings;
  status: AgentStatusTracker;
  /** What features add to every run of a platform agent (its skills). */
  additions?: RunAddition[];
}

const MAX_ASK_DEPTH = 3;
/**
 * How deep inside ask_<agent> calls a run's tool context is, so agents asking each other cannot loop forever. A
 * property of the context rather than a map keyed by it: the invoker hands tools a copy (with its deadline's signal),
 * which carries it along. A symbol, so no caller of the tool protocol can set it. (Not AsyncLocalStorage: on Node 20
 * it turns on promise hooks, a cost on every token.)
 */
const ASK_DEPTH = Symbol("askDepth");
type DepthContext = ToolContext & { [ASK_DEPTH]?: number };

/** Told after every model request that answered: the model named by the agent, and the usage it reported. */
type ModelTurnListener = (model: string, usage: Usage | undefined) => void;

export class AgentRuntime {
  private readonly turnListeners: ModelTurnListener[] = [];

  constructor(private readonly options: AgentRuntimeOptions) {}

  /** Hears of every model request that answered (metrics). */
  onModelTurn(listener: ModelTurnListener): void {
    this.turnListeners.push(listener);
  }

  defaultAgent(): AgentSpec {
    return { model: this.options.settings.defaultModel, instructions: this.options.settings.defaultInstructions };
  }

  agentSpec(agent: Agent): AgentSpec {
    const defaults = this.options.settings;
    return {
      platform: agent,
      model: agent.model || defaults.defaultModel,
      instructions: agent.instructions || defaults.defaultInstructions,
    };
  }

  async run(request: RunRequest): Promise<RunResult> {
    const { agent } = request;
    const platform = agent.platform;
    const toolContext: DepthContext = {
      ...request.toolContext,
      ...(platform ? { workspaceId: platform.workspace_id, agentId: platform.id } : {}),
      signal: request.signal,
      [ASK_DEPTH]: (request.depth ?? 0) + 1,
    };
    const tracksStatus = platform !== undefined && request.managesAgentStatus !== false;
    const liveRun = tracksStatus ? await this.options.status.runStarted(platform) : undefined;
    let failed = false;
    try {
      const model = createModelClient(agent.model, this.options.settings);
      return await this.loop(request, model, toolContext);
    } catch (error) {
      failed = !(error instanceof RunAbortedError);
      throw error;
    } finally {
      if (platform && liveRun !== undefined) await this.options.status.runEnded(platform, liveRun, failed);
    }
  }

  /** Runs a platform agent to its final answer without streaming (the ask_<agent> tools). */
  async ask(agent: Agent, message: string, threadId: string, caller: ToolContext): Promise<string> {
    const depth = (caller as DepthContext)[ASK_DEPTH] ?? 0;
    if (depth >= MAX_ASK_DEPTH) {
      throw new Error(`Agents may ask each other at most ${MAX_ASK_DEPTH} levels deep`);
    }
    const result = await this.run({
      agent: this.agentSpec(agent),
      scope: `ws:${agent.workspace_id}/agent:${agent.id}`,
      threadId,
      messages: [{ id: newId(), message: { role: "user", content: message } }],
      toolContext: { userId: caller.userId },
      depth,
      signal: caller.signal ?? new AbortController().signal,
      sink: SILENT_SINK,
    });
    return result.text;
  }

  /**
   * What every run of the agent starts from: the system prompt (its instructions, then what features add, such as
   * its skills) and its tools (`extraTools` first, then what features add, then the registry tools it names). A
   * phone call with the agent (CALL_AGENT_ID) starts from the same.
   */
  async setupOf(
    agent: AgentSpec,
    toolContext: ToolContext,
    extraTools: Tool[] = [],
  ): Promise<{ system: string; tools: Tool[] }> {
    const platform = agent.platform;
    const added = platform
      ? await Promise.all((this.options.additions ?? []).map((addition) => addition.forAgent(platform)))
      : [];
    const addedTools = added.flatMap((addition) => addition.tools ?? []);
    const tools = await this.toolsOf(agent, toolContext, [...extraTools, ...addedTools]);
    const system = [agent.instructions, ...added.map((addition) => addition.instructions)]
      .filter((part) => part)
      .join("\n\n");
    return { system, tools };
  }

  private async loop(request: RunRequest, model: ModelClient, toolContext: ToolContext): Promise<RunResult> {
    const { agent, sink, signal } = request;
    const { db, settings } = this.options;
    const setup = await this.setupOf(agent, toolContext, request.extraTools);
    const { tools } = setup;
    const toolSpecs: ToolSpec[] = tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      parameters: tool.inputSchema,
    }));
    const serverTools = new Map(tools.map((tool) => [tool.name, tool]));
    const clientToolNames = new Set<string>();
    for (const tool of request.clientTools ?? []) {
      if (serverTools.has(tool.name)) continue;
      clientToolNames.add(tool.name);
      toolSpecs.push(tool);
    }
    const system = [setup.system, request.extraInstructions].filter((part) => part).join("\n\n");

    const thread = await openThread(db, request.scope, request.threadId, agent.platform?.id ?? null);
    await appendMessages(db, thread, unseenMessages(thread, request.messages));
    const usage: Required<Usage> = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
    const gate = bothGates(request.gate, agent.platform ? approvalGate(agent.platform, request.approvals) : undefined);
    const calls = { serverTools, toolContext, request, gate };

    if (request.resume) {
      const held = await this.settle(unansweredCalls(thread.messages), calls, thread);
      if (held.length > 0) return { text: "", usage, pendingToolCallIds: [], heldToolCalls: held };
    }

    for (let step = 1; ; step++) {
      if (step > settings.maxSteps) {
        throw new RunError(
          "step_limit",
          `The agent stopped after ${settings.maxSteps} model calls without a final answer`,
        );
      }
      if (step > 1) await request.beforeModelCall?.();
      const messageId = newId();
      const turn = await streamTurn(model, {
        system,
        messages: modelReadyHistory(thread.messages),
        tools: toolSpecs,
        messageId,
        sink,
        signal,
        modelTimeoutMs: settings.modelTimeoutMs,
      });
      usage.inputTokens += turn.usage?.inputTokens ?? 0;
      usage.outputTokens += turn.usage?.outputTokens ?? 0;
      usage.cacheReadTokens += turn.usage?.cacheReadTokens ?? 0;
      usage.cacheWriteTokens += turn.usage?.cacheWriteTokens ?? 0;
      if (turn.usage) sink.usage?.(turn.usage);
      for (const listener of this.turnListeners) listener(agent.model, turn.usage);
      const assistant: ThreadMessage = {
        id: messageId,
        message: turn.toolCalls.length
          ? { role: "assistant", content: turn.text, toolCalls: turn.toolCalls }
          : { role: "assistant", content: turn.text },
      };
      await appendMessages(db, thread, [assistant]);
      if (turn.toolCalls.length === 0) return { text: turn.text, usage, pendingToolCallIds: [], heldToolCalls: [] };

      const pending = turn.toolCalls.filter((call) => clientToolNames.has(call.name));
      const ours = turn.toolCalls.filter((call) => !clientToolNames.has(call.name));
      const held = await this.settle(ours, calls, thread);
      if (held.length > 0 || pending.length > 0) {
        return { text: turn.text, usage, pendingToolCallIds: pending.map((call) => call.id), heldToolCalls: held };
      }
    }
  }

  /**
   * Runs the calls (or answers them as the gate says) and stores their results; returns the calls the gate held,
   * which stay unanswered in the thread.
   */
  private async settle(
    toolCalls: ToolCallRecord[],
    {
      serverTools,
      toolContext,
      request,
      gate,
    }: { serverTools: Map<string, Tool>; toolContext: ToolContext; request: RunRequest; gate: ToolGate | undefined },
    thread: Thread,
  ): Promise<ToolCallRecord[]> {
    const { sink, signal } = request;
    const held: ToolCallRecord[] = [];
    const results = await Promise.all(
      toolCalls.map(async (call): Promise<ThreadMessage | undefined> => {
        const decision = gate ? await gate(call) : ({ action: "run" } as const);
        if (decision.action === "hold") {
          held.push(call);
          return undefined;
        }
        const content =
          decision.action === "answer"
            ? decision.content
            : await this.runTool(serverTools.get(call.name), call, toolContext);
        const resultId = newId();
        if (!signal.aborted) sink.toolCallResult(resultId, call.id, content);
        return { id: resultId, message: { role: "tool", content, toolCallId: call.id } };
      }),
    );
    if (signal.aborted) throw new RunAbortedError();
    await appendMessages(
      this.options.db,
      thread,
      results.filter((result): result is ThreadMessage => result !== undefined),
    );
    return held;
  }

  /** The result text for the model; every failure becomes a result saying so, never an exception. */
  private async runTool(tool: Tool | undefined, call: ToolCallRecord, toolContext: ToolContext): Promise<string> {
    // Only the agent's own tools may run: a name the model made up is unknown even if the registry has it.
    const outcome = tool
      ? await this.options.tools.invoke(call.name, call.arguments, toolContext, tool)
      : ({ ok: false, error: `Unknown tool: ${call.name}` } as const);
    if (!outcome.ok) return `Error: ${outcome.error}`;
    return typeof outcome.value === "string" ? outcome.value : JSON.stringify(outcome.value ?? null);
  }

  /**
   * A platform agent's tools are the registry tools it names; the default agent gets every custom tool. Extra tools
   * of the run come first, so they win a name clash.
   */
  private async toolsOf(agent: AgentSpec, toolContext: ToolContext, extraTools: Tool[]): Promise<Tool[]> {
    const { tools } = this.options;
    if (!agent.platform) return [...extraTools, ...(await tools.list({}))]; // workspace-scoped sources show nothing
    const found = await Promise.all(agent.platform.tools.map((name) => tools.find(name, toolContext)));
    const own = found.filter((tool): tool is Tool => tool !== undefined);
    if (extraTools.length === 0) return own;
    const extraNames = new Set(extraTools.map((tool) => tool.name));
    return [...extraTools, ...own.filter((tool) => !extraNames.has(tool.name))];
  }
}

/** `first`, then for the calls it lets run, `second`. */
function bothGates(first: ToolGate | undefined, second: ToolGate | undefined): ToolGate | undefined {
  if (!first || !second) return first ?? second;
  return async (call) => {
    const decision = await first(call);
    return decision.action === "run" ? second(call) : decision;
  };
}

/** The tool calls of the thread's last assistant message that have no result yet (held by a gate). */
function unansweredCalls(messages: ThreadMessage[]): ToolCallRecord[] {
  const answered = new Set<string>();
  for (let index = messages.length - 1; index >= 0; index--) {
    const { message } = messages[index]!;
    if (message.role === "tool") answered.add(message.toolCallId);
    else if (message.role === "assistant") {
      return (message.toolCalls ?? []).filter((call) => !answered.has(call.id));
    } else return [];
  }
  return [];
}
