// The one registry of tools shared by the tool-protocol server, the agent runtime and the voice bridge.
// It knows no feature: platform/ and agents/ contribute their own sources, the tools file loader another.
import { Ajv, type ValidateFunction } from "ajv";

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
  /** Aborted when the caller goes away (client disconnect, call hung up). */
  signal?: AbortSignal;
}

export interface Tool {
  name: string;
  description: string;
  inputSchema: JsonSchemaObject;
  run(args: Record<string, unknown>, ctx: ToolContext): Promise<unknown>;
}

/** A set of tools; a scoped source returns nothing for a context without a workspace. */
export interface ToolSource {
  list(ctx: ToolContext): Tool[] | Promise<Tool[]>;
}

export type ToolOutcome = { ok: true; value: unknown } | { ok: false; error: string };

export class ToolRegistry {
  private readonly sources: ToolSource[] = [];
  private readonly ajv = new Ajv({ allErrors: false, strict: false });
  private readonly validators = new WeakMap<JsonSchemaObject, ValidateFunction>();

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
      const tool = (await source.list(ctx)).find((candidate) => candidate.name === name);
      if (tool) return tool;
    }
    return undefined;
  }

  /** Checks arguments against the tool's schema, then runs it; a throwing tool becomes `{ok:false}`, never a crash. */
  async call(tool: Tool, args: Record<string, unknown>, ctx: ToolContext = {}): Promise<ToolOutcome> {
    const problem = this.validate(tool, args);
    if (problem) return { ok: false, error: `Invalid arguments for ${tool.name}: ${problem}` };
    try {
      return { ok: true, value: await tool.run(args, ctx) };
    } catch (error) {
      return { ok: false, error: error instanceof Error ? error.message : String(error) };
    }
  }

  /** Undefined when the arguments fit the schema, else a one-line description of the first problem. */
  private validate(tool: Tool, args: unknown): string | undefined {
    let validator = this.validators.get(tool.inputSchema);
    if (!validator) {
      validator = this.ajv.compile(tool.inputSchema);
      this.validators.set(tool.inputSchema, validator);
    }
    if (validator(args)) return undefined;
    const first = validator.errors?.[0];
    if (!first) return "does not match the schema";
    const where = first.instancePath ? first.instancePath.slice(1).replaceAll("/", ".") : "arguments";
    return `${where} ${first.message ?? "is invalid"}`;
  }
}

/** A fixed list of tools, e.g. the custom tools of a tools file. */
export function staticSource(tools: Tool[]): ToolSource {
  return { list: () => tools };
}
