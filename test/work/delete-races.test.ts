// Deletes that meet work in progress: a workspace, an agent, an issue, a project, a member or a webhook deleted while
// an agent works, events are written and fanned out to webhooks, deliveries are sent and runs are read. Each delete
// is repeated against the work at many moments (before, during and after each of the worker's transactions, several
// workspaces at once) and must answer 204, take everything of what it deleted with it, stop the work it ended, and
// leave the server healthy: no 500, no deadlock, nothing logged as an error, no run event lost.
import { Writable } from "node:stream";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { WebhookReceiver } from "../events/receiver.ts";
import { registerUser, startTestApp, type TestApp, type TestUser } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import { TestModelServer } from "../helpers/model-server.ts";
import { parseEventStream } from "./helpers.ts";

/** Tables with a workspace_id: none may keep a row of a deleted workspace. */
const WORKSPACE_TABLES = [
  "members",
  "projects",
  "issues",
  "comments",
  "labels",
  "issue_dependencies",
  "agents",
  "activity",
  "api_keys",
  "event_counters",
  "events",
  "webhooks",
  "webhook_deliveries",
  "tasks",
  "runs",
  "approvals",
  "agent_live_runs",
] as const;

/** The moments a delete is sent at, in ms after the work was started: during the claim, the run, its end. */
const DELAYS_MS = [0, 1, 2, 4, 7, 11, 16, 25];
/** Workspaces (or agents, issues…) deleted side by side in one round. */
const SIDE_BY_SIDE = 4;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(testDialects)("deletes meeting work in progress (%s)", (dialect) => {
  let t: TestApp;
  let model: TestModelServer;
  let receiver: WebhookReceiver;
  let owner: TestUser;
  /** What the server logged at warn level or above: an expected vanish is neither. */
  const logged: { level: number; msg: string; detail: string }[] = [];
  const auth = () => ({ token: owner.token });

  beforeAll(async () => {
    model = await TestModelServer.start();
    receiver = await WebhookReceiver.start();
    const stream = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split("\n").filter(Boolean)) {
          const entry = JSON.parse(line);
          if (entry.level >= 40) {
            logged.push({ level: entry.level, msg: entry.msg, detail: entry.err?.message ?? entry.message ?? "" });
          }
        }
        done();
      },
    });
    t = await startTestApp(dialect, {
      env: {
        OPENAI_BASE_URL: model.url,
        AGENT_MODEL: "openai/test-model",
        TASK_RETRY_BASE_MS: "50",
        WEBHOOK_ALLOW_PRIVATE: "true",
        // The owner opens a stream per workspace, 24 in a few seconds; a deleted workspace's stream ends at the next
        // sweep (5 s), so some still count against the owner's cap.
        MAX_STREAMS_PER_USER: "100",
      },
      logger: { level: "warn", stream },
      events: { webhooks: { sweepMs: 100, retryDelaysMs: [20, 20, 20], timeoutMs: 2_000 } },
    });
    owner = await registerUser(t.api, "owner");
  });
  afterAll(async () => {
    await t?.close();
    await model?.close();
    await receiver?.close();
  });
  afterEach(async () => {
    // Healthy afterwards: a new workspace's agent still gets its work done, and nothing was logged meanwhile.
    model.routeBy(undefined);
    model.setDefault({ text: "All done." });
    const ws = await newWorkspace();
    const agent = await newAgent(ws);
    const issue = await assign(ws, agent.id);
    await eventually(async () => (await taskOf(ws, issue.id))?.status === "succeeded", "a task after the races");
    expect(logged.splice(0)).toEqual([]);
  });

  async function newWorkspace(): Promise<string> {
    const created = await t.api.post("workspaces/", { name: "Racing" }, auth());
    expect(created.status).toBe(201);
    return created.body.id;
  }

  async function newAgent(ws: string, fields: Record<string, unknown> = {}) {
    const created = await t.api.post(`workspaces/${ws}/agents/`, { name: "Bee", ...fields }, auth());
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body;
  }

  /** A new issue assigned to the agent: its task is queued in the same transaction. */
  async function assign(ws: string, agentId: string, fields: Record<string, unknown> = {}) {
    const created = await t.api.post(
      `workspaces/${ws}/issues/`,
      { title: "Work it", assignee_type: "agent", assignee_id: agentId, ...fields },
      auth(),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body;
  }

  async function taskOf(ws: string, issueId: string) {
    const tasks = await t.api.get(`workspaces/${ws}/issues/${issueId}/tasks`, auth());
    return tasks.status === 200 ? tasks.body[0] : undefined;
  }

  /** Rows still there of the workspace, by table (empty when nothing is left). */
  async function leftOf(ws: string): Promise<Record<string, number>> {
    const left: Record<string, number> = {};
    for (const table of WORKSPACE_TABLES) {
      const rows = await t.db.selectFrom(table).select("workspace_id").where("workspace_id", "=", ws).execute();
      if (rows.length > 0) left[table] = rows.length;
    }
    return left;
  }

  /** Run events whose run is gone: there must never be any. */
  const strayRunEvents = async () =>
    (
      await t.db
        .selectFrom("run_events")
        .leftJoin("runs", "runs.id", "run_events.run_id")
        .select("run_events.run_id")
        .where("runs.id", "is", null)
        .execute()
    ).length;

  /** `round` side-by-side deletes, each sent `DELAYS_MS[n]` after its work was started. */
  async function rounds<T>(count: number, race: (delayMs: number, index: number) => Promise<T>): Promise<T[]> {
    const results: T[] = [];
    for (let start = 0; start < count; start += SIDE_BY_SIDE) {
      const batch = Array.from({ length: Math.min(SIDE_BY_SIDE, count - start) }, (_, offset) => start + offset);
      results.push(...(await Promise.all(batch.map((index) => race(DELAYS_MS[index % DELAYS_MS.length]!, index)))));
    }
    return results;
  }

  it("a workspace deleted while its agent works and its events are read answers 204 every time, and takes all of it along", async () => {
    model.setDefault({ text: Array.from({ length: 12 }, (_, word) => `word${word} `), chunkDelayMs: 1 });
    const readers = new AbortController();
    const deleted = await rounds(24, async (delayMs) => {
      const ws = await newWorkspace();
      const agent = await newAgent(ws);
      const stream = await fetch(`${t.url}/api/v1/workspaces/${ws}/events/stream`, {
        headers: { authorization: `Bearer ${owner.token}` },
        signal: readers.signal,
      });
      expect(stream.status).toBe(200);
      void stream.text().catch(() => {});
      await assign(ws, agent.id);
      await sleep(delayMs);
      const response = await t.api.delete(`workspaces/${ws}`, auth());
      return { ws, status: response.status, detail: response.body };
    });
    readers.abort();
    expect(deleted.filter((each) => each.status !== 204)).toEqual([]);
    for (const { ws } of deleted) expect(await leftOf(ws)).toEqual({});
    expect(await strayRunEvents()).toBe(0);
  });

  it("a task running for a workspace as it is deleted stops at once", async () => {
    // The model never finishes: only the worker stopping the run ends its request.
    model.setDefault({ stall: true, text: "Thinking" });
    const before = model.requests.length;
    const ws = await newWorkspace();
    const agent = await newAgent(ws);
    await assign(ws, agent.id);
    const request = await eventually(() => model.requests[before], "the run's model request");
    expect((await t.api.delete(`workspaces/${ws}`, auth())).status).toBe(204);
    await eventually(() => request.abortedByClient, "the run to stop", 5_000);
    expect(await leftOf(ws)).toEqual({});
  });

  it("a workspace with webhooks deleted while its events fan out and are delivered answers 204 every time", async () => {
    receiver.answer = (_request, before) => (before === 0 ? 500 : 200);
    const deleted = await rounds(32, async (delayMs, index) => {
      const ws = await newWorkspace();
      const hook = await t.api.post(`workspaces/${ws}/webhooks`, { url: `${receiver.url}/ws-${index}` }, auth());
      expect(hook.status).toBe(201);
      await Promise.all(
        Array.from({ length: 3 }, (_, n) => t.api.post(`workspaces/${ws}/issues/`, { title: `Issue ${n}` }, auth())),
      );
      await sleep(delayMs);
      const response = await t.api.delete(`workspaces/${ws}`, auth());
      return { ws, status: response.status, detail: response.body };
    });
    receiver.answer = () => 200;
    expect(deleted.filter((each) => each.status !== 204)).toEqual([]);
    for (const { ws } of deleted) expect(await leftOf(ws)).toEqual({});
  });

  it("an agent deleted while it works answers 204 every time; its tasks, runs and run events go with it", async () => {
    model.setDefault({ text: Array.from({ length: 12 }, (_, word) => `word${word} `), chunkDelayMs: 1 });
    const ws = await newWorkspace();
    const deleted = await rounds(24, async (delayMs) => {
      const agent = await newAgent(ws);
      await assign(ws, agent.id);
      await sleep(delayMs);
      const response = await t.api.delete(`workspaces/${ws}/agents/${agent.id}`, auth());
      return { agentId: agent.id, status: response.status, detail: response.body };
    });
    expect(deleted.filter((each) => each.status !== 204)).toEqual([]);
    const agents = deleted.map((each) => each.agentId);
    for (const table of ["tasks", "runs", "approvals", "agent_live_runs"] as const) {
      expect(await t.db.selectFrom(table).select("id").where("agent_id", "in", agents).execute()).toEqual([]);
    }
    expect(await strayRunEvents()).toBe(0);
  });

  it("an issue deleted while its agent works answers 204 every time; its task ends cancelled, its run closed", async () => {
    model.setDefault({ text: Array.from({ length: 12 }, (_, word) => `word${word} `), chunkDelayMs: 1 });
    const ws = await newWorkspace();
    const deleted = await rounds(24, async (delayMs) => {
      const agent = await newAgent(ws);
      const issue = await assign(ws, agent.id);
      await sleep(delayMs);
      const response = await t.api.delete(`workspaces/${ws}/issues/${issue.id}`, auth());
      return { issueId: issue.id, status: response.status, detail: response.body };
    });
    expect(deleted.filter((each) => each.status !== 204)).toEqual([]);
    const issues = deleted.map((each) => each.issueId);
    const open = () =>
      t.db
        .selectFrom("tasks")
        .select(["id", "status"])
        .where("issue_id", "in", issues)
        .where("status", "in", ["queued", "running", "waiting_approval"])
        .execute();
    await eventually(async () => (await open()).length === 0, "every task of a deleted issue to end");
    const runs = () =>
      t.db
        .selectFrom("runs")
        .select(["id", "status"])
        .where("issue_id", "in", issues)
        .where("status", "in", ["running", "waiting_approval"])
        .execute();
    await eventually(async () => (await runs()).length === 0, "every run of a deleted issue to end");
  });

  it("a project or the agent's owner removed while the agent works answers 204; the work goes on", async () => {
    model.setDefault({ text: Array.from({ length: 12 }, (_, word) => `word${word} `), chunkDelayMs: 1 });
    const ws = await newWorkspace();
    const results = await rounds(16, async (delayMs, index) => {
      const project = (await t.api.post(`workspaces/${ws}/projects/`, { title: `P${index}` }, auth())).body;
      const member = await registerUser(t.api, "agent-owner");
      await t.api.post(`workspaces/${ws}/members`, { user_id: member.user.id }, auth());
      const agent = await newAgent(ws, { owner_type: "member", owner_id: member.user.id });
      const issue = await assign(ws, agent.id, { project_id: project.id });
      await sleep(delayMs);
      const [projectGone, memberGone] = await Promise.all([
        t.api.delete(`workspaces/${ws}/projects/${project.id}`, auth()),
        t.api.delete(`workspaces/${ws}/members/${member.user.id}`, auth()),
      ]);
      return { issueId: issue.id, statuses: [projectGone.status, memberGone.status] };
    });
    expect(results.map((each) => each.statuses)).toEqual(results.map(() => [204, 204]));
    for (const { issueId } of results) {
      const task = await eventually(async () => {
        const found = await taskOf(ws, issueId);
        return found && ["succeeded", "failed", "cancelled"].includes(found.status) ? found : undefined;
      }, "the task to end");
      expect(task.status).toBe("succeeded");
      expect((await t.api.get(`workspaces/${ws}/issues/${issueId}`, auth())).body.project_id).toBeNull();
    }
  });

  it("a webhook deleted while its deliveries fail and are retried answers 204 every time", async () => {
    receiver.answer = () => 500;
    const ws = await newWorkspace();
    const deleted = await rounds(24, async (delayMs, index) => {
      const hook = (await t.api.post(`workspaces/${ws}/webhooks`, { url: `${receiver.url}/hook-${index}` }, auth()))
        .body;
      await t.api.post(`workspaces/${ws}/issues/`, { title: `For hook ${index}` }, auth());
      await eventually(() => receiver.to(`/hook-${index}`).length > 0, "a first delivery");
      await sleep(delayMs);
      const response = await t.api.delete(`workspaces/${ws}/webhooks/${hook.id}`, auth());
      return { hookId: hook.id, status: response.status, detail: response.body };
    });
    receiver.answer = () => 200;
    expect(deleted.filter((each) => each.status !== 204)).toEqual([]);
    const hooks = deleted.map((each) => each.hookId);
    expect(await t.db.selectFrom("webhook_deliveries").select("id").where("webhook_id", "in", hooks).execute()).toEqual(
      [],
    );
  });

  it("approving a held tool call while its issue is deleted loses no run event", async () => {
    // The first turn asks for a gated tool; the turn after the decision (if the run resumes) answers.
    model.routeBy((body) =>
      body?.messages?.some((message: { role: string }) => message.role === "tool")
        ? { text: Array.from({ length: 12 }, (_, word) => `word${word} `), chunkDelayMs: 1 }
        : { text: "Filing it.", toolCalls: [{ name: "create_issue", arguments: { title: "Follow-up" } }] },
    );
    const ws = await newWorkspace();
    const outcomes = await rounds(24, async (delayMs) => {
      const agent = await newAgent(ws, { runtime_config: { approval_required: ["create_issue"] } });
      const issue = await assign(ws, agent.id);
      const task = await eventually(async () => {
        const found = await taskOf(ws, issue.id);
        return found?.status === "waiting_approval" ? found : undefined;
      }, "the task to wait for approval");
      const [approval] = (await t.api.get(`workspaces/${ws}/approvals?status=pending`, auth())).body.filter(
        (each: { task_id: string }) => each.task_id === task.id,
      );
      const [approved, deleted] = await Promise.all([
        t.api.post(`workspaces/${ws}/approvals/${approval.id}`, { decision: "approve" }, auth()),
        sleep(delayMs).then(() => t.api.delete(`workspaces/${ws}/issues/${issue.id}`, auth())),
      ]);
      return { runId: task.run_id as string, statuses: [approved.status, deleted.status] };
    });
    for (const { statuses } of outcomes) {
      expect([200, 409]).toContain(statuses[0]);
      expect(statuses[1]).toBe(204);
    }
    for (const { runId } of outcomes) {
      const run = await eventually(async () => {
        const found = (await t.api.get(`workspaces/${ws}/runs/${runId}`, auth())).body;
        return ["running", "waiting_approval"].includes(found.status) ? undefined : found;
      }, "the run to end");
      // Cancelled with its issue, unless the resumed run was quicker than the deletion.
      expect(["cancelled", "succeeded"]).toContain(run.status);
      // Every event the run wrote is kept, numbered without a gap, ending with its one last event.
      const response = await fetch(`${t.url}/api/v1/workspaces/${ws}/runs/${runId}/events`, {
        headers: { authorization: `Bearer ${owner.token}` },
      });
      const frames = parseEventStream(await response.text());
      expect(frames.map((frame) => frame.id)).toEqual(frames.map((_, index) => index + 1));
      const last = run.status === "cancelled" ? "RUN_ERROR" : "RUN_FINISHED";
      expect(frames.filter((frame) => ["RUN_FINISHED", "RUN_ERROR"].includes(frame.event))).toEqual([
        expect.objectContaining({ event: last }),
      ]);
      expect(frames.at(-1)?.event).toBe(last);
    }
  });

  it("a run's event stream ends when its agent is deleted mid-run", async () => {
    model.setDefault({ stall: true, text: "Thinking" });
    const ws = await newWorkspace();
    const agent = await newAgent(ws);
    const before = model.requests.length;
    const issue = await assign(ws, agent.id);
    await eventually(() => model.requests[before], "the run's model request");
    const { run_id: runId } = await taskOf(ws, issue.id);
    const response = await fetch(`${t.url}/api/v1/workspaces/${ws}/runs/${runId}/events`, {
      headers: { authorization: `Bearer ${owner.token}` },
    });
    expect(response.status).toBe(200);
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes("RUN_STARTED")) text += (await reader.read()).value ?? "";
    expect((await t.api.delete(`workspaces/${ws}/agents/${agent.id}`, auth())).status).toBe(204);
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += chunk.value;
    expect(parseEventStream(text)[0]?.event).toBe("RUN_STARTED");
  });

  it("changes written to a workspace as it is deleted answer as before or after it, and the delete 204", async () => {
    model.setDefault({ text: "Noted." });
    const raced = await rounds(24, async (delayMs, index) => {
      const ws = await newWorkspace();
      const agent = await newAgent(ws);
      const issue = await assign(ws, agent.id);
      const hook = (await t.api.post(`workspaces/${ws}/webhooks`, { url: `${receiver.url}/w-${index}` }, auth())).body;
      const [deleted, ...written] = await Promise.all([
        sleep(delayMs).then(() => t.api.delete(`workspaces/${ws}`, auth())),
        t.api.patch(`workspaces/${ws}/agents/${agent.id}`, { description: "Busy" }, auth()),
        t.api.post(`workspaces/${ws}/issues/${issue.id}/comments`, { content: "One more thing" }, auth()),
        t.api.patch(`workspaces/${ws}/issues/${issue.id}`, { priority: "urgent" }, auth()),
        t.api.post(`workspaces/${ws}/labels`, { name: `label-${index}` }, auth()),
        t.api.patch(`workspaces/${ws}/webhooks/${hook.id}`, { enabled: false }, auth()),
        t.api.post(`workspaces/${ws}/projects/`, { title: "Later" }, auth()),
        t.api.post(`workspaces/${ws}/issues/${issue.id}/tasks`, { agent_id: agent.id }, auth()),
      ]);
      return { ws, deleted: deleted.status, written: written.map((response) => response.status) };
    });
    expect(raced.filter((each) => each.deleted !== 204)).toEqual([]);
    // Before the deletion: done; after it: the workspace (or, to its guard, the membership) is gone.
    const answers = new Set(raced.flatMap((each) => each.written));
    expect([...answers].filter((status) => ![200, 201, 403, 404].includes(status))).toEqual([]);
    for (const { ws } of raced) expect(await leftOf(ws)).toEqual({});
  });
});
