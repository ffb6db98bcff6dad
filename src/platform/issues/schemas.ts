import { z } from "zod";
import { actorTypeSchema, csvFilter, dateText, idField, text, title } from "../../api/fields.ts";
import { pageQuery } from "../../api/pagination.ts";
import { ISSUE_PRIORITIES, ISSUE_STATUSES } from "../../db/enums.ts";

export const issueStatusSchema = z.enum(ISSUE_STATUSES);
export const issuePrioritySchema = z.enum(ISSUE_PRIORITIES);

export const issueSchema = z
  .object({
    id: z.string(),
    workspace_id: z.string(),
    project_id: z.string().nullable(),
    title: z.string(),
    description: z.string().nullable(),
    status: issueStatusSchema,
    priority: issuePrioritySchema,
    assignee_type: actorTypeSchema.nullable(),
    assignee_id: z.string().nullable(),
    creator_type: actorTypeSchema,
    creator_id: z.string().nullable(),
    number: z.number().int(),
    identifier: z.string(),
    parent_issue_id: z.string().nullable(),
    acceptance_criteria: z.array(z.string()),
    position: z.number(),
    due_date: z.string().nullable(),
    label_ids: z.array(z.string()).describe("The labels linked to the issue (issues/{id}/labels links and unlinks)"),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Issue" });

const acceptanceCriteria = z.array(text(10_000)).max(200);
const position = z.number().min(-1e15).max(1e15);

export const createIssueBody = z.object({
  title: title(),
  description: text(100_000).nullable().optional(),
  project_id: idField.nullable().optional(),
  status: issueStatusSchema.default("backlog"),
  priority: issuePrioritySchema.default("none"),
  assignee_type: actorTypeSchema.nullable().optional(),
  assignee_id: idField.nullable().optional(),
  parent_issue_id: idField.nullable().optional(),
  acceptance_criteria: acceptanceCriteria.nullable().optional(),
  position: position.optional(),
  due_date: dateText.nullable().optional(),
});

/**
 * JSON merge patch: absent = unchanged, null clears a nullable field; null on title, status, priority or
 * position is a 422. `acceptance_criteria: null` clears the list.
 */
export const updateIssueBody = createIssueBody.extend({
  title: title().optional(),
  status: issueStatusSchema.optional(),
  priority: issuePrioritySchema.optional(),
});

/** Filters of the issue list; each takes several values comma-separated. */
const oneOf = (values: readonly string[]) => `Comma-separated, any of: ${values.join(", ")}`;
const ids = "Comma-separated ids";

const issueFiltersSchema = z.object({
  status: csvFilter(issueStatusSchema).describe(oneOf(ISSUE_STATUSES)),
  priority: csvFilter(issuePrioritySchema).describe(oneOf(ISSUE_PRIORITIES)),
  assignee_type: csvFilter(actorTypeSchema).describe(oneOf(actorTypeSchema.options)),
  project_id: csvFilter(idField).describe(ids),
  assignee_id: csvFilter(idField).describe(ids),
  creator_id: csvFilter(idField).describe(ids),
  parent_issue_id: csvFilter(idField).describe(ids),
  label_id: csvFilter(idField).describe(`${ids}: issues carrying any of these labels`),
  q: text(500).optional().describe("Case-insensitive text search in title, description and identifier"),
});

export const issueListQuery = pageQuery.extend(issueFiltersSchema.shape);

export type CreateIssueFields = z.output<typeof createIssueBody>;
export type UpdateIssuePatch = z.infer<typeof updateIssueBody>;
export type IssueFilters = z.infer<typeof issueFiltersSchema>;

export const issueParams = z.object({ ws_id: z.string(), issue_id: z.string() });
