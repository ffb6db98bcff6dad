// The phone agent (CALL_AGENT_ID): a platform agent takes the calls. Each call starts from what the agent's runs start
// from (agents/runtime.ts setupOf): its instructions and skills, its registry tools, and the platform tools acting as
// the agent; read again for every call, so an edited agent answers the next call as edited. After a call
// (CALL_ISSUE) the agent files it on the board: a comment with the transcript on the issue it created or named during
// the call, else a new issue "Call from <number>" with the transcript as its description.

import { findAgent } from "../agents/agent-store.ts";
import type { AgentRuntime } from "../agents/runtime.ts";
import type { ToolInvoker } from "../tools/invoker.ts";
import type { Tool, ToolContext } from "../tools/registry.ts";
import type { TranscriptLine } from "./call-record.ts";

/**
 * The platform tools a phone agent has, found in the registry and run as the agent: enough to put what a caller asks
 * for on the board (a realtime model chooses better among few tools).
 */
const CALL_PLATFORM_TOOLS = ["list_issues", "get_issue", "create_issue", "update_issue", "add_comment"];
/** The issues API's limit on a description or a comment. */
const MAX_TEXT_CHARS = 100_000;

interface PhoneAgentOptions {
  runtime: AgentRuntime;
  tools: ToolInvoker;
  db: Parameters<typeof findAgent>[0];
  workspaceId: string;
  agentId: string;
  /** CALL_ISSUE: file every call on the board. */
  fileCalls: boolean;
}

/** One call with the agent. */
export interface PhoneAgentCall {
  /** The session's instructions: the agent's, with its skills listed. */
  instructions: string;
  /** The agent's tools, besides the tools file's and the built-in functions. */
  tools: Tool[];
  /** Tools run inside the agent's workspace, as the agent. */
  context: Pick<ToolContext, "workspaceId" | "agentId">;
  /**
   * Once the call is over: files it on the board (when CALL_ISSUE is on). `number` is the other party's: the
   * caller's, or on a call we placed (`outbound`) the number called.
   */
  fileCall(transcript: TranscriptLine[], number: string, outbound?: boolean): Promise<void>;
}

export class PhoneAgent {
  constructor(private readonly options: PhoneAgentOptions) {}

  /** The agent as it is now; throws when it is gone (deleted since the server started). */
  async forCall(): Promise<PhoneAgentCall> {
    const { runtime, tools, db, workspaceId, agentId } = this.options;
    const agent = await findAgent(db, agentId);
    if (!agent || agent.workspace_id !== workspaceId) {
      throw new Error(`CALL_AGENT_ID names no agent of workspace ${workspaceId}: ${agentId}`);
    }
    const context = { workspaceId, agentId };
    const found = await Promise.all(CALL_PLATFORM_TOOLS.map((name) => tools.find(name, context)));
    const platformTools = found.filter((tool): tool is Tool => tool !== undefined);
    const setup = await runtime.setupOf(runtime.agentSpec(agent), context, platformTools);
    const trail = new IssueTrail();
    return {
      instructions: setup.system,
      // The person is on the line: the model asks them in its reply, not through a question (ask_human) left on the board.
      tools: setup.tools.filter((tool) => tool.name !== "ask_human").map((tool) => trail.watch(tool)),
      context,
      fileCall: (transcript, number, outbound = false) =>
        this.fileCall(
          transcript,
          `Call ${outbound ? "to" : "from"} ${number || "an unknown number"}`,
          trail.lastIssueId,
        ),
    };
  }

  private async fileCall(transcript: TranscriptLine[], title: string, issueId: string | undefined): Promise<void> {
    if (!this.options.fileCalls) return;
    const { workspaceId, agentId } = this.options;
    const context = { workspaceId, agentId };
    const text = transcriptText(transcript);
    const [tool, args] = issueId
      ? ["add_comment", { issue_id: issueId, content: `${title}:\n\n${text}`.slice(0, MAX_TEXT_CHARS) }]
      : ["create_issue", { title, description: text.slice(0, MAX_TEXT_CHARS) }];
    const outcome = await this.options.tools.invoke(tool, JSON.stringify(args), context);
    if (!outcome.ok) throw new Error(`${tool} failed: ${outcome.error}`);
  }
}

/** Both sides of the call as Markdown, one paragraph per line spoken. */
function transcriptText(transcript: TranscriptLine[]): string {
  if (transcript.length === 0) return "_Nothing was said on this call._";
  return transcript
    .map((line) => `**${line.speaker === "caller" ? "Caller" : "Assistant"}:** ${line.text}`)
    .join("\n\n");
}

/** The issue the agent dealt with last during the call: one it created, or one it named by id. */
class IssueTrail {
  lastIssueId: string | undefined;

  watch(tool: Tool): Tool {
    return {
      ...tool,
      run: async (args, context) => {
        const value = await tool.run(args, context);
        const created = tool.name === "create_issue" ? idOf(value) : undefined;
        const named = typeof args.issue_id === "string" ? args.issue_id : undefined;
        this.lastIssueId = created ?? named ?? this.lastIssueId;
        return value;
      },
    };
  }
}

function idOf(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const id = (value as Record<string, unknown>).id;
  return typeof id === "string" ? id : undefined;
}
