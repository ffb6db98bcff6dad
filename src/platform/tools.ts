// Platform tools for the registry (workspace scope): issues, comments, projects and labels of the caller's workspace,
// through the same services as the platform API, acting as the caller (the API key's creator, or the calling agent).
// Each tool's input is the API's own zod schema: the tool invoker validates with it, callers are shown the JSON Schema
// generated from it, so a field reads the same through a tool as over HTTP.
// Listing agents is the agents source's `list_agents` (agents/tools.ts), which also names each agent's ask_ tool.
import { z } from "zod";
import type { Actor } from "../api/access.ts";
import { idField } from "../api/fields.ts";
import { pageQuery } from "../api/pagination.ts";
import type { Db } from "../db/index.ts";
import { fromDatabaseError, HttpError, ValidationError } from "../http/errors.ts";
import type { JsonSchemaObject, Tool, ToolContext, ToolSource } from "../tools/registry.ts";
import { createCommentBody } from "./comments/schemas.ts";
import { addComment } from "./comments/service.ts";
import { listIssues } from "./issues/list.ts";
import { createIssueBody, issueListQuery, updateIssueBody } from "./issues/schemas.ts";
import { createIssue, getIssue, updateIssue } from "./issues/service.ts";
import { linkLabel, listLabels } from "./labels/service.ts";
import { listProjects } from "./projects/service.ts";

interface Scope {
  workspaceId: string;
  actor: Actor;
}

const issueId = idField.describe("The issue's id");

type PlatformTool = Omit<Tool, "run" | "inputSchema"> & {
  handler: (db: Db, scope: Scope, args: never) => Promise<unknown>;
};

/** A tool whose handler receives its input as the schema parsed it. */
function platformTool<S extends z.ZodObject>(
  name: string,
  description: string,
  input: S,
  handler: (db: Db, scope: Scope, args: z.output<S>) => Promise<unknown>,
): PlatformTool {
  return { name, description, input: input as z.ZodType<Record<string, unknown>>, handler };
}

const definitions: PlatformTool[] = [
  platformTool(
    "list_issues",
    "List the issues of this workspace, optionally filtered by status, priority, project or assignee (several values " +
      "comma-separated), or searched by text (q: title, description or identifier such as ENG-12).",
    issueListQuery,
    async (db, scope, args) => ({ issues: await listIssues(db, scope.workspaceId, args) }),
  ),
  platformTool(
    "get_issue",
    "Get one issue of this workspace by id.",
    z.object({ issue_id: issueId }),
    (db, scope, args) => getIssue(db, scope.workspaceId, args.issue_id),
  ),
  platformTool(
    "create_issue",
    "Create an issue in this workspace. Status defaults to backlog, priority to none.",
    createIssueBody,
    (db, scope, args) => createIssue(db, scope.workspaceId, args, scope.actor),
  ),
  platformTool(
    "update_issue",
    "Change fields of an issue of this workspace; fields left out stay as they are, null clears one.",
    updateIssueBody.extend({ issue_id: issueId }),
    (db, scope, { issue_id, ...patch }) => updateIssue(db, scope.workspaceId, issue_id, patch, scope.actor),
  ),
  platformTool(
    "add_comment",
    "Add a comment to an issue of this workspace (parent_id makes it a reply).",
    createCommentBody.extend({ issue_id: issueId }),
    (db, scope, { issue_id, ...comment }) => addComment(db, scope.workspaceId, issue_id, comment, scope.actor),
  ),
  platformTool("list_projects", "List the projects of this workspace.", pageQuery, async (db, scope, args) => ({
    projects: await listProjects(db, scope.workspaceId, args),
  })),
  platformTool("list_labels", "List the labels of this workspace.", pageQuery, async (db, scope, args) => ({
    labels: await listLabels(db, scope.workspaceId, args),
  })),
  platformTool(
    "label_issue",
    "Put a label of this workspace (see list_labels) on an issue; putting one it already has changes nothing.",
    z.object({ issue_id: issueId, label_id: idField.describe("The label's id") }),
    async (db, scope, args) => {
      await linkLabel(db, scope.workspaceId, args.issue_id, args.label_id, scope.actor);
      return { issue_id: args.issue_id, label_id: args.label_id, linked: true };
    },
  ),
];

/**
 * A service's refusal (404, 422…) as the tool error the caller reads, naming the field for a validation error. A raw
 * database message never reaches the caller (it names tables and constraints, and helps nobody fix the call).
 */
function asToolError(error: unknown, toolName: string): unknown {
  error = fromDatabaseError(error) ?? error;
  if (error instanceof ValidationError) {
    const issue = error.issues[0];
    const field = issue?.loc.filter((part) => part !== "body").join(".");
    return new Error(field ? `${field}: ${issue?.msg}` : error.detail);
  }
  if (error instanceof HttpError) return new Error(error.detail);
  return new Error(`${toolName} failed`, { cause: error });
}

function scopeOf(ctx: ToolContext): Scope | undefined {
  if (!ctx.workspaceId) return undefined;
  if (ctx.agentId) return { workspaceId: ctx.workspaceId, actor: { type: "agent", id: ctx.agentId } };
  if (ctx.userId) return { workspaceId: ctx.workspaceId, actor: { type: "member", id: ctx.userId } };
  return undefined;
}

/** What callers are shown: the schema's input side (defaults, optional fields) as a plain JSON Schema object. */
function jsonSchemaOf(input: z.ZodType): JsonSchemaObject {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(input, { io: "input", unrepresentable: "any" });
  return schema as JsonSchemaObject;
}

export const PLATFORM_TOOL_NAMES = definitions.map((definition) => definition.name);

/** The platform tools, for callers inside a workspace only; the tool objects are built once. */
export function platformToolSource(db: Db): ToolSource {
  const tools: Tool[] = definitions.map(({ handler, ...definition }) => ({
    ...definition,
    inputSchema: jsonSchemaOf(definition.input!),
    run: async (args, ctx) => {
      const scope = scopeOf(ctx);
      if (!scope) throw new Error("Platform tools need a workspace API key");
      try {
        return await handler(db, scope, args as never);
      } catch (error) {
        throw asToolError(error, definition.name);
      }
    },
  }));
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  return {
    list: (ctx) => (scopeOf(ctx) ? tools : []),
    find: (name, ctx) => (scopeOf(ctx) ? byName.get(name) : undefined),
  };
}
