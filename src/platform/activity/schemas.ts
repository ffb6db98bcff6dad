import { z } from "zod";

const nameField = (description: string) => z.string().nullable().optional().meta({ description });

/** One field's change; fields that hold an id also carry what it named when the change was made. */
const activityChange = z
  .object({
    from: z.unknown(),
    to: z.unknown(),
    from_name: nameField(
      "For a field holding an id (assignee_id, project_id, parent_issue_id, lead_id, owner_id): what the old id " +
        "named (a member's or agent's name, a project's title, an issue's `<identifier> <title>`); null for none",
    ),
    to_name: nameField("The same for the new id"),
  })
  .catchall(z.unknown())
  .meta({ id: "ActivityChange" });

/**
 * What the entry is about, by action. Every id it mentions comes with the name it had when the entry was written,
 * so the log reads the same after the thing is renamed or gone. Other keys may appear; none are removed.
 */
const activityDetails = z
  .object({
    changes: z
      .record(z.string(), activityChange)
      .optional()
      .meta({ description: "`*.updated`: `{field: {from, to}}` for each field that changed" }),
    identifier: z.string().optional().meta({ description: "The issue's identifier (issue, comment, label link)" }),
    title: z.string().optional().meta({ description: "The issue's or project's title (created, deleted)" }),
    name: z.string().optional().meta({ description: "The label's, agent's, API key's or workspace's name" }),
    user_id: z.string().optional().meta({ description: "`member.*`: the member's user id" }),
    user_name: nameField("`member.*`: the member's name"),
    depends_on_issue_id: z.string().optional().meta({ description: "`dependency.*`: the issue depended on" }),
    depends_on: nameField("`dependency.*`: its identifier"),
    depends_on_title: nameField("`dependency.*`: its title"),
    author_id: z.string().nullable().optional().meta({ description: "`comment.deleted`: who wrote the comment" }),
    author_name: nameField("`comment.deleted`: their name"),
    agent_id: z.string().optional().meta({ description: "`task.*`: the task's agent" }),
    agent_name: nameField("`task.*`: its name"),
  })
  .catchall(z.unknown());

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
    details: activityDetails,
    created_at: z.string(),
  })
  .meta({ id: "Activity" });

export const issueActivityParams = z.object({ ws_id: z.string(), issue_id: z.string() });
