// The API's shapes, taken from the server's own zod schemas (the single source of validation and OpenAPI): a field
// renamed on the server fails `npm run typecheck` here. Type-only imports, but for enums.ts (no imports of its own):
// nothing else of the server (nor zod) is bundled.
// Beside them, the words the dashboard shows for the API's enum values, checked to cover every value.
import type { z } from "zod";
import type { runSchema as autopilotRunSchema, autopilotSchema } from "../../src/autopilots/schemas.ts";
import { OPEN_TASK_STATUSES as OPEN_TASKS } from "../../src/db/enums.ts";
import type { eventSchema } from "../../src/events/schemas.ts";
import type { deliverySchema, webhookSchema, webhookWithSecretSchema } from "../../src/events/webhooks/schemas.ts";
import type { inboxItemSchema } from "../../src/inbox/schemas.ts";
import type { activitySchema } from "../../src/platform/activity/schemas.ts";
import type { agentSchema, runtimeConfigSchema } from "../../src/platform/agents/schemas.ts";
import type { apiKeySchema, createdApiKeySchema } from "../../src/platform/api-keys/schemas.ts";
import type { callSchema, callSummarySchema } from "../../src/platform/calls/schemas.ts";
import type { commentSchema } from "../../src/platform/comments/schemas.ts";
import type { dependencySchema } from "../../src/platform/dependencies/schemas.ts";
import type { issuePrioritySchema, issueSchema, issueStatusSchema } from "../../src/platform/issues/schemas.ts";
import type { labelSchema } from "../../src/platform/labels/schemas.ts";
import type { memberSchema } from "../../src/platform/members/schemas.ts";
import type { projectSchema, projectStatusSchema } from "../../src/platform/projects/schemas.ts";
import type { workspaceSchema } from "../../src/platform/workspaces/schemas.ts";
import type {
  createdRunnerTokenSchema,
  RuntimeKind,
  runnerSchema,
  runnerTokenSchema,
  runtimeSchema,
} from "../../src/runtimes/schemas.ts";
import type { skillSchema } from "../../src/skills/schemas.ts";
import type { usageRowSchema } from "../../src/usage/routes.ts";
import type { approvalSchema, questionSchema, runSchema, TaskStatus, taskSchema } from "../../src/work/schemas.ts";

export type Issue = z.output<typeof issueSchema>;
export type Autopilot = z.output<typeof autopilotSchema>;
export type AutopilotRun = z.output<typeof autopilotRunSchema>;
export type IssueStatus = z.output<typeof issueStatusSchema>;
type Priority = z.output<typeof issuePrioritySchema>;
export type Member = z.output<typeof memberSchema>;
/** Who is signed in: what `auth/login` answers, kept as the member lists show a user. */
type User = Member["user"];
export interface Session {
  token: string;
  user: User;
}
export type Workspace = z.output<typeof workspaceSchema>;
export type Agent = z.output<typeof agentSchema>;
export type AgentStatus = Agent["status"];
export type RuntimeConfig = z.output<typeof runtimeConfigSchema>;
export type Label = z.output<typeof labelSchema>;
export type Skill = z.output<typeof skillSchema>;
export type Project = z.output<typeof projectSchema>;
type ProjectStatus = z.output<typeof projectStatusSchema>;
export type Comment = z.output<typeof commentSchema>;
export type Dependency = z.output<typeof dependencySchema>;
export type Activity = z.output<typeof activitySchema>;
export type Task = z.output<typeof taskSchema>;
export type { TaskStatus };
export type Approval = z.output<typeof approvalSchema>;
export type Question = z.output<typeof questionSchema>;
export type Run = z.output<typeof runSchema>;
export type UsageRow = z.output<typeof usageRowSchema>;
export type PlatformEvent = z.output<typeof eventSchema>;
export type InboxItem = z.output<typeof inboxItemSchema>;
export type ApiKey = z.output<typeof apiKeySchema>;
export type CreatedApiKey = z.output<typeof createdApiKeySchema>;
export type Webhook = z.output<typeof webhookSchema>;
export type WebhookWithSecret = z.output<typeof webhookWithSecretSchema>;
export type Delivery = z.output<typeof deliverySchema>;
export type CallSummary = z.output<typeof callSummarySchema>;
export type Call = z.output<typeof callSchema>;
export type Runner = z.output<typeof runnerSchema>;
export type Runtime = z.output<typeof runtimeSchema>;
export type RunnerToken = z.output<typeof runnerTokenSchema>;
export type CreatedRunnerToken = z.output<typeof createdRunnerTokenSchema>;
/** One choice of "Runs on": runtimes matching every field given (runtime_config.runtime.select). */
export type RuntimeSelector = NonNullable<RuntimeConfig["runtime"]>["select"][number];

/** An enum's words: every value in order with its title (for pickers), and the title of one value. */
function titled<Value extends string>(titles: Record<Value, string>) {
  return { all: Object.entries(titles) as [Value, string][], of: (value: Value): string => titles[value] };
}

/** The board's columns, in order, named as the spec names them. */
const status = titled<IssueStatus>({
  backlog: "Backlog",
  todo: "Todo",
  in_progress: "In Progress",
  in_review: "In Review",
  done: "Done",
  blocked: "Blocked",
  cancelled: "Cancelled",
});
export const STATUSES = status.all;
export const statusTitle = status.of;

const priority = titled<Priority>({
  urgent: "Urgent",
  high: "High",
  medium: "Medium",
  low: "Low",
  none: "No priority",
});
export const PRIORITIES = priority.all;
export const priorityTitle = priority.of;

export const PROJECT_STATUSES = titled<ProjectStatus>({
  planned: "Planned",
  in_progress: "In progress",
  paused: "Paused",
  completed: "Completed",
  cancelled: "Cancelled",
}).all;
/** An archived project is one that is over: kept for its issues, out of the pickers. */
export const isArchived = (project: Project): boolean =>
  project.status === "completed" || project.status === "cancelled";

/** What a card says about its issue's open (or last, failed) task. */
const TASK_STATES: Record<TaskStatus, string | null> = {
  queued: "Working",
  running: "Working",
  waiting_approval: "Waiting for approval",
  waiting_input: "Waiting for input",
  failed: "Failed",
  succeeded: null,
  cancelled: null,
};
export const taskState = (status: TaskStatus): string | null => TASK_STATES[status];

export const taskStatusTitle = titled<TaskStatus>({
  queued: "Queued",
  running: "Running",
  waiting_approval: "Waiting for approval",
  waiting_input: "Waiting for input",
  succeeded: "Succeeded",
  failed: "Failed",
  cancelled: "Cancelled",
}).of;
export const OPEN_TASK_STATUSES: readonly TaskStatus[] = OPEN_TASKS;

/**
 * An agent's badge. Every agent works its tasks whatever its stored status (agents-at-work.md): a new agent is stored
 * `offline` yet takes work at once, so the badge says it is idle.
 */
export const agentStatusTitle = titled<AgentStatus>({
  idle: "Idle",
  offline: "Idle",
  working: "Working",
  blocked: "Blocked",
  error: "Last task failed",
}).of;

/** The agent CLIs a runtime runs, as people call them. */
const runtimeKind = titled<RuntimeKind>({
  claude: "Claude Code",
  codex: "Codex",
  opencode: "OpenCode",
  gemini: "Gemini CLI",
  command: "Command",
});
export const RUNTIME_KINDS = runtimeKind.all;
export const runtimeKindTitle = runtimeKind.of;
