import { z } from "zod";
import { actorTypeSchema, text, title } from "../fields.ts";
import { pageQuery } from "../pagination.ts";

export const AGENT_STATUSES = ["idle", "working", "blocked", "error", "offline"] as const;
export const agentStatusSchema = z.enum(AGENT_STATUSES);
export type AgentStatus = z.infer<typeof agentStatusSchema>;

export const runtimeModeSchema = z.enum(["local", "cloud"]);

/** `<provider>/<model>`, e.g. `openai/gpt-4o-mini`; which providers run is the agent runtime's business. */
const model = text(200).regex(/^[a-z0-9][a-z0-9_-]*\/\S+$/i, {
  message: "Model must look like <provider>/<model>, e.g. openai/gpt-4o-mini",
});

/** Names of registered tools (as the tool protocol lists them). */
const tools = z
  .array(text(128).regex(/^[A-Za-z0-9_.:/-]+$/, { message: "Tool names are letters, digits and _ . : / -" }))
  .max(200)
  .refine((names) => new Set(names).size === names.length, { message: "Tool names must not repeat" });

const runtimeConfig = z.record(z.string(), z.unknown());
const maxConcurrentTasks = z.number().int().min(1).max(100);
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
    status: agentStatusSchema,
    runtime_mode: runtimeModeSchema,
    runtime_config: runtimeConfig,
    max_concurrent_tasks: z.number().int(),
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
    status: agentStatusSchema.default("offline"),
    runtime_mode: runtimeModeSchema.default("local"),
    runtime_config: runtimeConfig.nullable().default({}),
    max_concurrent_tasks: maxConcurrentTasks.default(1),
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
    status: agentStatusSchema.optional(),
    runtime_mode: runtimeModeSchema.optional(),
    runtime_config: runtimeConfig.optional(),
    max_concurrent_tasks: maxConcurrentTasks.optional(),
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
