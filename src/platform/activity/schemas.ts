import { z } from "zod";

export const activitySchema = z
  .object({
    id: z.string(),
    workspace_id: z.string(),
    entity_type: z.string(),
    entity_id: z.string().nullable(),
    issue_id: z.string().nullable(),
    actor_type: z.string(),
    actor_id: z.string().nullable(),
    action: z.string(),
    details: z.record(z.string(), z.unknown()),
    created_at: z.string(),
  })
  .meta({ id: "Activity" });

export const issueActivityParams = z.object({ ws_id: z.string(), issue_id: z.string() });
