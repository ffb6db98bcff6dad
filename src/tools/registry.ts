// The one registry of tools shared by the tool-protocol server, the agent runtime and the voice bridge.
// It knows no feature: platform/ and agents/ contribute their own sources, the tools file loader another.
// Tools are called through the ToolInvoker (invoker.ts), never directly.
import type { z } from "zod";

export interface JsonSchemaObject {
  type: "object";
  properties?: Record<string, unknown>;
  required?: string[];
  [keyword: string]: unknown;
}

/** Who is calling, so a scoped source can show and run only what belongs to the caller's workspace. */
export interface ToolContext {
  /** The caller's workspace (from an API key or a chosen workspace); unset for anonymous callers. */
  workspaceId?: string;
  /** The user the call acts as (the key's creator or the token's user); used as the actor in activity. */
  userId?: string;
  /** Set when an agent is the caller: what its tools do is recorded as done by this agent. */
  agentId?: string;
  /** Set when the caller is a runner's agent CLI with a task token: the task it works on. */
  taskId?: string;
  /** Aborted when the caller goes away (client disconnect, call hung up) or the call times out. */
  signal?: AbortSignal;
}

export interface Tool {
  name: string;
  description: string;
  /** What callers are shown; generated from `input` when the tool has one. */
  inputSchema: JsonSchemaObject;
  /**
   * The tool's input contract as a zod schema, when it is written as one (the platform tools): arguments are
   * validated and transformed by it, exactly as the same fields are over HTTP. Without it, `inputSchema` is checked.
   */
  input?: z.ZodType<Record<string, unknown>>;
  run(args: Record<string, unknown>, ctx: ToolContext): Promise<unknown>;
}

/** A set of tools; a scoped source returns nothing for a context without a workspace. */
export interface ToolSource {
  list(ctx: ToolContext): Tool[] | Promise<Tool[]>;
  /** The tool of this name, when the source can find one without listing everything. */
  find?(name: string, ctx: ToolContext): Tool | undefined | Promise<Tool | undefined>;
}

export class ToolRegistry {
  private readonly sources: ToolSource[] = [];

  addSource(source: ToolSource): this {
    this.sources.push(source);
    return this;
  }

  /** Every tool the caller may see; on a name clash the source added first wins. */
  async list(ctx: ToolContext = {}): Promise<Tool[]> {
    const seen = new Map<string, Tool>();
    for (const source of this.sources) {
      for (const tool of await source.list(ctx)) if (!seen.has(tool.name)) seen.set(tool.name, tool);
    }
    return [...seen.values()];
  }

  async find(name: string, ctx: ToolContext = {}): Promise<Tool | undefined> {
    for (const source of this.sources) {
      const tool = source.find
        ? await source.find(name, ctx)
        : (await source.list(ctx)).find((candidate) => candidate.name === name);
      if (tool) return tool;
    }
    return undefined;
  }
}

/** A fixed list of tools (e.g. the custom tools of a tools file), found by name without a scan. */
export function staticSource(tools: Tool[]): ToolSource {
  const byName = new Map<string, Tool>();
  for (const tool of tools) if (!byName.has(tool.name)) byName.set(tool.name, tool);
  return { list: () => tools, find: (name) => byName.get(name) };
}
