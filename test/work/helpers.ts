// Shared set-up of the agents-at-work tests: a server with its worker, a model double it talks to, a workspace of
// every role, and the waits and reads these tests repeat.
import { afterAll, beforeAll, beforeEach, expect } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { openDatabase, type SqlDialect } from "../../src/db/index.ts";
import { migrateToLatest } from "../../src/db/migrate.ts";
import { buildServer } from "../../src/server.ts";
import type { ToolRegistry } from "../../src/tools/registry.ts";
import { ApiClient, createWorkspaceWithRoles, startTestApp, type TestApp, type TestUser } from "../helpers/app.ts";
import { createTestDatabase } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import { type ModelScript, TestModelServer } from "../helpers/model-server.ts";

export interface WorkFixture {
  t: TestApp;
  api: ApiClient;
  model: TestModelServer;
  ws: string;
  owner: TestUser;
  admin: TestUser;
  member: TestUser;
  outsider: TestUser;
  otherWs: string;
  close(): Promise<void>;
}

export interface WorkFixtureOptions {
  env?: Record<string, string>;
  registry?: ToolRegistry;
  /** Reuse a model double (several servers in one test). */
  model?: TestModelServer;
}

/** Quick retries, so failure tests need not wait seconds. */
export const FAST_RETRIES = { TASK_RETRY_BASE_MS: "50" };

export async function startWorkFixture(dialect: SqlDialect, options: WorkFixtureOptions = {}): Promise<WorkFixture> {
  const model = options.model ?? (await TestModelServer.start());
  const t = await startTestApp(dialect, {
    ...(options.registry && { registry: options.registry }),
    env: { OPENAI_BASE_URL: model.url, AGENT_MODEL: "openai/test-model", ...FAST_RETRIES, ...options.env },
  });
  const { workspaceId: ws, owner, admin, member, outsider } = await createWorkspaceWithRoles(t.api);
  const otherWs = (await t.api.post("workspaces/", { name: "Elsewhere" }, { token: outsider.token })).body.id;
  return {
    t,
    api: t.api,
    model,
    ws,
    owner,
    admin,
    member,
    outsider,
    otherWs,
    close: async () => {
      await t.close();
      if (!options.model) await model.close();
    },
  };
}

/**
 * The suite's fixture: started before its first test, closed after its last; each test begins with a model double
 * that has no replies queued and answers "Done." by default. Its fields are there from the first test on.
 */
export function useWorkFixture(dialect: SqlDialect, options: WorkFixtureOptions = {}): WorkFixture {
  const f = {} as WorkFixture;
  beforeAll(async () => {
    Object.assign(f, await startWorkFixture(dialect, options));
  });
  afterAll(() => f.close());
  beforeEach(() => {
    f.model.reset();
    f.model.setDefault({ text: "Done." });
  });
  return f;
}

/** A run that waits for a person holds nothing of a process: no lease, its agent idle, no model request open. */
export async function expectNothingHeld(f: WorkFixture, taskId: string, agentId: string): Promise<void> {
  const row = await f.t.db.selectFrom("tasks").selectAll().where("id", "=", taskId).executeTakeFirstOrThrow();
  expect([row.lease_owner, row.lease_expires_at]).toEqual([null, null]);
  expect((await f.api.get(`workspaces/${f.ws}/agents/${agentId}`, { token: f.member.token })).body.status).toBe("idle");
  expect(f.model.openStreams).toBe(0);
}

export interface RestartScene {
  /** The server after the restart. */
  server: Awaited<ReturnType<typeof startServerOn>>;
  model: TestModelServer;
  auth: { token: string };
  ws: string;
  issue: { id: string };
  /** The first entry of `pendingPath`, read before the restart. */
  pending: any;
  /** The workspace's one task, once it succeeded. */
  succeeded(): Promise<any>;
}

/**
 * A run that waits for a person, across a restart: on a fresh database, an owner's agent (`agent`: its body) is
 * assigned an issue, the model's first reply being `firstReply(issueId)`; once the workspace's `pendingPath` (e.g.
 * `approvals?status=pending`) lists something, the server is replaced by a new one on the same database and `then`
 * goes on there. Everything is closed afterwards.
 */
