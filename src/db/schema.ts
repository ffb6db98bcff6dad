// Table types, one interface per table. Timestamps are stored as text in the API's own shape
// (UTC ISO 8601 without a zone, microseconds), which sorts correctly in both SQLite and PostgreSQL.
// Status and kind columns hold the literal unions of enums.ts; `Generated<>` marks a column with a database default
// (optional on insert); JSON columns are `JsonText<T>` (values.ts); flags are integers `0 | 1` (SQLite has no boolean).
// A row as read is `Selectable<XTable>`, a row to insert `Insertable<XTable>`.
import type { Generated } from "kysely";
import type {
  ActorType,
  AgentStatus,
  ApprovalStatus,
  CallDirection,
  CallSpeaker,
  CallStatus,
  DeliveryStatus,
  DependencyType,
  EventActorType,
  InboxKind,
  IssuePriority,
  IssueStatus,
  MemberRole,
  MessageRole,
  ProjectStatus,
  QuestionStatus,
  RunStatus,
  RuntimeMode,
  TaskStatus,
  TaskTrigger,
} from "./enums.ts";
import type { JsonText } from "./values.ts";

/** 1 or 0: an integer flag. */
export type Flag = 0 | 1;

export interface UsersTable {
  id: string;
  email: string;
  /** Lower-cased email: the unique, case-insensitive login key. */
  email_key: string;
  name: string;
  password_hash: string;
  avatar_url: string | null;
  created_at: string;
}

export interface WorkspacesTable {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  settings: Generated<JsonText<Record<string, unknown>>>;
  issue_prefix: Generated<string>;
  /** Last issue number handed out in this workspace; bumped atomically on create. */
  issue_counter: Generated<number>;
  /** Bumped by every change that can alter an issue list page; cached pages are keyed by it. */
  issue_list_version: Generated<number>;
  created_at: string;
  updated_at: string;
  /** USD per calendar month (UTC); null: no limit. */
  monthly_budget_usd: number | null;
}

export interface MembersTable {
  id: string;
  workspace_id: string;
  user_id: string;
  role: MemberRole;
  created_at: string;
}

