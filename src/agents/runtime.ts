// The agent runtime: one agent (instructions + model + tools) run over a stored thread, with our own
// tool-calling loop. What it does is told to a RunSink as it happens (the agent-UI endpoint encodes it).
import type { AppContext } from "../context.ts";
import { newId } from "../db/values.ts";
import type { Tool, ToolContext } from "../tools/registry.ts";
import { type PlatformAgent, writeAgentStatus } from "./agent-store.ts";
import {
  type ChatMessage,
  type ModelClient,
  ModelError,
  type ToolCallRecord,
  type ToolSpec,
  type Usage,
} from "./model.ts";
import { createModelClient } from "./models.ts";
import { appendMessages, modelReadyHistory, openThread, type ThreadMessage, unseenMessages } from "./threads.ts";

/** An agent ready to run: a platform agent, or the default one (no id) with every custom tool. */
export interface AgentSpec {
  platform?: PlatformAgent;
  model: string;
  instructions: string;
}

/** Receives a run as it happens; each method is called in the order of the official AG-UI rules. */
export interface RunSink {
  textStart(messageId: string): void;
  textDelta(messageId: string, delta: string): void;
  textEnd(messageId: string): void;
  toolCallStart(toolCallId: string, toolCallName: string, parentMessageId: string): void;
  toolCallArgs(toolCallId: string, delta: string): void;
  toolCallEnd(toolCallId: string): void;
  toolCallResult(messageId: string, toolCallId: string, content: string): void;
}

export interface RunRequest {
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
}

export interface RunResult {
  /** The last assistant text. */
  text: string;
  usage: Usage;
  /** Client tool calls left for the client to answer. */
  pendingToolCallIds: string[];
}

/** A run that could not finish; `code` travels in run_error. */
export class RunError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "RunError";
  }
}

export class RunAbortedError extends Error {
  readonly code = "aborted";
  constructor() {
    super("The run was cancelled");
    this.name = "AbortError";
  }
}

const MAX_ASK_DEPTH = 3;
const WATCHDOG_TICKS = 4;
/**
 * A fast model's buffered stream is read entirely in microtasks, which would starve every other socket (new
 * requests wait for whole runs to finish). The loop yields to the event loop after this long without doing so.
 */