export async function acrossRestart(
  dialect: SqlDialect,
  scene: { agent: Record<string, unknown>; firstReply: (issueId: string) => ModelScript; pendingPath: string },
  then: (scene: RestartScene) => Promise<void>,
): Promise<void> {
  const model = await TestModelServer.start();
  const database = await createTestDatabase(dialect);
  const env = { OPENAI_BASE_URL: model.url, AGENT_MODEL: "openai/test-model" };
  let server = await startServerOn(database.url, env);
  try {
    const owner = (
      await server.api.post("auth/register", { email: `o-${Date.now()}@example.com`, password: "long enough pw" })
    ).body;
    const auth = { token: owner.token };
    const ws = (await server.api.post("workspaces/", { name: "Restart" }, auth)).body.id;
    const agent = (await server.api.post(`workspaces/${ws}/agents/`, scene.agent, auth)).body;
    const issue = (await server.api.post(`workspaces/${ws}/issues/`, { title: "Restart me" }, auth)).body;
    model.reply(scene.firstReply(issue.id));
    await server.api.patch(
      `workspaces/${ws}/issues/${issue.id}`,
      { assignee_type: "agent", assignee_id: agent.id },
      auth,
    );
    const [pending] = await eventually(async () => {
      const list = (await server.api.get(`workspaces/${ws}/${scene.pendingPath}`, auth)).body;
      return list.length > 0 && list;
    }, scene.pendingPath);

    await server.close();
    server = await startServerOn(database.url, env);
    const succeeded = () =>
      eventually(async () => {
        const [row] = (await server.api.get(`workspaces/${ws}/tasks`, auth)).body;
        return row?.status === "succeeded" && row;
      }, "the task to succeed after the restart");
    await then({ server, model, auth, ws, issue, pending, succeeded });
  } finally {
    await server.close();
    await database.drop();
    await model.close();
  }
}

export const TERMINAL = ["succeeded", "failed", "cancelled"];

export async function createAgent(f: WorkFixture, fields: Record<string, unknown> = {}, token = f.owner.token) {
  const response = await f.api.post(`workspaces/${f.ws}/agents/`, { name: "Worker Bee", ...fields }, { token });
  if (response.status !== 201)
    throw new Error(`agent create failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

export async function createIssue(f: WorkFixture, fields: Record<string, unknown> = {}, token = f.member.token) {
  const response = await f.api.post(
    `workspaces/${f.ws}/issues/`,
    { title: "Fix the login page", ...fields },
    { token },
  );
  if (response.status !== 201)
    throw new Error(`issue create failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

export async function tasksOf(f: WorkFixture, issueId: string) {
  const response = await f.api.get(`workspaces/${f.ws}/issues/${issueId}/tasks`, { token: f.member.token });
  if (response.status !== 200) throw new Error(`tasks read failed: ${response.status}`);
  return response.body as any[];
}

/** The issue's newest task once it is in one of `statuses` (default: ended). */
export function taskReaching(f: WorkFixture, issueId: string, statuses = TERMINAL, timeoutMs?: number) {
  return eventually(
    async () => {
      const [task] = await tasksOf(f, issueId);
      return task && statuses.includes(task.status) ? task : undefined;
    },
    `a task of ${issueId} in ${statuses.join("|")}`,
    timeoutMs,
  );
}

export interface RunEventFrame {
  id: number;
  event: string;
  data: any;
}

/** Reads `runs/{id}/events` to its end (the run's last event); comments left out. */
export async function readRunEvents(
  f: WorkFixture,
  runId: string,
  options: { lastEventId?: number; token?: string; baseUrl?: string } = {},
): Promise<{ status: number; headers: Headers; frames: RunEventFrame[] }> {
  const response = await fetch(`${options.baseUrl ?? f.t.url}/api/v1/workspaces/${f.ws}/runs/${runId}/events`, {
    headers: {
      authorization: `Bearer ${options.token ?? f.member.token}`,
      ...(options.lastEventId !== undefined && { "last-event-id": String(options.lastEventId) }),
    },
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, frames: parseEventStream(text) };
}

export function parseEventStream(text: string): RunEventFrame[] {
  const frames: RunEventFrame[] = [];
  for (const block of text.split("\n\n")) {
    const lines = block.split("\n").filter((line) => line !== "" && !line.startsWith(":"));
    if (lines.length === 0) continue;
    const field = (name: string) => lines.find((line) => line.startsWith(`${name}: `))?.slice(name.length + 2);
    frames.push({ id: Number(field("id")), event: field("event") ?? "", data: JSON.parse(field("data") ?? "null") });
  }
  return frames;
}

/** The text of the first user message the model was sent in a request (the task frame). */
export const frameOf = (body: any): string =>
  body?.messages?.find((message: { role: string }) => message.role === "user")?.content ?? "";

/** Names of the tools offered in a model request. */
export const toolNamesOf = (body: any): string[] =>
  (body?.tools ?? []).map((tool: { function: { name: string } }) => tool.function.name).sort();

/** A server on an existing database (a restart: the database outlives it). */
export async function startServerOn(databaseUrl: string, env: Record<string, string> = {}) {
  const config = loadConfig({ LOG_LEVEL: "silent", ...FAST_RETRIES, ...env, DATABASE_URL: databaseUrl });
  const database = openDatabase(config.databaseUrl);
  await migrateToLatest(database.db);
  const app = await buildServer({ passwordRounds: 4, logger: false, config, database });
  const url = await app.listen({ host: "127.0.0.1", port: 0 });
  return {
    url,
    api: new ApiClient(url),
    db: database.db,
    close: async () => {
      await app.close();
      await database.close();
    },
  };
}
