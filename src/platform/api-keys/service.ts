// Workspace API keys: the secret is returned once at creation; only its hash and prefix are kept.

import type { Actor } from "../../api/access.ts";
import { getInWorkspace, listInWorkspace } from "../../api/workspace-rows.ts";
import { inWorkspace } from "../../api/workspace-transaction.ts";
import { generateApiKey } from "../../auth/api-key-secrets.ts";
import { hasRole, type Membership } from "../../auth/membership.ts";
import type { Db } from "../../db/index.ts";
import type { ApiKeysTable } from "../../db/schema.ts";
import { newId, now } from "../../db/values.ts";
import { deleteRecorded, insertCreated } from "../../events/activity.ts";
import { forbidden } from "../../http/errors.ts";

type ApiKey = Omit<ApiKeysTable, "workspace_id" | "key_hash">;

const toApiKey = ({ workspace_id: _workspace, key_hash: _hash, ...row }: ApiKeysTable): ApiKey => row;

export async function createApiKey(
  db: Db,
  workspaceId: string,
  name: string,
  actor: Actor,
): Promise<ApiKey & { key: string }> {
  const { key, prefix, hash } = generateApiKey();
  const row: ApiKeysTable = {
    id: newId(),
    workspace_id: workspaceId,
    name,
    prefix,
    key_hash: hash,
    created_by: actor.id,
    created_at: now(),
    last_used_at: null,
  };
  await inWorkspace(db, workspaceId, async (trx) => {
    await insertCreated(trx, "api_keys", row, { workspaceId, entityType: "api_key", actor, details: { name, prefix } });
  });
  return { ...toApiKey(row), key };
}

export async function listApiKeys(db: Db, workspaceId: string, page: { limit: number; offset: number }) {
  return (await listInWorkspace(db, "api_keys", workspaceId, page)).map(toApiKey);
}

/** Deletes the key, so the next request that presents it is a 401. Admins revoke any key, others their own. */
export async function revokeApiKey(db: Db, by: Membership, keyId: string, actor: Actor): Promise<void> {
  await inWorkspace(db, by.workspaceId, async (trx) => {
    const row = await getInWorkspace(trx, "api_keys", by.workspaceId, keyId, "API key");
    if (row.created_by !== by.userId && !hasRole(by.role, "admin")) {
      throw forbidden("Only an admin or the key's creator can revoke it");
    }
    await deleteRecorded(trx, "api_keys", keyId, {
      workspaceId: by.workspaceId,
      entityType: "api_key",
      actor,
      action: "api_key.revoked",
      details: { name: row.name, prefix: row.prefix },
    });
  });
}
