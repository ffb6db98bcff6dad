// What a runner is handed with a claimed task (spec runtimes.md §2 Assignment): the task, its agent, issue and
// comments, the prompt (the same frame an in-process run gets, plus how to act on the platform), the task token, the
// platform's addresses and the resume pointer of an earlier attempt or task of the agent on the issue. A task resumed
// after a question its CLI asked starts its prompt with the answer.
import type { z } from "zod";
import type { Db } from "../db/index.ts";
import { showRuntimeConfig } from "../platform/agents/secrets.ts";
import { toAgent } from "../platform/agents/service.ts";
import { newestComments } from "../platform/comments/service.ts";
import { skillsForRunner } from "../skills/for-runners.ts";
import { buildTaskFrame } from "../work/frame.ts";
import { answeredSection, answersToResumeWith } from "../work/questions.ts";
import type { TaskRow } from "../work/queue.ts";
import type { Question, TaskTrigger } from "../work/schemas.ts";
import type { RunnerClaim } from "./claims.ts";
import type { assignmentSchema } from "./schemas.ts";

export interface PlatformUrls {
  url: string;
  mcp_url: string;
}

/** A comment thread longer than this reaches the runner as its newest comments (the prompt says as much). */
const COMMENT_LIMIT = 200;

export async function buildAssignment(
  db: Db,
  claim: RunnerClaim,
  platform: PlatformUrls,
  maxAttempts: number,
): Promise<Assignment> {
  const agent = toAgent(claim.agent);
  const task = claim.task;
  // Read side by side: a claim's answer waits on the slowest of them, not on their sum.
  const [frame, comments, answered, skills, resume] = await Promise.all([
    buildTaskFrame(db, task, agent),
    newestComments(db, task.issue_id, COMMENT_LIMIT),
    answersToResumeWith(db, task.id, claim.runId),
    skillsForRunner(db, task.workspace_id, agent.id, platform.url),
    resumeOf(db, task),
  ]);
  return {
    task: {
      id: task.id,
      workspace_id: task.workspace_id,
      agent_id: task.agent_id,
      issue_id: task.issue_id,
      trigger: task.trigger as TaskTrigger,
      comment_id: task.comment_id,
      status: "running",
      attempt: Number(task.attempt),
      max_attempts: Number(task.max_attempts ?? maxAttempts),
      run_id: claim.runId,
      created_at: task.created_at,
      started_at: task.started_at,
    },
    run_id: claim.runId,
    runtime_id: claim.runtime.id,
    attempt: Number(task.attempt),
    agent: {
      id: agent.id,
      name: agent.name,
      instructions: agent.instructions,
      model: agent.model,
      runtime_config: showRuntimeConfig(agent.runtime_config),
    },
    issue: frame.issue,
    comments,
    prompt: promptOf(String(frame.message.message.content), agent.instructions, platform, answered),
    skills,
    token: claim.token,
    platform,
    resume,
  };
}

export type Assignment = z.infer<typeof assignmentSchema>;

function promptOf(frame: string, instructions: string | null, platform: PlatformUrls, answered: Question[]): string {
  const parts = [];
  if (instructions?.trim()) parts.push("## Your instructions", instructions.trim(), "");
  parts.push(...answeredSection(answered));
  parts.push(
    frame,
    "",
    "## Acting on the platform",
    `The platform's MCP server (${platform.mcp_url}) is configured for you: its tools (get_issue, update_issue, ` +
      "add_comment, create_issue, list_issues, label_issue…) act as you, in this workspace only, while this task runs. " +
      "When you are unsure and guessing could do harm, its ask_human tool asks a person: your session pauses and " +
      "resumes with their answer.",
    `Without MCP, call the REST API at ${platform.url}/api/v1 with the header ` +
      "`Authorization: Bearer $AGENT_PLATFORM_TOKEN` (the same task token); the task's id is in " +
      "`$AGENT_PLATFORM_TASK_ID` and the issue's identifier in `$AGENT_PLATFORM_ISSUE`.",
    "Your final answer is posted as your comment on the issue, unless you comment yourself.",
  );
  return parts.join("\n");
}

/** This task's own session, else the newest one of the agent on the issue. */
async function resumeOf(db: Db, task: TaskRow): Promise<{ session_id: string; work_dir: string } | null> {
  const row = await db
    .selectFrom("tasks")
    .select(["session_id", "work_dir"])
    .where("agent_id", "=", task.agent_id)
    .where("issue_id", "=", task.issue_id)
    .where("session_id", "is not", null)
    .where("work_dir", "is not", null)
    .orderBy((eb) => eb.case().when("id", "=", task.id).then(0).else(1).end())
    .orderBy("created_at", "desc")
    .limit(1)
    .executeTakeFirst();
  return row?.session_id && row.work_dir ? { session_id: row.session_id, work_dir: row.work_dir } : null;
}
