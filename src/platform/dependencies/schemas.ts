import { z } from "zod";
import { idField } from "../../api/fields.ts";
import { DEPENDENCY_TYPES } from "../../db/enums.ts";

const dependencyTypeSchema = z.enum(DEPENDENCY_TYPES);

export const dependencySchema = z
  .object({
    id: z.string(),
    workspace_id: z.string(),
    issue_id: z.string(),
    depends_on_issue_id: z.string(),
    type: dependencyTypeSchema,
    created_at: z.string(),
  })
  .meta({ id: "Dependency" });

export const createDependencyBody = z.object({
  depends_on_issue_id: idField,
  type: dependencyTypeSchema.default("blocks"),
});

export const dependencyParams = z.object({ ws_id: z.string(), issue_id: z.string(), dependency_id: z.string() });