const YIELD_AFTER_MS = 0.25;
const YIELD_CHECK_EVERY = 16;
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export class AgentRuntime {
  /** Runs in progress per platform agent: the agent is `working` while any is. */
  private readonly activeRuns = new Map<string, number>();
  /**
   * How deep inside ask_<agent> calls each run's tool context is, so agents asking each other cannot loop forever.
   * (Not AsyncLocalStorage: on Node 20 it turns on promise hooks, a cost on every token.)
   */
  private readonly askDepth = new WeakMap<ToolContext, number>();

  constructor(private readonly ctx: AppContext) {}

  defaultAgent(): AgentSpec {
    return { model: this.ctx.config.agent.defaultModel, instructions: this.ctx.config.agent.defaultInstructions };
  }

  agentSpec(agent: PlatformAgent): AgentSpec {
    const defaults = this.ctx.config.agent;
    return {
      platform: agent,
      model: agent.model || defaults.defaultModel,
      instructions: agent.instructions || defaults.defaultInstructions,
    };
  }

  async run(request: RunRequest): Promise<RunResult> {
    const { agent } = request;
    const platform = agent.platform;
    const toolContext: ToolContext = {
      ...request.toolContext,
      ...(platform ? { workspaceId: platform.workspace_id, agentId: platform.id } : {}),
      signal: request.signal,
    };
    if (platform) await this.enter(platform);
    let failed = false;
    try {
      const model = createModelClient(agent.model, this.ctx.config.agent);
      this.askDepth.set(toolContext, (request.depth ?? 0) + 1);
      return await this.loop(request, model, toolContext);
    } catch (error) {
      failed = !(error instanceof RunAbortedError);
      throw error;
    } finally {
      if (platform) await this.leave(platform, failed);
    }
  }

  /** Runs a platform agent to its final answer without streaming (the ask_<agent> tools). */
  async ask(agent: PlatformAgent, message: string, threadId: string, caller: ToolContext): Promise<string> {
    const depth = this.askDepth.get(caller) ?? 0;
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

  private async loop(request: RunRequest, model: ModelClient, toolContext: ToolContext): Promise<RunResult> {
    const { agent, sink, signal } = request;
    const { db, config } = this.ctx;
    const tools = await this.toolsOf(agent, toolContext);
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
    const system = request.extraInstructions
      ? `${agent.instructions}\n\n${request.extraInstructions}`
      : agent.instructions;

    const thread = await openThread(db, request.scope, request.threadId, agent.platform?.id ?? null);
    await appendMessages(db, thread, unseenMessages(thread, request.messages));
    const usage: Required<Usage> = { inputTokens: 0, outputTokens: 0 };

    for (let step = 1; ; step++) {
      if (step > config.agent.maxSteps) {
        throw new RunError(
          "step_limit",
          `The agent stopped after ${config.agent.maxSteps} model calls without a final answer`,
        );
      }
      const messageId = newId();
      const turn = await this.streamTurn(
        model,
        system,
        modelReadyHistory(thread.messages),
        toolSpecs,
        messageId,
        request,
      );
      usage.inputTokens += turn.usage?.inputTokens ?? 0;
      usage.outputTokens += turn.usage?.outputTokens ?? 0;
      const assistant: ThreadMessage = {
        id: messageId,
        message: turn.toolCalls.length
          ? { role: "assistant", content: turn.text, toolCalls: turn.toolCalls }
          : { role: "assistant", content: turn.text },
      };
      await appendMessages(db, thread, [assistant]);
      if (turn.toolCalls.length === 0) return { text: turn.text, usage, pendingToolCallIds: [] };

      const pending = turn.toolCalls.filter((call) => clientToolNames.has(call.name));
      const ours = turn.toolCalls.filter((call) => !clientToolNames.has(call.name));
      const results = await Promise.all(
        ours.map(async (call): Promise<ThreadMessage> => {
          const content = await this.runTool(serverTools.get(call.name), call, toolContext);
          const resultId = newId();
          if (!signal.aborted) sink.toolCallResult(resultId, call.id, content);
          return { id: resultId, message: { role: "tool", content, toolCallId: call.id } };
        }),
      );
      if (signal.aborted) throw new RunAbortedError();
      await appendMessages(db, thread, results);
      if (pending.length > 0) return { text: turn.text, usage, pendingToolCallIds: pending.map((call) => call.id) };
    }
  }

  /** One model call, relayed to the sink as it streams; a silent model fails after AGENT_MODEL_TIMEOUT_MS. */
  private async streamTurn(
    model: ModelClient,
    system: string,
    messages: ChatMessage[],
    tools: ToolSpec[],
    messageId: string,
    request: RunRequest,
  ): Promise<{ text: string; toolCalls: ToolCallRecord[]; usage?: Usage }> {
    const { sink, signal } = request;
    if (signal.aborted) throw new RunAbortedError();
    const controller = new AbortController();
    const abortTurn = () => controller.abort();
    signal.addEventListener("abort", abortTurn, { once: true });
    let opened = false;
    let progress = 0;
    let seenProgress = -1;
    let silentTicks = 0;
    let timedOut = false;
    const watchdog = setInterval(
      () => {
        if (!opened) return; // until the response starts, the SDK's own timeout applies
        if (progress !== seenProgress) {
          seenProgress = progress;
          silentTicks = 0;
        } else if (++silentTicks >= WATCHDOG_TICKS) {
          timedOut = true;
          controller.abort();
        }
      },
      Math.max(1, Math.floor(this.ctx.config.agent.modelTimeoutMs / WATCHDOG_TICKS)),
    );

    let text = "";
    let textOpen = false;
    const toolCalls: ToolCallRecord[] = [];
    let openCall: ToolCallRecord | undefined;
    let usage: Usage | undefined;
    let lastYield = performance.now();
    try {
      for await (const event of model.stream({ system, messages, tools, signal: controller.signal })) {
        if (++progress % YIELD_CHECK_EVERY === 0 && performance.now() - lastYield > YIELD_AFTER_MS) {
          await yieldToEventLoop();
          lastYield = performance.now();
        }
        switch (event.type) {
          case "open":
            opened = true;
            break;
          case "text":
            if (!textOpen) {
              sink.textStart(messageId);
              textOpen = true;
            }
            text += event.delta;
            sink.textDelta(messageId, event.delta);
            break;
          case "tool_start":
            if (textOpen) {
              sink.textEnd(messageId);
              textOpen = false;
            }
            if (openCall) sink.toolCallEnd(openCall.id);
            openCall = { id: event.id, name: event.name, arguments: "" };
            toolCalls.push(openCall);
            sink.toolCallStart(event.id, event.name, messageId);
            break;
          case "tool_args": {
            const call = openCall?.id === event.id ? openCall : toolCalls.find((each) => each.id === event.id);
            if (call) {
              call.arguments += event.delta;
              sink.toolCallArgs(call.id, event.delta);
            }
            break;
          }
          case "finish":
            usage = event.usage;
            break;
        }
      }
    } catch (error) {
      if (!timedOut && !signal.aborted) throw error;
    } finally {
      clearInterval(watchdog);
      signal.removeEventListener("abort", abortTurn);
    }
    // An aborted SDK stream may end quietly instead of throwing.
    if (signal.aborted) throw new RunAbortedError();
    if (timedOut) {
      const silence = this.ctx.config.agent.modelTimeoutMs;
      throw new ModelError("model_timeout", `The model ${model.id} sent nothing for ${silence} ms`);
    }
    if (textOpen) sink.textEnd(messageId);
    if (openCall) sink.toolCallEnd(openCall.id);
    return { text, toolCalls, usage };
  }

  /** The result text for the model; every failure becomes a result saying so, never an exception. */
  private async runTool(tool: Tool | undefined, call: ToolCallRecord, toolContext: ToolContext): Promise<string> {
    if (!tool) return `Error: unknown tool ${call.name}`;
    let args: unknown;
    try {
      args = JSON.parse(call.arguments || "{}");
    } catch {
      return `Error: the arguments for ${call.name} are not valid JSON`;
    }
    if (args === null || typeof args !== "object" || Array.isArray(args)) {
      return `Error: the arguments for ${call.name} must be a JSON object`;
    }
    const outcome = await this.ctx.registry.call(tool, args as Record<string, unknown>, toolContext);
    if (!outcome.ok) return `Error: ${outcome.error}`;
    return typeof outcome.value === "string" ? outcome.value : JSON.stringify(outcome.value ?? null);
  }

  /** A platform agent's tools are the registry tools it names; the default agent gets every custom tool. */
  private async toolsOf(agent: AgentSpec, toolContext: ToolContext): Promise<Tool[]> {
    if (!agent.platform) return this.ctx.registry.list({}); // workspace-scoped sources show nothing here
    const found = await Promise.all(agent.platform.tools.map((name) => this.ctx.registry.find(name, toolContext)));
    return found.filter((tool): tool is Tool => tool !== undefined);
  }

  private async enter(agent: PlatformAgent): Promise<void> {
    const active = (this.activeRuns.get(agent.id) ?? 0) + 1;
    this.activeRuns.set(agent.id, active);
    if (active === 1) await writeAgentStatus(this.ctx.db, agent, "working").catch(() => {});
  }

  private async leave(agent: PlatformAgent, failed: boolean): Promise<void> {
    const active = (this.activeRuns.get(agent.id) ?? 1) - 1;
    if (active > 0) this.activeRuns.set(agent.id, active);
    else this.activeRuns.delete(agent.id);
    if (active === 0 || failed) await writeAgentStatus(this.ctx.db, agent, failed ? "error" : "idle").catch(() => {});
  }
}

const SILENT_SINK: RunSink = {
  textStart() {},
  textDelta() {},
  textEnd() {},
  toolCallStart() {},
  toolCallArgs() {},
  toolCallEnd() {},
  toolCallResult() {},
};

const runtimes = new WeakMap<AppContext, AgentRuntime>();

/** The one runtime of an app (shared by the agent-UI endpoint and the ask_<agent> tools). */
export function runtimeFor(ctx: AppContext): AgentRuntime {
  let runtime = runtimes.get(ctx);
  if (!runtime) {
    runtime = new AgentRuntime(ctx);
    runtimes.set(ctx, runtime);
  }
  return runtime;
}
