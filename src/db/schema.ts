// Table types, one interface per table. Timestamps are stored as text in the API's own shape
// (UTC ISO 8601 without a zone, microseconds), which sorts correctly in both SQLite and PostgreSQL.
// JSON columns are stored as text and (de)serialised by the services.

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
  settings: string; // JSON object
  issue_prefix: string;
  /** Last issue number handed out in this workspace; bumped atomically on create. */
  issue_counter: number;
  /** Bumped by every change that can alter an issue list page; cached pages are keyed by it. */
  issue_list_version: number;
  created_at: string;
  updated_at: string;
  /** USD per calendar month (UTC); null: no limit. */
  monthly_budget_usd: number | null;
}

export interface MembersTable {
  id: string;
  workspace_id: string;
  user_id: string;
  role: "owner" | "admin" | "member";
  created_at: string;
}

export interface ProjectsTable {
  id: string;
  workspace_id: string;
  title: string;
  description: string | null;
  icon: string | null;
  status: string;
  lead_type: string | null;
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
  status: string;
  priority: string;
  assignee_type: string | null;
  assignee_id: string | null;
  creator_type: string;
  creator_id: string | null;
  number: number;
  parent_issue_id: string | null;
  acceptance_criteria: string | null; // JSON
  position: number;
  due_date: string | null;
  created_at: string;
  updated_at: string;
}

export interface CommentsTable {
  id: string;
  workspace_id: string;
  issue_id: string;
  parent_id: string | null;
  author_type: string;
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
  type: string;
  created_at: string;
}

export interface AgentsTable {
  id: string;
  workspace_id: string;
  name: string;
  description: string | null;
  instructions: string | null;
  model: string | null;
  tools: string; // JSON array of tool names
  status: string;
  runtime_mode: string;
  runtime_config: string; // JSON object
  max_concurrent_tasks: number;
  owner_type: string | null;
  owner_id: string | null;
  created_at: string;
  updated_at: string;
  /** The selectors of `runtime_config.runtime` as JSON: null while the agent runs in-process. */
  runtime_select: string | null;
  /** USD per calendar month (UTC); null: no limit. */
  monthly_budget_usd: number | null;
}

export interface ActivityTable {
  id: string;
  workspace_id: string;
  entity_type: string;
  entity_id: string | null;
  issue_id: string | null;
  actor_type: string;
  actor_id: string | null;
  action: string;
  details: string; // JSON object
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
  role: string;
  content: string | null;
  tool_calls: string | null; // JSON array
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
}

export interface CallTranscriptsTable {
  id: string;
  call_id: string;
  seq: number;
  speaker: "caller" | "assistant";
  text: string;
  created_at: string;
}

/** The last event seq handed out in a workspace. */
export interface EventCountersTable {
  workspace_id: string;
  last_seq: number;
}

/** The outbox: one row per change, numbered without gaps per workspace. */
export interface EventsTable {
  id: string;
  seq: number;
  workspace_id: string;
  type: string;
  entity_type: string;
  entity_id: string | null;
  issue_id: string | null;
  actor_type: string;
  actor_id: string | null;
  data: string; // JSON object
  created_at: string;
}

export interface WebhooksTable {
  id: string;
  workspace_id: string;
  url: string;
  types: string; // JSON array of event types; empty = all
  enabled: number; // 0 or 1
  /** `whsec_…`, needed in clear to sign; never returned after create or rotate. */
  secret: string;
  /** Outbox position up to which attempts have been queued for this hook. */
  last_seq: number;
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
  status: "pending" | "succeeded" | "failed";
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
  trigger: string;
  comment_id: string | null;
  status: string;
  attempt: number;
  /** Null until first claimed: the claiming process's TASK_MAX_ATTEMPTS. */
  max_attempts: number | null;
  error: string | null;
  /** The task's current (or last) run. */
  run_id: string | null;
  /** Bumped by every trigger folded into the open task, so a run about to finish notices new input. */
  input_version: number;
  /** 1 once every approval the run waits for is decided: the next claim resumes `run_id`. */
  resume: number;
  /** Not claimable before this time (retry backoff). */
  available_at: string;
  /** 1 while the issue's priority is `urgent`: claims take these first (then the oldest). */
  urgent: number;
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
  status: string;
  model: string;
  /** Uncached input only; cached input is `cache_read_tokens`. */
  input_tokens: number;
  output_tokens: number;
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

/** A run's AG-UI events in order; `data` is the event's JSON, `type` included. */
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

export interface RunEventsTable {
  run_id: string;
  seq: number;
  type: string;
  data: string;
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
  arguments: string; // JSON
  status: string;
  decided_by: string | null;
  comment: string | null;
  created_at: string;
  decided_at: string | null;
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
  status: string;
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
  tags: string; // JSON array of words
  status: string;
  /** 1 while the runner's last registration listed it. */
  offered: number;
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
  usage_daily: UsageDailyTable;
  budget_alerts: BudgetAlertsTable;
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
