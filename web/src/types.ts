// The API's shapes the dashboard reads (platform-api.md, agents-at-work.md).
export interface User {
  id: string;
  name: string;
  email: string;
}

export interface Session {
  token: string;
  user: User;
}

export interface Workspace {
  id: string;
  name: string;
  slug: string;
  description: string | null;
}

export const STATUSES = [
  ["backlog", "Backlog"],
  ["todo", "Todo"],
  ["in_progress", "In Progress"],
  ["in_review", "In Review"],
  ["done", "Done"],
  ["blocked", "Blocked"],
  ["cancelled", "Cancelled"],
] as const;
export type IssueStatus = (typeof STATUSES)[number][0];
export const PRIORITIES = ["urgent", "high", "medium", "low", "none"] as const;
export type Priority = (typeof PRIORITIES)[number];

export interface Issue {
  id: string;
  workspace_id: string;
  project_id: string | null;
  title: string;
  description: string | null;
  status: IssueStatus;
  priority: Priority;
  assignee_type: "member" | "agent" | null;
  assignee_id: string | null;
  creator_type: string;
  creator_id: string;
  number: number;
  identifier: string;
  parent_issue_id: string | null;
  position: number;
  created_at: string;
  updated_at: string;
}

export interface Member {
  id: string;
  user_id: string;
  role: "owner" | "admin" | "member";
  user: User;
}

export interface Agent {
  id: string;
  name: string;
  description: string | null;
  instructions: string | null;
  model: string | null;
  tools: string[];
  status: "idle" | "working" | "blocked" | "error" | "offline";
  runtime_config: { mcp_servers?: unknown[]; approval_required?: string[]; [key: string]: unknown };
  max_concurrent_tasks: number;
}

export interface Label {
  id: string;
  name: string;
  color: string;
}

export interface Project {
  id: string;
  title: string;
}

export interface Comment {
  id: string;
  issue_id: string;
  author_type: "member" | "agent";
  author_id: string;
  content: string;
  parent_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface Dependency {
  id: string;
  issue_id: string;
  depends_on_issue_id: string;
  type: "blocks" | "blocked_by" | "related";
}

export interface Activity {
  id: string;
  actor_type: string;
  actor_id: string | null;
  action: string;
  details: Record<string, unknown>;
  created_at: string;
}

export interface Task {
  id: string;
  agent_id: string;
  issue_id: string;
  trigger: string;
  status: "queued" | "running" | "waiting_approval" | "succeeded" | "failed" | "cancelled";
  error: string | null;
  run_id: string | null;
  created_at: string;
}

export interface Approval {
  id: string;
  task_id: string;
  run_id: string;
  agent_id: string;
  issue_id: string;
  tool_name: string;
  arguments: unknown;
  status: "pending" | "approved" | "denied";
  comment: string | null;
  created_at: string;
}

export interface PlatformEvent {
  id: string;
  seq: number;
  type: string;
  entity_type: string;
  entity_id: string | null;
  issue_id: string | null;
  data: Record<string, unknown>;
}

export interface ApiKey {
  id: string;
  name: string;
  prefix?: string;
  key?: string;
  created_at: string;
}

export interface Webhook {
  id: string;
  url: string;
  types: string[];
  enabled: boolean;
  secret?: string;
  disabled_reason: string | null;
}

export interface Delivery {
  id: string;
  event_type: string;
  event_seq: number;
  attempt: number;
  status: string;
  response_status: number | null;
  error: string | null;
  created_at: string;
}

export interface CallSummary {
  id: string;
  call_sid: string | null;
  started_at: string;
  ended_at: string | null;
  transcript_count: number;
}

export interface CallTranscriptLine {
  seq: number;
  speaker: "caller" | "assistant";
  text: string;
  created_at: string;
}

export interface Call extends CallSummary {
  transcript: CallTranscriptLine[];
}
