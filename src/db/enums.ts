// The closed value sets of text columns, defined once: the table types (schema.ts) and the API's zod schemas both
// take them from here, so a status the API accepts is a status the compiler lets a query write, and nothing else.
// No imports: the dashboard may import it as well.

export const MEMBER_ROLES = ["owner", "admin", "member"] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

/** Who did or owns something: a member (a user of the workspace) or an agent of the workspace. */
export const ACTOR_TYPES = ["member", "agent"] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];
/** An event's or activity entry's author: an actor, or `system` for the platform's own changes. */
export type EventActorType = ActorType | "system" | "autopilot";

export const PROJECT_STATUSES = ["planned", "in_progress", "paused", "completed", "cancelled"] as const;
export type ProjectStatus = (typeof PROJECT_STATUSES)[number];

export const ISSUE_STATUSES = ["backlog", "todo", "in_progress", "in_review", "done", "blocked", "cancelled"] as const;
export type IssueStatus = (typeof ISSUE_STATUSES)[number];
export const ISSUE_PRIORITIES = ["urgent", "high", "medium", "low", "none"] as const;
export type IssuePriority = (typeof ISSUE_PRIORITIES)[number];

export const DEPENDENCY_TYPES = ["blocks", "blocked_by", "related"] as const;
export type DependencyType = (typeof DEPENDENCY_TYPES)[number];

export const AGENT_STATUSES = ["idle", "working", "blocked", "error", "offline"] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];
export const RUNTIME_MODES = ["local", "cloud"] as const;
export type RuntimeMode = (typeof RUNTIME_MODES)[number];

export const OPEN_TASK_STATUSES = ["queued", "running", "waiting_approval", "waiting_input"] as const;
export const TASK_STATUSES = [...OPEN_TASK_STATUSES, "succeeded", "failed", "cancelled"] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
export const TASK_TRIGGERS = ["assigned", "comment", "mention", "manual"] as const;
export type TaskTrigger = (typeof TASK_TRIGGERS)[number];
export const RUN_STATUSES = [
  "running",
  "waiting_approval",
  "waiting_input",
  "succeeded",
  "failed",
  "cancelled",
] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const APPROVAL_STATUSES = ["pending", "approved", "denied"] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];
export const QUESTION_STATUSES = ["open", "answered", "cancelled"] as const;
export type QuestionStatus = (typeof QUESTION_STATUSES)[number];

export const DELIVERY_STATUSES = ["pending", "succeeded", "failed"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const CALL_SPEAKERS = ["caller", "assistant"] as const;
export type CallSpeaker = (typeof CALL_SPEAKERS)[number];

/** What an inbox item tells its person (spec control.md §4). */
export const INBOX_KINDS = [
  "approval_requested",
  "question_asked",
  "mentioned",
  "task_failed",
  "assigned",
  "budget_warning",
  "budget_exceeded",
] as const;
export type InboxKind = (typeof INBOX_KINDS)[number];
export const CALL_DIRECTIONS = ["inbound", "outbound"] as const;
export type CallDirection = (typeof CALL_DIRECTIONS)[number];

/** The carrier's call statuses (Twilio's CallStatus). */
export const CALL_STATUSES = [
  "queued",
  "ringing",
  "in-progress",
  "completed",
  "busy",
  "no-answer",
  "failed",
  "canceled",
] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];

/** The roles of a stored chat message (agent threads). */
const MESSAGE_ROLES = ["user", "assistant", "tool"] as const;
export type MessageRole = (typeof MESSAGE_ROLES)[number];