export interface ProjectsTable {
  id: string;
  workspace_id: string;
  title: string;
  description: string | null;
  icon: string | null;
  status: ProjectStatus;
  lead_type: ActorType | null;
  lead_id: string | null;
  creator_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface IssuesTable {
  id: string;
  workspace_id: string;
  project_id: string | null;
  title: string;
  description: string | null;
  status: IssueStatus;
  priority: IssuePriority;
  assignee_type: ActorType | null;
  assignee_id: string | null;
  creator_type: ActorType;
  creator_id: string | null;
  number: number;
  parent_issue_id: string | null;
  acceptance_criteria: JsonText<string[]> | null;
  position: Generated<number>;
  due_date: string | null;
  created_at: string;
  updated_at: string;
}

export interface CommentsTable {
  id: string;
  workspace_id: string;
  issue_id: string;
  parent_id: string | null;
  author_type: ActorType;
  author_id: string | null;
  content: string;
  created_at: string;
  updated_at: string;
}

export interface LabelsTable {
  id: string;
  workspace_id: string;
  name: string;
  color: string;
  created_at: string;
}

export interface IssueLabelsTable {
  issue_id: string;
  label_id: string;
  created_at: string;
}

export interface IssueDependenciesTable {
  id: string;
  workspace_id: string;
  issue_id: string;
  depends_on_issue_id: string;
  type: DependencyType;
  created_at: string;
}

export interface AgentsTable {
  id: string;
  workspace_id: string;
  name: string;
  description: string | null;
  instructions: string | null;
  model: string | null;
  /** Tool names. */
  tools: Generated<JsonText<string[]>>;
  status: AgentStatus;
  runtime_mode: RuntimeMode;
  runtime_config: Generated<JsonText<Record<string, unknown>>>;
  max_concurrent_tasks: Generated<number>;
  owner_type: ActorType | null;
  owner_id: string | null;
  created_at: string;
  updated_at: string;
  /** The selectors of `runtime_config.runtime` as JSON: null while the agent runs in-process. */
  runtime_select: string | null;
  /** USD per calendar month (UTC); null: no limit. */
  monthly_budget_usd: number | null;
}

/** A change as the activity feed shows it; `action` is its event type (an open string, as in `events`). */
export interface ActivityTable {
  id: string;
  workspace_id: string;
  entity_type: string;
  entity_id: string | null;
  issue_id: string | null;
  actor_type: EventActorType;
  actor_id: string | null;
  action: string;
  details: Generated<JsonText<Record<string, unknown>>>;
  created_at: string;
}

export interface ApiKeysTable {
  id: string;
  workspace_id: string;
  name: string;
  /** First characters of the key, shown in lists so a user can tell keys apart. */
  prefix: string;
  /** SHA-256 of the whole key, hex. The key itself is never stored. */
  key_hash: string;
  created_by: string;
  created_at: string;
  last_used_at: string | null;
}

/** One conversation of the agent-UI endpoint; `scope` keeps threads of different callers apart. */
export interface AgentThreadsTable {
  id: string;
  scope: string;
  thread_id: string;
  agent_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface ThreadMessagesTable {
  id: string;
  thread_row_id: string;
  seq: number;
  message_id: string;
  role: MessageRole;
  content: string | null;
  /** The assistant's tool calls (agents/model.ts `ToolCallRecord[]`). */
  tool_calls: JsonText<unknown[]> | null;
  tool_call_id: string | null;
  created_at: string;
}

export interface CallsTable {
  id: string;
  /** Set when the call server runs with CALL_WORKSPACE_ID; null calls are deployment-level and shown nowhere. */
  workspace_id: string | null;
  call_sid: string | null;
  stream_sid: string | null;
  started_at: string;
  ended_at: string | null;
  direction: Generated<CallDirection>;
  /** Null on calls recorded before 0021. */
  status: CallStatus | null;
  /** The carrier's answering-machine verdict (outbound calls): human, machine_end_beep, … */
  answered_by: string | null;
  duration_s: number | null;
  to_number: string | null;
  from_number: string | null;
  /** What an outbound call was placed with (POST /calls on the call server). */
  instructions: string | null;
  greeting: string | null;
  voicemail_message: string | null;
}

export interface CallTranscriptsTable {
  id: string;
  call_id: string;
  seq: number;
  speaker: CallSpeaker;
  text: string;
  created_at: string;
}

/** The last event seq handed out in a workspace. */
export interface EventCountersTable {
  workspace_id: string;
  last_seq: number;
}

/**
 * The outbox: one row per change, numbered without gaps per workspace. `type` (and `entity_type`) stay open strings:
 * any `<entity>.<verb>` a feature writes is valid, and the known ones are listed above db/ (events/event-types.ts).
 */
export interface EventsTable {
  id: string;
  seq: number;
  workspace_id: string;
  type: string;
  entity_type: string;
  entity_id: string | null;
  issue_id: string | null;
  actor_type: EventActorType;
  actor_id: string | null;
  data: Generated<JsonText<Record<string, unknown>>>;
  created_at: string;
}

export interface WebhooksTable {
  id: string;
  workspace_id: string;
  url: string;
  /** Event types and `<entity>.*` patterns; empty = all. */
  types: Generated<JsonText<string[]>>;
  enabled: Generated<Flag>;
  /** `whsec_…`, needed in clear to sign; never returned after create or rotate. */
  secret: string;
  /** Outbox position up to which attempts have been queued for this hook. */
  last_seq: Generated<number>;
  /** Time of the first failed attempt since the last success; null while healthy. */
  failing_since: string | null;
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
}

/** One attempt to deliver one event to one hook; `pending` rows are the queue. */
export interface WebhookDeliveriesTable {
  id: string;
  webhook_id: string;
  workspace_id: string;
  event_id: string;
  attempt: number;
  status: DeliveryStatus;
  next_attempt_at: string;
  lease_token: string | null;
  lease_expires_at: string | null;
  response_status: number | null;
  error: string | null;
  duration_ms: number | null;
  created_at: string;
  finished_at: string | null;
}

/** One unit of work for one agent on one issue: the queue, claimed with a lease. */
export interface TasksTable {
  id: string;
  workspace_id: string;
  agent_id: string;
  issue_id: string;
  trigger: TaskTrigger;
  comment_id: string | null;
  status: TaskStatus;
  attempt: Generated<number>;
  /** Null until first claimed: the claiming process's TASK_MAX_ATTEMPTS. */
  max_attempts: number | null;
  error: string | null;
  /** The task's current (or last) run. */
  run_id: string | null;
  /** Bumped by every trigger folded into the open task, so a run about to finish notices new input. */
  input_version: Generated<number>;
  /** 1 once every approval the run waits for is decided and every question answered: a claim resumes `run_id`. */
  resume: Generated<Flag>;
  /** Not claimable before this time (retry backoff). */
  available_at: string;
  /** 1 while the issue's priority is `urgent`: claims take these first (then the oldest). */
  urgent: Generated<Flag>;
  /** How many agent-made triggers in a row led to this task (0: a person's change); see work/trigger-bounds.ts. */
  chain_depth: Generated<number>;
  lease_owner: string | null;
  lease_expires_at: string | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** The runtime of the runner that holds (or last held) it; null for in-process work. */
  runtime_id: string | null;
  /** SHA-256 of the task token handed to the runner with it; valid while the task runs. */
  token_hash: string | null;
  /** The agent CLI's resume pointer, as the runner reported it. */
  session_id: string | null;
  work_dir: string | null;
}

export interface RunsTable {
  id: string;
  workspace_id: string;
  task_id: string;
  agent_id: string;
  issue_id: string;
  status: RunStatus;
  model: string;
  /** Uncached input only; cached input is `cache_read_tokens`. */
  input_tokens: Generated<number>;
  output_tokens: Generated<number>;
  cache_read_tokens: number;
  cache_write_tokens: number;
  /** Null while no price is known for the run's model. */
  cost_usd: number | null;
  error: string | null;
  /** The newest comment of the issue the run has been shown. */
  comments_seen_until: string | null;
  started_at: string;
  finished_at: string | null;
}

/** The usage of the runs started on one UTC day (`YYYY-MM-DD`), per agent and model; written with each run's usage. */
export interface UsageDailyTable {
  workspace_id: string;
  day: string;
  agent_id: string;
  model: string;
  runs: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cost_usd: number;
}

/** A run's AG-UI events in order; `data` is the event's JSON, `type` included. */
export interface RunEventsTable {
  run_id: string;
  seq: number;
  type: string;
  data: JsonText<Record<string, unknown>>;
  created_at: string;
}

export interface ApprovalsTable {
  id: string;
  workspace_id: string;
  task_id: string;
  run_id: string;
  agent_id: string;
  issue_id: string;
  tool_call_id: string;
  tool_name: string;
  /** The tool call's arguments as the model sent them. */
  arguments: JsonText<unknown>;
  status: ApprovalStatus;
  decided_by: string | null;
  comment: string | null;
  created_at: string;
  decided_at: string | null;
}

/** A question an agent's run asked a person through ask_human (spec control.md §3). */
export interface QuestionsTable {
  id: string;
  workspace_id: string;
  task_id: string;
  run_id: string;
  agent_id: string;
  issue_id: string;
  /** The model's ask_human call in an in-process run; null when a runner's CLI asked through MCP. */
  tool_call_id: string | null;
  question: string;
  /** The choices offered, or null for a free-text answer. */
  options: JsonText<string[]> | null;
  multiple: Flag;
  status: QuestionStatus;
  /** The answer: one option or free text, or a list of options when `multiple`. */
  answer: JsonText<string | string[]> | null;
  answered_by: string | null;
  created_at: string;
  answered_at: string | null;
}

/** One fixed window of one rate-limit bucket (e.g. login failures of an email from an address). */
export interface RateLimitsTable {
  key: string;
  window_start: string;
  count: number;
  expires_at: string;
}

/** A media-stream token that has been used (voice): each works once, until it expires. */
export interface UsedStreamTokensTable {
  token_id: string;
  expires_at: string;
}

/** A legacy SSE session of the tool protocol: who opened it, and which process holds its stream until when. */
export interface McpSessionsTable {
  id: string;
  /** The principal that opened it (caller.ts), which every post must match. */
  owner: string;
  /** SHA-256 of the opening credential (hex), to tell a post that carries that very credential. */
  credential_hash: string | null;
  user_id: string | null;
  workspace_id: string | null;
  /** The process holding the stream; messages posted elsewhere reach it on its own NOTIFY channel. */
  holder: string;
  /** Renewed while the stream lives; past it the session is gone (its process died). */
  expires_at: string;
}

/** A message posted to a session held by another process, too large for a NOTIFY payload. */
export interface McpSessionMessagesTable {
  id: string;
  session_id: string;
  body: string;
  created_at: string;
}

/** A run of an agent outside the task queue (agent UI, ask_<agent>) in progress on one process. */
/** A long-lived stream open to a user (the cap on open streams per user), held by the process serving it. */
export interface OpenStreamsTable {
  id: string;
  user_id: string;
  kind: "events" | "run" | "agui" | "inbox";
  holder: string;
  /** Renewed while the stream lives; past it the stream no longer counts (its process died). */
  expires_at: string;
}

export interface AgentLiveRunsTable {
  id: string;
  agent_id: string;
  workspace_id: string;
  holder: string;
  /** Renewed while the run lasts; past it the run no longer counts (its process died). */
  expires_at: string;
}

export interface RunnerTokensTable {
  id: string;
  workspace_id: string;
  name: string;
  token_hash: string;
  created_by: string | null;
  created_at: string;
}

export interface RunnersTable {
  id: string;
  workspace_id: string;
  /** The `runner_id` the runner chose and sends on every call. */
  runner_key: string;
  name: string;
  host: string | null;
  version: string;
  status: "online" | "offline";
  last_seen_at: string;
  created_at: string;
}

export interface RuntimesTable {
  id: string;
  workspace_id: string;
  runner_id: string;
  name: string;
  kind: string;
  version: string | null;
  /** Free words: gpu, linux, repo-access… */
  tags: JsonText<string[]>;
  status: "online" | "offline";
  /** 1 while the runner's last registration listed it. */
  offered: 0 | 1;
  max_concurrent_tasks: number;
  created_at: string;
}

/** A task handed to a runner, kept after the task ends or goes away. */
export interface RunnerClaimsTable {
  task_id: string;
  runner_id: string;
  run_id: string;
  /** The task's input_version when claimed: a trigger folded in later asks for another run. */
  input_version: number;
  /** How the runner's part ended: succeeded, failed, or dropped (told to stop); null while it works. */
  ended: string | null;
  claimed_at: string;
}

/** An issue template handed to an agent when one of its triggers fires. */
export interface AutopilotsTable {
  id: string;
  workspace_id: string;
  name: string;
  description: string | null;
  enabled: Flag;
  agent_id: string;
  project_id: string | null;
  /** {title, description, priority, labels}: its type is autopilots/'s (rows.ts reads and writes it). */
  issue: JsonText<unknown>;
  /** The stored triggers (webhook tokens only as hashes, in autopilot_hook_tokens). */
  triggers: JsonText<unknown[]>;
  overlap: "skip" | "allow";
  paused_reason: string | null;
  created_by: string;
  created_at: string;
  updated_at: string;
  last_fired_at: string | null;
  next_fire_at: string | null;
  /** Every schedule fire time up to this one has been handled. */
  scheduled_until: string;
  /** Outbox position up to which its event triggers have been looked at. */
  last_seq: number;
}

export interface AutopilotRunsTable {
  id: string;
  autopilot_id: string;
  workspace_id: string;
  trigger_kind: "schedule" | "webhook" | "event" | "manual";
  trigger_index: number | null;
  /** What fired it, unique per autopilot: `schedule:<n>:<time>`, `webhook:<n>:<key>`, `event:<id>`; null = manual. */
  claim_key: string | null;
  status: "issue_created" | "skipped" | "failed";
  reason: string | null;
  issue_id: string | null;
  created_at: string;
}

export interface AutopilotHookTokensTable {
  /** sha256 (hex) of the token in the webhook trigger's URL. */
  token_hash: string;
  autopilot_id: string;
  trigger_index: number;
}

export interface SkillsTable {
  id: string;
  workspace_id: string;
  /** From SKILL.md's front matter; unique in a workspace. */
  name: string;
  description: string;
  created_by: string;
  created_at: string;
  updated_at: string;
}

export interface SkillFilesTable {
  skill_id: string;
  /** Relative to the skill's folder, `/`-separated, e.g. `SKILL.md` or `scripts/run.py`. */
  path: string;
  size: number;
  /** Hex SHA-256 of the content: runners cache files by it. */
  sha256: string;
  content: Buffer;
}

export interface AgentSkillsTable {
  agent_id: string;
  skill_id: string;
  /** The order the agent's `skills` list gave. */
  position: number;
}

export interface Database {
  users: UsersTable;
  workspaces: WorkspacesTable;
  members: MembersTable;
  projects: ProjectsTable;
  issues: IssuesTable;
  comments: CommentsTable;
  labels: LabelsTable;
  issue_labels: IssueLabelsTable;
  issue_dependencies: IssueDependenciesTable;
  agents: AgentsTable;
  activity: ActivityTable;
  api_keys: ApiKeysTable;
  agent_threads: AgentThreadsTable;
  thread_messages: ThreadMessagesTable;
  calls: CallsTable;
  call_transcripts: CallTranscriptsTable;
  event_counters: EventCountersTable;
  events: EventsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  tasks: TasksTable;
  runs: RunsTable;
  run_events: RunEventsTable;
  approvals: ApprovalsTable;
  rate_limits: RateLimitsTable;
  used_stream_tokens: UsedStreamTokensTable;
  mcp_sessions: McpSessionsTable;
  mcp_session_messages: McpSessionMessagesTable;
  agent_live_runs: AgentLiveRunsTable;
  runner_tokens: RunnerTokensTable;
  runners: RunnersTable;
  runtimes: RuntimesTable;
  runner_claims: RunnerClaimsTable;
  open_streams: OpenStreamsTable;
  autopilots: AutopilotsTable;
  autopilot_runs: AutopilotRunsTable;
  autopilot_hook_tokens: AutopilotHookTokensTable;
  skills: SkillsTable;
  skill_files: SkillFilesTable;
  agent_skills: AgentSkillsTable;
  usage_daily: UsageDailyTable;
  budget_alerts: BudgetAlertsTable;
  inbox_items: InboxItemsTable;
  inbox_unread: InboxUnreadTable;
  questions: QuestionsTable;
}

export interface BudgetAlertsTable {
  workspace_id: string;
  /** `workspace`, or the agent's id. */
  scope: string;
  /** `YYYY-MM`. */
  month: string;
  level: string;
  created_at: string;
}

export interface InboxItemsTable {
  id: string;
  /** The person it is for. */
  user_id: string;
  workspace_id: string;
  kind: InboxKind;
  issue_id: string | null;
  task_id: string | null;
  /** The approval or question it asks about: deciding that reads the item for everyone. */
  source_id: string | null;
  title: string;
  body: string | null;
  created_at: string;
  read_at: string | null;
}

/** How many of a person's items of a workspace are unread, kept with every change to them. */
export interface InboxUnreadTable {
  user_id: string;
  workspace_id: string;
  unread: number;
}
