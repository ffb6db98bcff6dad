// Platform tools for the registry (workspace scope): issues, comments, projects and labels of the caller's workspace,
// through the same services as the platform API, acting as the caller (the API key's creator, or the calling agent).
// Listing agents is the agents source's `list_agents` (agents/tools.ts), which also names each agent's ask_ tool.
import type { Db } from "../db/index.ts";
import { HttpError, ValidationError } from "../http/errors.ts";
import type { JsonSchemaObject, Tool, ToolContext, ToolSource } from "../tools/registry.ts";
import type { Actor } from "./access.ts";
import { addComment } from "./comments/service.ts";
import { ISSUE_PRIORITIES, ISSUE_STATUSES } from "./issues/schemas.ts";
import { createIssue, getIssue, listIssues, updateIssue } from "./issues/service.ts";
import { listLabels } from "./labels/service.ts";
import { MAX_PAGE_SIZE } from "./pagination.ts";
import { listProjects } from "./projects/service.ts";

interface Scope {
  workspaceId: string;
  actor: Actor;
}

type Args = Record<string, unknown>;

const DEFAULT_PAGE_SIZE = 50;

const page = {
  limit: { type: "integer", minimum: 1, maximum: MAX_PAGE_SIZE, description: `Default ${DEFAULT_PAGE_SIZE}` },
  offset: { type: "integer", minimum: 0, description: "Default 0" },
};
const issueId = { type: "string", description: "The issue's id" };
const issueFields = {
  title: { type: "string", minLength: 1 },
  description: { type: ["string", "null"] },
  status: { type: "string", enum: [...ISSUE_STATUSES] },
  priority: { type: "string", enum: [...ISSUE_PRIORITIES] },
  project_id: { type: ["string", "null"] },
  assignee_type: { type: ["string", "null"], enum: ["member", "agent", null] },
  assignee_id: { type: ["string", "null"] },
  parent_issue_id: { type: ["string", "null"] },
  acceptance_criteria: { type: ["array", "null"], items: { type: "string" } },
  due_date: { type: ["string", "null"], description: "YYYY-MM-DD or an ISO 8601 date-time" },
};

const schema = (properties: Record<string, unknown>, required: string[] = []): JsonSchemaObject => ({
  type: "object",
  properties,
  required,
  additionalProperties: false,
});

const pageOf = (args: Args) => ({
  limit: typeof args.limit === "number" ? args.limit : DEFAULT_PAGE_SIZE,
  offset: typeof args.offset === "number" ? args.offset : 0,
});

const only = (value: unknown): string[] | undefined => (typeof value === "string" ? [value] : undefined);

function pick(args: Args, keys: string[]): Args {
  const picked: Args = {};
  for (const key of keys) if (key in args) picked[key] = args[key];
  return picked;
}

const definitions: [Omit<Tool, "run">, (db: Db, scope: Scope, args: Args) => Promise<unknown>][] = [
  [
    {
      name: "list_issues",
      description:
        "List the issues of this workspace, optionally filtered by status, priority, project or assignee, or searched by text.",
      inputSchema: schema({
        status: issueFields.status,
        priority: issueFields.priority,
        project_id: { type: "string" },
        assignee_id: { type: "string" },
        q: { type: "string", description: "Text in the title, description or identifier (e.g. ENG-12)" },
        ...page,
      }),
    },
    async (db, scope, args) => ({
      issues: await listIssues(db, scope.workspaceId, {
        ...pageOf(args),
        status: only(args.status) as never,
        priority: only(args.priority) as never,
        project_id: only(args.project_id),
        assignee_id: only(args.assignee_id),
        q: typeof args.q === "string" ? args.q : undefined,
      }),
    }),
  ],
  [
    {
      name: "get_issue",
      description: "Get one issue of this workspace by id.",
      inputSchema: schema({ issue_id: issueId }, ["issue_id"]),
    },
    (db, scope, args) => getIssue(db, scope.workspaceId, String(args.issue_id)),
  ],
  [
    {
      name: "create_issue",
      description: "Create an issue in this workspace. Status defaults to backlog, priority to none.",
      inputSchema: schema(issueFields, ["title"]),
    },
    (db, scope, args) => createIssue(db, scope.workspaceId, args as never, scope.actor),
  ],
  [
    {
      name: "update_issue",
      description: "Change fields of an issue of this workspace; fields left out stay as they are, null clears one.",
      inputSchema: schema({ issue_id: issueId, ...issueFields }, ["issue_id"]),
    },
    (db, scope, args) =>
      updateIssue(
        db,
        scope.workspaceId,
        String(args.issue_id),
        pick(args, Object.keys(issueFields)) as never,
        scope.actor,
      ),
  ],
  [
    {
      name: "add_comment",
      description: "Add a comment to an issue of this workspace (parent_id makes it a reply).",
      inputSchema: schema(
        { issue_id: issueId, content: { type: "string", minLength: 1 }, parent_id: { type: "string" } },
        ["issue_id", "content"],
      ),
    },
    (db, scope, args) =>
      addComment(
        db,
        scope.workspaceId,
        String(args.issue_id),
        pick(args, ["content", "parent_id"]) as never,
        scope.actor,
      ),
  ],
  [
    {
      name: "list_projects",
      description: "List the projects of this workspace.",
      inputSchema: schema(page),
    },
    async (db, scope, args) => ({ projects: await listProjects(db, scope.workspaceId, pageOf(args)) }),
  ],
  [
    {
      name: "list_labels",
      description: "List the labels of this workspace.",
      inputSchema: schema(page),
    },
    async (db, scope, args) => ({ labels: await listLabels(db, scope.workspaceId, pageOf(args)) }),
  ],
];

/** A service's refusal (404, 422…) as the tool error the caller reads, naming the field for a validation error. */
function asToolError(error: unknown): unknown {
  if (error instanceof ValidationError) {
    const issue = error.issues[0];
    const field = issue?.loc.filter((part) => part !== "body").join(".");
    return new Error(field ? `${field}: ${issue?.msg}` : error.detail);
  }
  if (error instanceof HttpError) return new Error(error.detail);
  return error;
}

function scopeOf(ctx: ToolContext): Scope | undefined {
  if (!ctx.workspaceId) return undefined;
  if (ctx.agentId) return { workspaceId: ctx.workspaceId, actor: { type: "agent", id: ctx.agentId } };
  if (ctx.userId) return { workspaceId: ctx.workspaceId, actor: { type: "member", id: ctx.userId } };
  return undefined;
}

export const PLATFORM_TOOL_NAMES = definitions.map(([definition]) => definition.name);

/** The platform tools, for callers inside a workspace only; the tool objects are built once. */
export function platformToolSource(db: Db): ToolSource {
  const tools: Tool[] = definitions.map(([definition, handler]) => ({
    ...definition,
    run: async (args, ctx) => {
      const scope = scopeOf(ctx);
      if (!scope) throw new Error("Platform tools need a workspace API key");
      try {
        return await handler(db, scope, args);
      } catch (error) {
        throw asToolError(error);
      }
    },
  }));
  return { list: (ctx) => (scopeOf(ctx) ? tools : []) };
}
