import { z } from "zod";

export const workspaceSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    slug: z.string(),
    description: z.string().nullable(),
    settings: z.record(z.string(), z.unknown()),
    issue_prefix: z.string(),
    monthly_budget_usd: z.number().nullable().describe("USD per calendar month (UTC); null: no limit"),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Workspace" });

const slug = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, { message: "Slug must be lowercase letters, digits and single hyphens" });

export const createWorkspaceBody = z.object({
  name: z.string().trim().min(1).max(200),
  // PraisonAI's client sends `"slug": null` when no slug is given.
  slug: slug
    .nullable()
    .optional()
    .describe("Derived from the name when absent; a taken slug (given or derived) is made unique with -1, -2…"),
  description: z.string().max(10_000).nullable().optional(),
});

export const updateWorkspaceBody = z.object({
  name: z.string().trim().min(1).max(200).optional(),
  description: z.string().max(10_000).nullable().optional(),
  settings: z.record(z.string(), z.unknown()).optional(),
  issue_prefix: z
    .string()
    .regex(/^[A-Z][A-Z0-9]{0,9}$/, {
      message: "Issue prefix must be 1-10 uppercase letters or digits, starting with a letter",
    })
    .optional(),
  monthly_budget_usd: z.number().min(0).max(1_000_000_000).nullable().optional().describe("Admins only"),
});
