import { z } from "zod";
import { MEMBER_ROLES } from "../../db/enums.ts";

const roleSchema = z.enum(MEMBER_ROLES);

export const memberSchema = z
  .object({
    id: z.string(),
    workspace_id: z.string(),
    user_id: z.string(),
    role: roleSchema,
    created_at: z.string(),
    user: z.object({ id: z.string(), name: z.string(), email: z.string() }),
  })
  .meta({ id: "Member" });

export const addMemberBody = z
  .object({
    user_id: z.string().optional(),
    email: z.email({ message: "Enter a valid email address" }).max(320).optional(),
    role: roleSchema.default("member"),
  })
  .refine((body) => body.user_id !== undefined || body.email !== undefined, {
    message: "Give user_id or email",
    path: ["user_id"],
  });

export const updateMemberBody = z.object({ role: roleSchema });

export const memberParams = z.object({ ws_id: z.string(), user_id: z.string() });
