// The shapes of runtimes over HTTP (spec runtimes.md §1-2): runner tokens, runners, runtimes and the runner API's
// bodies; validation, types and OpenAPI at once.
import { z } from "zod";
import { csvFilter, text, title } from "../api/fields.ts";
import { pageQuery } from "../api/pagination.ts";
import { RUNTIME_KINDS, runtimeTags } from "../platform/agents/schemas.ts";
import { commentSchema } from "../platform/comments/schemas.ts";
import { issueSchema } from "../platform/issues/schemas.ts";
import { taskSchema } from "../work/schemas.ts";

export { RUNTIME_KINDS };
export const RUNNER_STATUSES = ["online", "offline"] as const;
export type RuntimeKind = (typeof RUNTIME_KINDS)[number];
export type RunnerStatus = (typeof RUNNER_STATUSES)[number];

export const runnerTokenSchema = z
  .object({ id: z.string(), name: z.string(), created_at: z.string() })
  .meta({ id: "RunnerToken" });
export const createdRunnerTokenSchema = runnerTokenSchema
  .extend({ token: z.string().describe("The runner token (apr_…), shown only this once") })
  .meta({ id: "CreatedRunnerToken" });
export const createRunnerTokenBody = z.object({ name: title(200) });

export const runnerSchema = z
  .object({
    id: z.string(),
    workspace_id: z.string(),
    name: z.string(),
    host: z.string().nullable(),
    version: z.string(),
    status: z.enum(RUNNER_STATUSES),
    last_seen_at: z.string(),
    created_at: z.string(),
  })
  .meta({ id: "Runner" });

export const runtimeSchema = z
  .object({
    id: z.string(),
    workspace_id: z.string(),
    runner_id: z.string(),
    name: z.string(),
    kind: z.enum(RUNTIME_KINDS),
    version: z.string().nullable(),
    tags: z.array(z.string()),
    status: z.enum(RUNNER_STATUSES),
    max_concurrent_tasks: z.number().int(),
    running_tasks: z.number().int(),
    last_seen_at: z.string(),
    created_at: z.string(),
  })
  .meta({ id: "Runtime" });

export type RunnerToken = z.infer<typeof runnerTokenSchema>;
export type Runner = z.infer<typeof runnerSchema>;
export type Runtime = z.infer<typeof runtimeSchema>;

export const runnerListQuery = pageQuery.extend({
  status: csvFilter(z.enum(RUNNER_STATUSES)).describe("Comma-separated: online, offline"),
});
export const runtimeListQuery = runnerListQuery.extend({
  kind: csvFilter(z.enum(RUNTIME_KINDS)).describe(`Comma-separated, any of: ${RUNTIME_KINDS.join(", ")}`),
  tag: csvFilter(text(50)).describe("Comma-separated: runtimes having every one of these tags"),
});
export type RuntimeListQuery = z.infer<typeof runtimeListQuery>;

export const runnerTokenParams = z.object({ ws_id: z.string(), token_id: z.string() });
export const runnerParams = z.object({ ws_id: z.string(), runner_id: z.string() });

// --- The runner API (Authorization: Bearer apr_…) ---

/** The runner's own id for itself, chosen once and kept in its state folder. */
const runnerKey = text(100)
  .min(1)
  .regex(/^[A-Za-z0-9_.:-]+$/, { message: "runner_id is letters, digits and _ . : -" });

export const runnerCall = z.object({ runner_id: runnerKey });

export const registerBody = runnerCall.extend({
  name: title(200),
  host: text(255).nullable().optional(),
  version: text(100),
  runtimes: z
    .array(
      z.object({
        name: title(100),
        kind: z.enum(RUNTIME_KINDS),
        version: text(100).nullable().optional(),
        tags: runtimeTags.default([]),
        max_concurrent_tasks: z.number().int().min(1).max(100).default(1),
      }),
    )
    .max(50)
    .refine((runtimes) => new Set(runtimes.map((one) => one.name)).size === runtimes.length, {
      message: "Runtime names must not repeat",
    }),
});
export type RegisterInput = z.infer<typeof registerBody>;

export const claimBody = runnerCall.extend({
  runtime_ids: z.array(z.uuid()).max(50).optional(),
  max_tasks: z.number().int().min(1).max(20).default(1),
  wait_ms: z.number().int().min(0).max(30_000).default(0),
});
export type ClaimInput = z.infer<typeof claimBody>;

/** An AG-UI event as a runner numbers it; the run's own start and end are the server's to write. */
const runnerEvent = z.looseObject({
  seq: z.number().int().min(1).max(1_000_000_000),
  type: z
    .string()
    .regex(/^[A-Z][A-Z0-9_]{0,99}$/, { message: "An AG-UI event type (UPPER_SNAKE_CASE)" })
    .refine((type) => !["RUN_STARTED", "RUN_FINISHED", "RUN_ERROR"].includes(type), {
      message: "The server writes the run's start and end",
    }),
});
export const eventsBody = runnerCall.extend({ events: z.array(runnerEvent).max(1000) });
export type RunnerEventInput = z.infer<typeof runnerEvent>;

export const sessionBody = runnerCall.extend({ session_id: text(500).min(1), work_dir: text(4000).min(1) });
export type SessionInput = z.infer<typeof sessionBody>;

export const completeBody = runnerCall.extend({
  output: text(1_000_000),
  usage: z
    .object({
      input_tokens: z.number().int().min(0).default(0),
      output_tokens: z.number().int().min(0).default(0),
      cache_read_tokens: z.number().int().min(0).default(0),
      cache_write_tokens: z.number().int().min(0).default(0),
      cost_usd: z.number().min(0).optional(),
    })
    .optional(),
  session_id: text(500).min(1).optional(),
  branch: text(500).min(1).optional(),
  /**
   * The run's last events, not sent yet, stored with its end (as `events` would, idempotent by seq): one call instead
   * of two for a CLI that ends quickly. Runners send it to servers whose register answer says `complete_events`.
   */
  events: z.array(runnerEvent).max(1000).optional(),
});
export type CompleteInput = z.infer<typeof completeBody>;

export const failBody = runnerCall.extend({ error: text(100_000), retryable: z.boolean().default(true) });
export type FailInput = z.infer<typeof failBody>;

export const runnerTaskParams = z.object({ task_id: z.string() });

export const assignmentSchema = z
  .object({
    task: taskSchema.omit({ error: true, finished_at: true, waiting_for: true }),
    run_id: z.string(),
    runtime_id: z.string(),
    attempt: z.number().int(),
    agent: z.object({
      id: z.string(),
      name: z.string(),
      instructions: z.string().nullable(),
      model: z.string().nullable(),
      runtime_config: z.record(z.string(), z.unknown()).describe("Credentials of its MCP servers only by name"),
    }),
    issue: issueSchema,
    comments: z.array(commentSchema).describe("Oldest first"),
    prompt: z.string().describe("The brief as Markdown: the same frame an in-process run gets, and how to act"),
    token: z.string().describe("The task token (apt_…): acts as the agent on the API and /mcp while the task runs"),
    platform: z.object({ url: z.string(), mcp_url: z.string() }),
    resume: z
      .object({ session_id: z.string(), work_dir: z.string() })
      .nullable()
      .describe("The session of an earlier attempt, or of the agent's last task on the issue"),
    skills: z
      .array(
        z.object({
          name: z.string(),
          description: z.string(),
          files: z.array(z.object({ path: z.string(), size: z.number().int(), sha256: z.string(), url: z.string() })),
        }),
      )
      .describe("The agent's skills: the runner writes them where its CLI looks for skills (files by sha256)"),
  })
  .meta({ id: "Assignment" });
