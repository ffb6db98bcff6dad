import { z } from "zod";
import { title } from "../../api/fields.ts";

const DEFAULT_LABEL_COLOR = "#6B7280";

export const labelSchema = z
  .object({
    id: z.string(),
    workspace_id: z.string(),
    name: z.string(),
    color: z.string(),
    created_at: z.string(),
  })
  .meta({ id: "Label" });

const color = z.string().regex(/^#[0-9A-Fa-f]{6}$/, { message: "Color must be #RRGGBB" });

export const createLabelBody = z.object({
  name: title(100),
  color: color.default(DEFAULT_LABEL_COLOR),
});

export const updateLabelBody = z.object({
  name: title(100).optional(),
  color: color.optional(),
});

export const labelParams = z.object({ ws_id: z.string(), label_id: z.string() });
export const issueLabelParams = z.object({ ws_id: z.string(), issue_id: z.string(), label_id: z.string() });
