import { z } from "zod";
import { actorTypeSchema, idField, text, title } from "../../api/fields.ts";
import { PROJECT_STATUSES } from "../../db/enums.ts";

export const projectStatusSchema = z.enum(PROJECT_STATUSES);

export const projectSchema = z
  .object({
    id: z.string(),
    workspace_id: z.string(),
    title: z.string(),
    description: z.string().nullable(),
    icon: z.string().nullable(),
    status: projectStatusSchema,
    lead_type: actorTypeSchema.nullable(),
    lead_id: z.string().nullable(),
    creator_id: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Project" });

export const projectStatsSchema = z
  .object({
    total: z.number().int(),
    by_status: z.record(z.string(), z.number().int()),
  })
  .meta({ id: "ProjectStats" });

export const createProjectBody = z.object({
  title: title(),
  description: text(100_000).nullable().optional(),
  icon: text(200).nullable().optional(),
  status: projectStatusSchema.default("planned"),
  lead_type: actorTypeSchema.nullable().optional(),
  lead_id: idField.nullable().optional(),
});

/** JSON merge patch: absent = unchanged, null clears a nullable field (null on title or status is a 422). */
export const updateProjectBody = createProjectBody.extend({
  title: title().optional(),
  status: projectStatusSchema.optional(),
});

export type CreateProjectInput = z.infer<typeof createProjectBody>;
export type UpdateProjectPatch = z.infer<typeof updateProjectBody>;

export const projectParams = z.object({ ws_id: z.string(), project_id: z.string() });
