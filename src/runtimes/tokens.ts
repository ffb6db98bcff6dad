// Runner tokens (admins): the secret is returned once at creation and kept only as its hash. Revoking deletes it, so
// the runner's next call is a 401; the tasks it held go back to the queue when their leases end.
import type { Actor } from "../api/access.ts";
import type { Page } from "../api/pagination.ts";
import { listInWorkspace } from "../api/workspace-rows.ts";
import { inWorkspace } from "../api/workspace-transaction.ts";
import { generateRunnerToken } from "../auth/runner-credentials.ts";
import type { Db } from "../db/index.ts";
import type { RunnerTokensTable } from "../db/schema.ts";
import { isId, newId, now } from "../db/values.ts";
import { insertCreated, recordActivity } from "../events/activity.ts";
import { notFound } from "../http/errors.ts";
import { announce } from "../work/signals.ts";
import type { RunnerToken } from "./schemas.ts";

const toRunnerToken = (row: RunnerTokensTable): RunnerToken => ({
  id: row.id,
  name: row.name,
  created_at: row.created_at,
});

export async function createRunnerToken(
  db: Db,
  workspaceId: string,
  name: string,
  actor: Actor,
): Promise<RunnerToken & { token: string }> {
  const { token, hash } = generateRunnerToken();
  const row: RunnerTokensTable = {
    id: newId(),
    workspace_id: workspaceId,
    name,
    token_hash: hash,
    created_by: actor.id,
    created_at: now(),
  };
  await inWorkspace(db, workspaceId, async (trx) => {
    await insertCreated(trx, "runner_tokens", row, {
      workspaceId,
      entityType: "runner_token",
      actor,
      details: { name },
    });
  });
  return { ...toRunnerToken(row), token };
}

export async function listRunnerTokens(db: Db, workspaceId: string, page: Page): Promise<RunnerToken[]> {
  return (await listInWorkspace(db, "runner_tokens", workspaceId, page)).map(toRunnerToken);
}

export async function revokeRunnerToken(db: Db, workspaceId: string, tokenId: string, actor: Actor): Promise<void> {
  await inWorkspace(db, workspaceId, async (trx) => {
    const row = isId(tokenId)
      ? await trx
          .deleteFrom("runner_tokens")
          .where("workspace_id", "=", workspaceId)
          .where("id", "=", tokenId)
          .returning(["id", "name"])
          .executeTakeFirst()
      : undefined;
    if (!row) throw notFound("Runner token");
    await recordActivity(trx, {
      workspaceId,
      entityType: "runner_token",
      entityId: row.id,
      actor,
      action: "runner_token.revoked",
      details: { name: row.name },
    });
    // Its runners' open long polls wake and end with a 401.
    await announce(trx, { kind: "tasks", runnersOnly: true });
  });
}
