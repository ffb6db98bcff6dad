import { z } from "zod";
import { actorTypeSchema, idField, text, title } from "../../api/fields.ts";
import { pageQuery } from "../../api/pagination.ts";
import { AGENT_STATUSES, RUNTIME_MODES } from "../../db/enums.ts";

const agentStatusSchema = z.enum(AGENT_STATUSES);
const runtimeModeSchema = z.enum(RUNTIME_MODES);

/** `<provider>/<model>`, e.g. `openai/gpt-4o-mini`; which providers run is the agent runtime's business. */
const model = text(200).regex(/^[a-z0-9][a-z0-9_-]*\/\S+$/i, {
  message: "Model must look like <provider>/<model>, e.g. openai/gpt-4o-mini",
});

/** Names of registered tools (as the tool protocol lists them). */
const tools = z
  .array(text(128).regex(/^[A-Za-z0-9_.:/-]+$/, { message: "Tool names are letters, digits and _ . : / -" }))
  .max(200)
  .refine((names) => new Set(names).size === names.length, { message: "Tool names must not repeat" });

const mcpServerName = text(32)
  .min(1)
  .regex(/^[A-Za-z0-9_-]+$/, { message: "MCP server names are letters, digits, _ and -" });

const mcpServerFields = {
  name: mcpServerName,
  url: z.url({ protocol: /^https?$/, message: "Must be an http(s) URL" }).optional(),
  headers: z.record(text(200), text(8000)).optional(),
  command: text(1000).min(1).optional(),
  args: z.array(text(10_000)).max(100).optional(),
  env: z.record(text(200), text(10_000)).optional(),
};
const hasUrlOrCommand = (server: { url?: unknown; command?: unknown }) =>
  (server.url === undefined) !== (server.command === undefined);
const URL_OR_COMMAND = {
  message: "Give url (Streamable HTTP or SSE) or command (stdio): one of the two",
  path: ["url"],
};

/**
 * An MCP server whose tools the agent's task runs get, as stored and as the runtime reads it: Streamable HTTP (or
 * legacy SSE) at `url`, or stdio `command`.
 */
const mcpServerSchema = z.object(mcpServerFields).refine(hasUrlOrCommand, URL_OR_COMMAND);
export type McpServerConfig = z.infer<typeof mcpServerSchema>;

const mcpServerList = <S extends z.ZodType<{ name: string }>>(server: S) =>
  z
    .array(server)
    .max(20)
    .refine((servers) => new Set(servers.map((one) => one.name)).size === servers.length, {
      message: "MCP server names must not repeat",
    })
    .optional();
const approvalRequired = z.array(text(200).min(1)).max(200).optional();

export const RUNTIME_KINDS = ["claude", "codex", "opencode", "gemini", "command"] as const;
const runtimeTag = text(50).regex(/^[A-Za-z0-9_.:-]+$/, { message: "Tags are words: letters, digits and _ . : -" });
export const runtimeTags = z.array(runtimeTag).max(50);

/** One pool of runtimes: those that satisfy every field given. */
export const runtimeSelectorSchema = z
  .object({
    kind: z.enum(RUNTIME_KINDS).optional(),
    tags: runtimeTags.optional(),
    runtime_id: z.uuid({ message: "Must be a runtime id" }).optional(),
  })
  .strict();
export type RuntimeSelector = z.infer<typeof runtimeSelectorSchema>;

/**
 * Where the agent runs: on runners' runtimes matching these selectors, in order of preference (runtimes.md §3).
 * Without it the agent runs in-process.
 */
const runtimeBinding = z
  .object({
    select: z
      .array(runtimeSelectorSchema)
      .min(1, { message: "Give at least one selector ({kind?, tags?, runtime_id?})" })
      .max(20),
  })
  .optional();

/**
 * Free-form settings, of which the agent runtime reads `mcp_servers` and `approval_required` (tool names, or "*"
 * for every tool) and runners read `runtime` (where it runs): those are checked, anything else is kept as it is. This is the stored shape, which runs parse.
 */
/** The agent's own model price, USD per million tokens (over the price table's). */
const perMillion = z.number().min(0).max(1_000_000);
const modelPrice = z
  .object({
    input: perMillion,
    output: perMillion,
    cached_input: perMillion.optional(),
    cache_write: perMillion.optional(),
  })
  .optional();

export const runtimeConfigSchema = z
  .object({
    mcp_servers: mcpServerList(mcpServerSchema),
    approval_required: approvalRequired,
    runtime: runtimeBinding,
    price: modelPrice,
  })
  .catchall(z.unknown());

/** An MCP server as a client sends it: `headers` and `env` are write-only (see secrets.ts). */
const mcpServerInput = z
  .object({
    ...mcpServerFields,
    headers: mcpServerFields.headers
      .unwrap()
      .nullable()
      .optional()
      .meta({
        description:
          "Sent with every request to the server. Write-only: never returned (the server shows `headers_set`, their " +
          "names). Left out on update, the stored headers are kept while the URL's origin stays; null removes them.",
      }),
    env: mcpServerFields.env
      .unwrap()
      .nullable()
      .optional()
      .meta({
        description:
          "Environment of the stdio command. Write-only: never returned (the server shows `env_set`, the names). " +
          "Left out on update, the stored values are kept while command and args stay; null removes them.",
      }),
  })
  .refine(hasUrlOrCommand, URL_OR_COMMAND);
