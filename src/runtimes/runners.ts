// Runners and the runtimes each offers, in the database every process shares. A runner is online while it calls (any
// runner call renews `last_seen_at`), offline after RUNNER_OFFLINE_MS of silence or at once on deregister; its
// runtimes follow it (and one its last registration left out is offline). Every change of a runtime's status is a
// `runtime.online` or `runtime.offline` event, written with the change.
import { type ExpressionBuilder, sql } from "kysely";
import type { Page } from "../api/pagination.ts";
import { inWorkspace } from "../api/workspace-transaction.ts";
import { type Db, isPostgres } from "../db/index.ts";
import { holdWorkspace } from "../db/lock-order.ts";
import type { Database, RunnersTable, RuntimesTable } from "../db/schema.ts";
import { fromJson, indexedValue, isId, newId, now, timestampAt, toJson } from "../db/values.ts";
import { appendEvent } from "../events/append.ts";
import { notFound } from "../http/errors.ts";
import { announce } from "../work/signals.ts";
import type { RegisterInput, Runner, RunnerStatus, Runtime, RuntimeKind, RuntimeListQuery } from "./schemas.ts";

/** A runner's tasks are held under this lease owner. */
export const leaseOwnerOf = (runnerId: string): string => `runner:${runnerId}`;

/** How long a renewal of `last_seen_at` is skipped after the last one: a busy runner calls many times a second. */
const SEEN_PRECISION_MS = 1_000;

export const toRunner = (row: RunnersTable): Runner => ({
  id: row.id,
  workspace_id: row.workspace_id,
  name: row.name,
  host: row.host,
  version: row.version,
  status: row.status as RunnerStatus,
  last_seen_at: row.last_seen_at,
  created_at: row.created_at,
});

type RuntimeRow = RuntimesTable & { last_seen_at: string; running_tasks: number | string | null };

export const toRuntime = (row: RuntimeRow): Runtime => ({
  id: row.id,
  workspace_id: row.workspace_id,
  runner_id: row.runner_id,
  name: row.name,
  kind: row.kind as RuntimeKind,
  version: row.version,
  tags: fromJson<string[]>(row.tags, []),
  status: row.status as RunnerStatus,
  max_concurrent_tasks: Number(row.max_concurrent_tasks),
  running_tasks: Number(row.running_tasks ?? 0),
  last_seen_at: row.last_seen_at,
  created_at: row.created_at,
});

/** The number of tasks the runtime runs, as the column `running_tasks` of a query on runtimes. */
export const runningTasksOfRuntime = (eb: ExpressionBuilder<Database, "runtimes">) =>
  eb
    .selectFrom("tasks")
    .select(eb.fn.countAll<number>().as("count"))
    .whereRef("tasks.runtime_id", "=", "runtimes.id")
    .where("tasks.status", "=", "running")
    .as("running_tasks");

/** Runtimes with their runner's last_seen_at and the number of tasks each runs. */
function runtimeRows(db: Db) {
  return db
    .selectFrom("runtimes")
    .innerJoin("runners", "runners.id", "runtimes.runner_id")
    .selectAll("runtimes")
    .select("runners.last_seen_at")
    .select(runningTasksOfRuntime);
}

async function runtimeEvent(trx: Db, runtime: Runtime, status: RunnerStatus): Promise<void> {
  await appendEvent(trx, {
    workspaceId: runtime.workspace_id,
    type: status === "online" ? "runtime.online" : "runtime.offline",
    entityType: "runtime",
    entityId: runtime.id,
    actor: null,
    data: { ...runtime, status },
  });
}

/**
 * `POST runner/register`: the runner by its own `runner_id` (created the first time), its runtimes by name (ids kept
 * stable), online; a runtime it no longer lists goes offline.
 */
