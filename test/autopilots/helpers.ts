// An app whose agents never run (AGENT_WORKERS=0: their tasks stay queued, as a test of autopilots wants them), a
// workspace of every role with an agent, and shortcuts for autopilots.
import { expect } from "vitest";
import type { SqlDialect } from "../../src/db/index.ts";
import {
  type ApiClient,
  createWorkspaceWithRoles,
  type StartOptions,
  startTestApp,
  type TestApp,
  type TestUser,
} from "../helpers/app.ts";
import { insertAgent } from "../helpers/platform.ts";

export interface AutopilotFixture {
  t: TestApp;
  ws: string;
  owner: TestUser;
  admin: TestUser;
  member: TestUser;
  outsider: TestUser;
  otherWs: string;
  agentId: string;
}

export async function startAutopilotFixture(
  dialect: SqlDialect,
  options: StartOptions = {},
): Promise<AutopilotFixture> {
  const t = await startTestApp(dialect, { ...options, env: { AGENT_WORKERS: "0", ...options.env } });
  const { workspaceId: ws, owner, admin, member, outsider } = await createWorkspaceWithRoles(t.api);
  const otherWs = (await t.api.post("workspaces/", { name: "Elsewhere" }, { token: outsider.token })).body.id;
  const agentId = await insertAgent(t, ws, "Scribe");
  return { t, ws, owner, admin, member, outsider, otherWs, agentId };
}

export function autopilotBody(agentId: string, overrides: Record<string, unknown> = {}) {
  return {
    name: "Weekly triage",
    agent_id: agentId,
    issue: { title: "Triage {{date}}", description: "Fired by {{autopilot}} ({{trigger}})" },
    triggers: [{ kind: "schedule", cron: "0 9 * * 1", timezone: "Europe/Berlin" }],
    ...overrides,
  };
}

export async function createAutopilot(
  api: ApiClient,
  ws: string,
  token: string,
  body: Record<string, unknown>,
): Promise<any> {
  const created = await api.post(`workspaces/${ws}/autopilots`, body, { token });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}