export type McpServerInput = z.infer<typeof mcpServerInput>;

export const runtimeConfigInput = z
  .object({
    mcp_servers: mcpServerList(mcpServerInput),
    approval_required: approvalRequired,
    runtime: runtimeBinding,
    price: modelPrice,
  })
  .catchall(z.unknown());
export type RuntimeConfigInput = z.infer<typeof runtimeConfigInput>;

/** An MCP server as the API shows it: its credentials only by name. */
const mcpServerView = z
  .object({
    name: z.string(),
    url: z.string().optional(),
    command: z.string().optional(),
    args: z.array(z.string()).optional(),
    headers_set: z
      .array(z.string())
      .optional()
      .meta({ description: "Names of the headers stored for this server; their values are never returned" }),
    env_set: z
      .array(z.string())
      .optional()
      .meta({ description: "Names of the environment variables stored for this server; values are never returned" }),
  })
  .meta({ id: "McpServer" });
export type McpServerView = z.infer<typeof mcpServerView>;

const runtimeConfigView = z.object({ mcp_servers: z.array(mcpServerView).optional() }).catchall(z.unknown());

/** Ids of skills of the agent's workspace, in the order its runs list them. */
const skills = z
  .array(idField)
  .max(100)
  .refine((ids) => new Set(ids).size === ids.length, { message: "Skill ids must not repeat" });

const maxConcurrentTasks = z.number().int().min(1).max(100);
export const monthlyBudget = z.number().min(0).max(1_000_000_000);
const ownerId = text(100).min(1);

export const agentSchema = z
  .object({
    id: z.string(),
    workspace_id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    instructions: z.string().nullable(),
    model: z.string().nullable(),
    tools: z.array(z.string()),
    skills: z.array(z.string()).meta({ description: "Ids of the skills the agent carries" }),
    status: agentStatusSchema,
    runtime_mode: runtimeModeSchema,
    runtime_config: runtimeConfigView,
    max_concurrent_tasks: z.number().int(),
    monthly_budget_usd: z.number().nullable().describe("USD per calendar month (UTC); null: no limit"),
    owner_type: actorTypeSchema.nullable(),
    owner_id: z.string().nullable(),
    /** Always null: PraisonAI's clients read it. */
    avatar_url: z.null(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Agent" });

const bothOrNeither = (body: { owner_type?: unknown; owner_id?: unknown }) =>
  (body.owner_type === undefined) === (body.owner_id === undefined) &&
  (body.owner_type === null) === (body.owner_id === null);
const OWNER_PAIR = { message: "Give owner_type and owner_id together", path: ["owner_id"] };

export const createAgentBody = z
  .object({
    name: title(200),
    description: text(10_000).nullable().optional(),
    instructions: text(100_000).nullable().optional(),
    model: model.nullable().optional(),
    tools: tools.default([]),
    skills: skills.default([]),
    status: agentStatusSchema.default("offline"),
    runtime_mode: runtimeModeSchema.default("local"),
    runtime_config: runtimeConfigInput.nullable().default({}),
    max_concurrent_tasks: maxConcurrentTasks.default(1),
    monthly_budget_usd: monthlyBudget.nullable().optional(),
    owner_type: actorTypeSchema.optional(),
    owner_id: ownerId.optional(),
  })
  .refine(bothOrNeither, OWNER_PAIR);

/** JSON merge patch: absent = unchanged, null clears a nullable field, null on a required one is a 422. */
export const updateAgentBody = z
  .object({
    name: title(200).optional(),
    description: text(10_000).nullable().optional(),
    instructions: text(100_000).nullable().optional(),
    model: model.nullable().optional(),
    tools: tools.optional(),
    skills: skills.optional(),
    status: agentStatusSchema.optional(),
    runtime_mode: runtimeModeSchema.optional(),
    runtime_config: runtimeConfigInput.optional(),
    max_concurrent_tasks: maxConcurrentTasks.optional(),
    monthly_budget_usd: monthlyBudget.nullable().optional(),
    owner_type: actorTypeSchema.nullable().optional(),
    owner_id: ownerId.nullable().optional(),
  })
  .refine(bothOrNeither, OWNER_PAIR);

export type CreateAgentInput = z.infer<typeof createAgentBody>;
export type UpdateAgentPatch = z.infer<typeof updateAgentBody>;

export const agentListQuery = pageQuery.extend({
  /** Only agents in these states: one value, or several comma-separated (`status=idle,working`). */
  status: text(200)
    .transform((value) =>
      value
        .split(",")
        .map((part) => part.trim())
        .filter(Boolean),
    )
    .pipe(z.array(agentStatusSchema))
    .optional(),
});

export const agentParams = z.object({ ws_id: z.string(), agent_id: z.string() });