export async function registerRunner(
  db: Db,
  workspaceId: string,
  input: RegisterInput,
): Promise<{ runner: Runner; runtimes: Runtime[] }> {
  const ids = await inWorkspace(db, workspaceId, async (trx) => {
    const at = now();
    const runner = await trx
      .insertInto("runners")
      .values({
        id: newId(),
        workspace_id: workspaceId,
        runner_key: input.runner_id,
        name: input.name,
        host: input.host ?? null,
        version: input.version,
        status: "online",
        last_seen_at: at,
        created_at: at,
      })
      .onConflict((conflict) =>
        conflict.columns(["workspace_id", "runner_key"]).doUpdateSet({
          name: input.name,
          host: input.host ?? null,
          version: input.version,
          status: "online",
          last_seen_at: at,
        }),
      )
      .returningAll()
      .executeTakeFirstOrThrow();
    const before = await trx
      .selectFrom("runtimes")
      .selectAll()
      .where("runner_id", "=", runner.id)
      .$if(isPostgres(trx), (query) => query.forUpdate())
      .execute();
    const byName = new Map(before.map((row) => [row.name, row]));
    const listed = new Set(input.runtimes.map((runtime) => runtime.name));
    const changed: { id: string; status: RunnerStatus }[] = [];
    for (const runtime of input.runtimes) {
      const existing = byName.get(runtime.name);
      const fields = {
        kind: runtime.kind,
        version: runtime.version ?? null,
        tags: toJson(runtime.tags),
        status: "online" as const,
        offered: 1 as const,
        max_concurrent_tasks: runtime.max_concurrent_tasks,
      };
      if (existing) {
        await trx.updateTable("runtimes").set(fields).where("id", "=", existing.id).execute();
        if (existing.status !== "online") changed.push({ id: existing.id, status: "online" });
      } else {
        const id = newId();
        await trx
          .insertInto("runtimes")
          .values({
            id,
            workspace_id: workspaceId,
            runner_id: runner.id,
            name: runtime.name,
            created_at: at,
            ...fields,
          })
          .execute();
        changed.push({ id, status: "online" });
      }
    }
    for (const row of before) {
      if (listed.has(row.name)) continue;
      await trx.updateTable("runtimes").set({ offered: 0, status: "offline" }).where("id", "=", row.id).execute();
      if (row.status === "online") changed.push({ id: row.id, status: "offline" });
    }
    await announceChanges(trx, changed);
    return runner.id;
  });
  return { runner: await getRunnerRow(db, ids), runtimes: await runtimesOfRunner(db, ids) };
}

/** Events for runtimes whose status changed, read as they are now; new claims may be possible. */
async function announceChanges(trx: Db, changed: { id: string; status: RunnerStatus }[]): Promise<void> {
  if (changed.length === 0) return;
  const rows = await runtimeRows(trx)
    .where(
      "runtimes.id",
      "in",
      changed.map((change) => change.id),
    )
    .execute();
  const byId = new Map(rows.map((row) => [row.id, toRuntime(row)]));
  for (const change of changed) {
    const runtime = byId.get(change.id);
    if (runtime) await runtimeEvent(trx, runtime, change.status);
  }
  await announce(trx, { kind: "tasks", runnersOnly: true });
}

async function getRunnerRow(db: Db, runnerId: string): Promise<Runner> {
  const row = await db.selectFrom("runners").selectAll().where("id", "=", runnerId).executeTakeFirst();
  if (!row) throw notFound("Runner");
  return toRunner(row);
}

export async function runtimesOfRunner(db: Db, runnerId: string): Promise<Runtime[]> {
  const rows = await runtimeRows(db)
    .where("runtimes.runner_id", "=", runnerId)
    .where("runtimes.offered", "=", 1)
    .orderBy("runtimes.name")
    .execute();
  return rows.map(toRuntime);
}

/**
 * A runner call: the runner (by its own id) is seen now, and back online if it had gone offline. 404 for a runner
 * that never registered (or was deleted): it registers again.
 */
export async function seeRunner(
  db: Db,
  workspaceId: string,
  runnerKey: string,
  /** The runner as read with the caller's token just before, when it was. */
  known?: RunnersTable,
): Promise<RunnersTable> {
  const runner =
    known?.runner_key === runnerKey && known.workspace_id === workspaceId
      ? known
      : await db
          .selectFrom("runners")
          .selectAll()
          .where("workspace_id", "=", workspaceId)
          .where("runner_key", "=", runnerKey)
          .executeTakeFirst();
  if (!runner) throw notFound("Runner (register first)");
  const at = now();
  if (runner.status === "online") {
    if (Date.parse(`${runner.last_seen_at}Z`) > Date.now() - SEEN_PRECISION_MS) return runner;
    await db.updateTable("runners").set({ last_seen_at: at }).where("id", "=", runner.id).execute();
    return { ...runner, last_seen_at: at };
  }
  await db.transaction().execute(async (trx) => {
    if (!(await holdWorkspace(trx, workspaceId))) return;
    const back = await trx
      .updateTable("runners")
      .set({ status: "online", last_seen_at: at })
      .where("id", "=", runner.id)
      .where("status", "=", "offline")
      .executeTakeFirst();
    if (Number(back.numUpdatedRows) === 0) return;
    await setRuntimesStatus(trx, runner.id, "online");
  });
  return { ...runner, status: "online", last_seen_at: at };
}

