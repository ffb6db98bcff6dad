// Shortcuts for the workspace-resource tests: a workspace with every role, and direct reads of what was recorded.
import { randomUUID } from "node:crypto";
import { expect } from "vitest";
import type { SqlDialect } from "../../src/db/index.ts";
import { toJson } from "../../src/db/values.ts";
import { type ApiClient, createWorkspaceWithRoles, startTestApp, type TestApp, type TestUser } from "./app.ts";

/** A UUID that names nothing. */
export const unknownId = () => randomUUID();

export async function createIssue(
  api: ApiClient,
  workspaceId: string,
  token: string,
  body: Record<string, unknown> = {},
) {
  const response = await api.post(`workspaces/${workspaceId}/issues/`, { title: "An issue", ...body }, { token });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body;
}

export async function createProject(
  api: ApiClient,
  workspaceId: string,
  token: string,
  body: Record<string, unknown> = {},
) {
  const response = await api.post(`workspaces/${workspaceId}/projects/`, { title: "A project", ...body }, { token });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body;
}

export async function createLabel(api: ApiClient, workspaceId: string, token: string, name: string, color?: string) {
  const response = await api.post(`workspaces/${workspaceId}/labels`, { name, ...(color && { color }) }, { token });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body;
}

/** An agent row of the workspace (agents have their own routes elsewhere; here only a target is needed). */
export async function insertAgent(t: TestApp, workspaceId: string, name = "Agent"): Promise<string> {
  const id = randomUUID();
  const at = "2026-01-01T00:00:00.000000";
  await t.db
    .insertInto("agents")
    .values({
      id,
      workspace_id: workspaceId,
      name,
      description: null,
      instructions: null,
      model: null,
      tools: toJson([]),
      status: "offline",
      runtime_mode: "local",
      runtime_config: toJson({}),
      max_concurrent_tasks: 1,
      owner_type: null,
      owner_id: null,
      created_at: at,
      updated_at: at,
    })
    .execute();
  return id;
}

/** Activity rows of a workspace, oldest first, with details parsed. */
export async function activityOf(t: TestApp, workspaceId: string) {
  const rows = await t.db
    .selectFrom("activity")
    .selectAll()
    .where("workspace_id", "=", workspaceId)
    .orderBy("created_at")
    .orderBy("id")
    .execute();
  return rows.map((row) => ({ ...row, details: JSON.parse(row.details) }));
}

export interface WorkspaceFixture {
  t: TestApp;
  /** The workspace, with an owner, an admin and a plain member. */
  ws: string;
  owner: TestUser;
  admin: TestUser;
  member: TestUser;
  /** Belongs to none of `ws`, and owns `otherWs`. */
  outsider: TestUser;
  otherWs: string;
}

/** A server on a fresh database with a workspace of every role, and another workspace of an outsider. */
export async function startWorkspaceFixture(dialect: SqlDialect): Promise<WorkspaceFixture> {
  const t = await startTestApp(dialect);
  const { workspaceId: ws, owner, admin, member, outsider } = await createWorkspaceWithRoles(t.api);
  const otherWs = (await t.api.post("workspaces/", { name: "Elsewhere" }, { token: outsider.token })).body.id;
  return { t, ws, owner, admin, member, outsider, otherWs };
}
