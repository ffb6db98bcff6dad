// An issue as the API shows it, read from its row and its workspace's prefix.
import type { z } from "zod";
import type { Db } from "../../db/index.ts";
import type { IssuesTable } from "../../db/schema.ts";
import { fromJson } from "../../db/values.ts";
import type { issueSchema } from "./schemas.ts";

export type Issue = z.infer<typeof issueSchema>;

export type IssueRow = IssuesTable & { issue_prefix: string };

export const toIssue = ({ issue_prefix, ...row }: IssueRow): Issue => ({
  ...(row as Omit<Issue, "identifier" | "acceptance_criteria" | "position" | "number">),
  number: Number(row.number),
  position: Number(row.position),
  identifier: `${issue_prefix}-${row.number}`,
  acceptance_criteria: fromJson<string[]>(row.acceptance_criteria, []),
});

export const issueQuery = (db: Db, workspaceId: string) =>
  db
    .selectFrom("issues")
    .innerJoin("workspaces", "workspaces.id", "issues.workspace_id")
    .selectAll("issues")
    .select("workspaces.issue_prefix")
    .where("issues.workspace_id", "=", workspaceId);