/** The runner's offered runtimes to `status`, with an event for each that changed. */
async function setRuntimesStatus(trx: Db, runnerId: string, status: RunnerStatus): Promise<void> {
  const changed = await trx
    .updateTable("runtimes")
    .set({ status })
    .where("runner_id", "=", runnerId)
    .where("offered", "=", 1)
    .where("status", "!=", status)
    .returning("id")
    .execute();
  await announceChanges(
    trx,
    changed.map((row) => ({ id: row.id, status })),
  );
}

/** `POST runner/deregister`: offline at once. */
export async function deregisterRunner(db: Db, workspaceId: string, runnerKey: string): Promise<void> {
  await inWorkspace(db, workspaceId, async (trx) => {
    const runner = await trx
      .updateTable("runners")
      .set({ status: "offline", last_seen_at: now() })
      .where("workspace_id", "=", workspaceId)
      .where("runner_key", "=", runnerKey)
      .returning("id")
      .executeTakeFirst();
    if (!runner) throw notFound("Runner (register first)");
    await setRuntimesStatus(trx, runner.id, "offline");
  });
}

/** Runners silent for `offlineMs` go offline, with their runtimes; returns how many did. Safe in every process. */
export async function markSilentRunnersOffline(db: Db, offlineMs: number): Promise<number> {
  const cutoff = timestampAt(Date.now() - offlineMs);
  const silent = await db
    .selectFrom("runners")
    .select(["id", "workspace_id"])
    .where("status", "=", indexedValue("online" as const))
    .where("last_seen_at", "<", cutoff)
    .execute();
  let count = 0;
  for (const runner of silent) {
    const went = await db.transaction().execute(async (trx) => {
      if (!(await holdWorkspace(trx, runner.workspace_id))) return false;
      // Whichever process gets here first turns it offline; the others find it done.
      const result = await trx
        .updateTable("runners")
        .set({ status: "offline" })
        .where("id", "=", runner.id)
        .where("status", "=", "online")
        .where("last_seen_at", "<", cutoff)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) return false;
      await setRuntimesStatus(trx, runner.id, "offline");
      return true;
    });
    if (went) count++;
  }
  return count;
}

export async function listRunners(
  db: Db,
  workspaceId: string,
  query: Page & { status?: RunnerStatus[] | undefined },
): Promise<Runner[]> {
  const rows = await db
    .selectFrom("runners")
    .selectAll()
    .where("workspace_id", "=", workspaceId)
    .$if(Boolean(query.status?.length), (select) => select.where("status", "in", query.status!))
    .orderBy("created_at")
    .orderBy("id")
    .limit(query.limit)
    .offset(query.offset)
    .execute();
  return rows.map(toRunner);
}

/** Runtimes of the workspace (those their runner still offers), by runner and name. */
export async function listRuntimes(db: Db, workspaceId: string, query: RuntimeListQuery): Promise<Runtime[]> {
  let select = runtimeRows(db).where("runtimes.workspace_id", "=", workspaceId).where("runtimes.offered", "=", 1);
  if (query.status?.length) select = select.where("runtimes.status", "in", query.status);
  if (query.kind?.length) select = select.where("runtimes.kind", "in", query.kind);
  const tags = query.tag ?? [];
  // Tags are a JSON array of words: a quoted word appears in its text only as that element.
  for (const tag of tags) {
    const pattern = `%${JSON.stringify(tag).replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
    select = select.where(sql<boolean>`runtimes.tags like ${pattern} escape '\\'`);
  }
  const rows = await select
    .orderBy("runtimes.created_at")
    .orderBy("runtimes.name")
    .orderBy("runtimes.id")
    .limit(query.limit)
    .offset(query.offset)
    .execute();
  return rows.map(toRuntime);
}

/**
 * Admins delete a runner: its runtimes go with it, and the tasks it held go back to the queue (their leases end now;
 * the lease sweep takes them up).
 */
export async function deleteRunner(db: Db, workspaceId: string, runnerId: string): Promise<void> {
  await inWorkspace(db, workspaceId, async (trx) => {
    const runner = isId(runnerId)
      ? await trx
          .selectFrom("runners")
          .selectAll()
          .where("workspace_id", "=", workspaceId)
          .where("id", "=", runnerId)
          .executeTakeFirst()
      : undefined;
    if (!runner) throw notFound("Runner");
    await trx
      .updateTable("tasks")
      .set({ lease_expires_at: timestampAt(0) })
      .where("lease_owner", "=", leaseOwnerOf(runner.id))
      .execute();
    await setRuntimesStatus(trx, runner.id, "offline");
    await trx.deleteFrom("runners").where("id", "=", runner.id).execute();
  });
}
