import { z } from "zod";
import { actorTypeSchema, idField, text } from "../../api/fields.ts";

export const commentSchema = z
  .object({
    id: z.string(),
    workspace_id: z.string(),
    issue_id: z.string(),
    parent_id: z.string().nullable(),
    author_type: actorTypeSchema,
    author_id: z.string().nullable(),
    content: z.string(),
    /** Always "comment"; kept for PraisonAI clients, whose comments carry a type. */
    type: z.literal("comment"),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Comment" });

const content = text(100_000).refine((value) => value.trim() !== "", { message: "Content must not be empty" });

export const createCommentBody = z.object({
  content,
  parent_id: idField.nullable().optional(),
});

export const updateCommentBody = z.object({ content });

export type CreateCommentFields = z.output<typeof createCommentBody>;

export const commentParams = z.object({ ws_id: z.string(), issue_id: z.string(), comment_id: z.string() });
