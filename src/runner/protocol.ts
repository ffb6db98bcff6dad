// The runner API's bodies as the runner reads them (runtimes.md §2): only what the runner uses is checked, anything
// else the server adds passes through.
import { z } from "zod";
import { SKILL_NAME } from "../skills/front-matter.ts";
import { pathProblem } from "../skills/paths.ts";

const RuntimeSchema = z.looseObject({ id: z.string(), name: z.string() });

export const RegisterAnswerSchema = z.looseObject({
  runner: z.looseObject({ id: z.string() }),
  runtimes: z.array(RuntimeSchema),
  /** The server takes a run's last events with `complete` (older servers say nothing: they are sent apart). */
  complete_events: z.boolean().default(false),
});
export type RegisterAnswer = z.infer<typeof RegisterAnswerSchema>;

export const HeartbeatAnswerSchema = z.looseObject({ cancel: z.array(z.string()).default([]) });

export const EventsAnswerSchema = z.looseObject({ cancel: z.boolean().default(false) });

export const RepositorySchema = z.object({
  url: z.string().min(1),
  branch: z.string().min(1).optional(),
});

// A skill's name and paths become folders and files on this machine: checked here again, whatever the server says.
const SkillFileSchema = z.looseObject({
  path: z.string().refine((path) => pathProblem(path) === undefined, { message: "not a path inside a skill folder" }),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  url: z.string().min(1),
});
export const SkillSchema = z.looseObject({
  name: z.string().regex(SKILL_NAME),
  description: z.string(),
  files: z.array(SkillFileSchema),
});
export type AssignedSkill = z.infer<typeof SkillSchema>;

export const AssignmentSchema = z.looseObject({
  // The task id names folders on this machine: nothing but an id's characters.
  task: z.looseObject({ id: z.string().regex(/^[A-Za-z0-9_-]{1,100}$/) }),
  run_id: z.string(),
  runtime_id: z.string(),
  attempt: z.number().int(),
  agent: z.looseObject({
    id: z.string(),
    name: z.string(),
    runtime_config: z.record(z.string(), z.unknown()).nullish(),
  }),
  issue: z.looseObject({ id: z.string(), identifier: z.string() }),
  prompt: z.string(),
  token: z.string(),
  platform: z.object({ url: z.string(), mcp_url: z.string() }),
  resume: z.object({ session_id: z.string(), work_dir: z.string() }).nullish(),
  skills: z.array(SkillSchema).default([]),
});
export type Assignment = z.infer<typeof AssignmentSchema>;

/** A claim's answer: each task apart, so one the runner cannot read is failed on its own. */
export const ClaimAnswerSchema = z.looseObject({ tasks: z.array(z.unknown()) });

/** The task id of an assignment the runner could not read, if it has one (to fail it by). */
export function taskIdOf(raw: unknown): string | undefined {
  const parsed = z.object({ task: z.object({ id: z.string() }) }).safeParse(raw);
  return parsed.success ? parsed.data.task.id : undefined;
}
