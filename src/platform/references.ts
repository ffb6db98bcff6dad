// Checks that ids named in a request belong to this workspace (IDOR rule: another workspace's id is "not found").

import { getInWorkspace } from "../api/workspace-rows.ts";
import type { ActorType } from "../db/enums.ts";
import type { Db } from "../db/index.ts";
import { holds } from "../db/lock-order.ts";
import { isId } from "../db/values.ts";
import { invalid, notFound } from "../http/errors.ts";

/** A `member` is a user id with a membership here; an `agent` is an agent id of this workspace. */
export async function requireActorInWorkspace(db: Db, workspaceId: string, type: ActorType, id: string): Promise<void> {
  if (type === "member") {
    const member = isId(id)
      ? await db
          .selectFrom("members")
          .select("id")
          .where("workspace_id", "=", workspaceId)
          .where("user_id", "=", id)
          .executeTakeFirst()
      : undefined;
    if (!member) throw notFound("Member");
    return;
  }
  // An agent this transaction holds is of this workspace until it commits (an autopilot's fire holds its agent).
  if (holds(db, workspaceId, { agentId: id })) return;
  await getInWorkspace(db, "agents", workspaceId, id, "Agent");
}

interface ActorRef {
  type: ActorType | null;
  id: string | null;
}

/**
 * Applies a merge patch to a (type, id) pair such as assignee_type/assignee_id: both are set or both are null,
 * clearing one alone clears the other, and a newly named actor must be of this workspace.
 */
export async function patchActorRef(
  db: Db,
  workspaceId: string,
  field: "assignee" | "lead",
  before: ActorRef,
  patch: { type?: ActorType | null | undefined; id?: string | null | undefined },
): Promise<ActorRef> {
  let type = patch.type === undefined ? before.type : patch.type;
  let id = patch.id === undefined ? before.id : patch.id;
  if (patch.id === null && patch.type === undefined) type = null;
  if (patch.type === null && patch.id === undefined) id = null;
  if ((type === null) !== (id === null)) {
    throw invalid(["body", `${field}_${type === null ? "type" : "id"}`], `${field}_type and ${field}_id go together`);
  }
  const touched = patch.type !== undefined || patch.id !== undefined;
  if (touched && type !== null && id !== null) await requireActorInWorkspace(db, workspaceId, type, id);
  return { type, id };
}
