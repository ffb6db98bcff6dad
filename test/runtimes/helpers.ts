// Shared set-up of the runtimes tests: a server with its worker and a model double (startWorkFixture), a runner
// token, and a small client of the runner API speaking exactly what the runner sends.
import { randomUUID } from "node:crypto";
import type { SqlDialect } from "../../src/db/index.ts";
import type { ApiResponse } from "../helpers/app.ts";
import { startWorkFixture, type WorkFixture, type WorkFixtureOptions } from "../work/helpers.ts";

export interface RuntimeFixture extends WorkFixture {
  /** A runner token of `ws`, made by its owner. */
  runnerToken: string;
  runnerTokenId: string;
}

export async function startRuntimeFixture(
  dialect: SqlDialect,
  options: WorkFixtureOptions = {},
): Promise<RuntimeFixture> {
  const f = await startWorkFixture(dialect, options);
  const created = await f.api.post(`workspaces/${f.ws}/runner-tokens`, { name: "laptop" }, { token: f.admin.token });
  if (created.status !== 201) throw new Error(`runner token: ${created.status} ${JSON.stringify(created.body)}`);
  return { ...f, runnerToken: created.body.token, runnerTokenId: created.body.id };
}

/** One runner as the runner API sees it: its runner_id on every call. */
export class FakeRunner {
  readonly runnerId = randomUUID();
  runtimes: { id: string; name: string; kind: string }[] = [];

  constructor(
    private readonly f: RuntimeFixture,
    private readonly token = f.runnerToken,
  ) {}

  call<T = any>(path: string, body: Record<string, unknown> = {}): Promise<ApiResponse<T>> {
    return this.f.api.post<T>(`runner/${path}`, { runner_id: this.runnerId, ...body }, { token: this.token });
  }

  async register(
    runtimes: { name: string; kind: string; tags?: string[]; max_concurrent_tasks?: number }[] = [
      { name: "sh", kind: "command" },
    ],
    name = "box",
  ) {
    const response = await this.call("register", { name, host: "box.local", version: "1.0.0", runtimes });
    if (response.status !== 200) throw new Error(`register: ${response.status} ${JSON.stringify(response.body)}`);
    this.runtimes = response.body.runtimes;
    return response.body;
  }

  runtimeId(name: string): string {
    const runtime = this.runtimes.find((each) => each.name === name);
    if (!runtime) throw new Error(`no runtime ${name}`);
    return runtime.id;
  }

  claim(body: Record<string, unknown> = {}) {
    return this.call("claim", { runtime_ids: this.runtimes.map((runtime) => runtime.id), ...body });
  }
}

/** The workspace's outbox events of `type`, oldest first, with data parsed. */
export async function outboxEvents(f: WorkFixture, type: string) {
  const rows = await f.t.db
    .selectFrom("events")
    .selectAll()
    .where("workspace_id", "=", f.ws)
    .where("type", "=", type)
    .orderBy("seq")
    .execute();
  return rows.map((row) => ({ ...row, data: JSON.parse(row.data) }));
}

/** An agent bound to runtimes by `select` (runtime_config.runtime). */
export async function createBoundAgent(
  f: WorkFixture,
  select: Record<string, unknown>[] = [{ kind: "command" }],
  fields: Record<string, unknown> = {},
) {
  const response = await f.api.post(
    `workspaces/${f.ws}/agents/`,
    { name: `Coder ${randomUUID().slice(0, 6)}`, ...fields, runtime_config: { runtime: { select } } },
    { token: f.owner.token },
  );
  if (response.status !== 201) throw new Error(`agent: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

/** An issue assigned to `agentId` (its task is queued at once). */
export async function assignIssue(f: WorkFixture, agentId: string, fields: Record<string, unknown> = {}) {
  const response = await f.api.post(
    `workspaces/${f.ws}/issues/`,
    { title: "Fix the login page", ...fields, assignee_type: "agent", assignee_id: agentId },
    { token: f.member.token },
  );
  if (response.status !== 201) throw new Error(`issue: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

/** Claims until `count` assignments came (each claim a long poll). */
export async function claimAll(runner: FakeRunner, count: number, body: Record<string, unknown> = {}) {
  const tasks: any[] = [];
  for (let round = 0; tasks.length < count && round < 50; round++) {
    const response = await runner.claim({ max_tasks: 20, wait_ms: 2000, ...body });
    if (response.status !== 200) throw new Error(`claim: ${response.status} ${JSON.stringify(response.body)}`);
    tasks.push(...response.body.tasks);
  }
  return tasks;
}
