// The one way a tool is called, whoever calls it (the tool protocol, the agent loop, the voice bridge): find it,
// read its JSON arguments, validate them, run it with a deadline and an abort signal, and report the outcome. Each
// caller only maps the outcome to its own wire format; a tool can never crash its caller.
import { Ajv, type ValidateFunction } from "ajv";
import { validationIssue } from "../http/errors.ts";
import type { JsonSchemaObject, Tool, ToolContext, ToolRegistry } from "./registry.ts";

type ToolOutcome = { ok: true; value: unknown } | { ok: false; error: string };

interface ToolInvokerOptions {
  /** A call still running after this long is aborted and fails; unset, calls may take as long as they need. */
  timeoutMs?: number;
}

type Args = Record<string, unknown>;

const isPlainObject = (value: unknown): value is Args =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export class ToolInvoker {
  private readonly ajv = new Ajv({ allErrors: false, strict: false });
  private readonly validators = new WeakMap<JsonSchemaObject, ValidateFunction>();

  constructor(
    readonly registry: ToolRegistry,
    private readonly options: ToolInvokerOptions = {},
  ) {}

  list(ctx: ToolContext = {}): Promise<Tool[]> {
    return this.registry.list(ctx);
  }

  find(name: string, ctx: ToolContext = {}): Promise<Tool | undefined> {
    return this.registry.find(name, ctx);
  }

  /** Finds the tool and reads its arguments from the JSON text a model produced (empty means none), then calls it. */
  async invoke(name: string, argumentsJson: string, ctx: ToolContext = {}, tool?: Tool): Promise<ToolOutcome> {
    const found = tool ?? (await this.find(name, ctx));
    if (!found) return { ok: false, error: `Unknown tool: ${name}` };
    let args: unknown;
    try {
      args = argumentsJson.trim() === "" ? {} : JSON.parse(argumentsJson);
    } catch {
      return { ok: false, error: `Arguments for ${name} are not valid JSON` };
    }
    if (!isPlainObject(args)) return { ok: false, error: `Arguments for ${name} must be a JSON object` };
    return this.call(found, args, ctx);
  }

  /** Validates the arguments against the tool's contract, then runs it; a throwing tool becomes `{ok:false}`. */
  async call(tool: Tool, args: Args, ctx: ToolContext = {}): Promise<ToolOutcome> {
    const checked = this.validate(tool, args);
    if (!checked.ok) return { ok: false, error: `Invalid arguments for ${tool.name}: ${checked.problem}` };
    const timeoutMs = this.options.timeoutMs;
    if (!timeoutMs) return run(tool, checked.args, ctx);
    const deadline = new DeadlineContext(ctx);
    // Whichever settles first, the call or its timer, answers; `run` never rejects.
    return new Promise<ToolOutcome>((resolve) => {
      const timer = setTimeout(() => {
        deadline.expire();
        resolve({ ok: false, error: `${tool.name} timed out after ${timeoutMs} ms` });
      }, timeoutMs);
      void run(tool, checked.args, deadline).then((outcome) => {
        clearTimeout(timer);
        resolve(outcome);
      });
    });
  }

  private validate(tool: Tool, args: Args): { ok: true; args: Args } | { ok: false; problem: string } {
    if (tool.input) {
      const parsed = tool.input.safeParse(args);
      if (parsed.success) return { ok: true, args: parsed.data };
      const first = parsed.error.issues[0];
      if (!first) return { ok: false, problem: "does not match the schema" };
      const issue = validationIssue(first.code, first.path.map(String), first.message);
      return { ok: false, problem: issue.loc.length ? `${issue.loc.join(".")}: ${issue.msg}` : issue.msg };
    }
    let validator = this.validators.get(tool.inputSchema);
    if (!validator) {
      validator = this.ajv.compile(tool.inputSchema);
      this.validators.set(tool.inputSchema, validator);
    }
    if (validator(args)) return { ok: true, args };
    const first = validator.errors?.[0];
    if (!first) return { ok: false, problem: "does not match the schema" };
    const where = first.instancePath ? first.instancePath.slice(1).replaceAll("/", ".") : "arguments";
    return { ok: false, problem: `${where} ${first.message ?? "is invalid"}` };
  }
}

async function run(tool: Tool, args: Args, ctx: ToolContext): Promise<ToolOutcome> {
  try {
    return { ok: true, value: await tool.run(args, ctx) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * The caller's context, whose signal also aborts when the call runs out of time. The signal is made only when the
 * tool reads it, so the many tools that never look at it cost no controller. Everything else the caller's context
 * holds (symbol-keyed properties of its own too) is carried over as is.
 */
class DeadlineContext implements ToolContext {
  readonly workspaceId?: string;
  readonly userId?: string;
  readonly agentId?: string;
  readonly taskId?: string;
  // ES private fields: never copied when a tool spreads its context into another one.
  readonly #caller: ToolContext;
  #controller?: AbortController;
  #combined?: AbortSignal;
  #expired = false;

  constructor(caller: ToolContext) {
    // A spread, not a destructuring of `signal`: reading a caller's lazy signal would make the controller it saves.
    const rest: ToolContext = { ...caller };
    delete rest.signal;
    Object.assign(this, rest);
    this.#caller = caller;
  }

  get signal(): AbortSignal {
    if (!this.#combined) {
      this.#controller = new AbortController();
      if (this.#expired) this.#controller.abort();
      const callerSignal = this.#caller.signal;
      this.#combined = callerSignal
        ? AbortSignal.any([callerSignal, this.#controller.signal])
        : this.#controller.signal;
    }
    return this.#combined;
  }

  expire(): void {
    this.#expired = true;
    this.#controller?.abort();
  }
}
