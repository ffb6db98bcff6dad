// A person reading their inbox: the list (newest first), the unread count, reading one item or all. Only items of
// workspaces they are still a member of count; a caller with an API key sees only its workspace's.
import type { Selectable } from "kysely";
import type { Page } from "../api/pagination.ts";
import type { Db } from "../db/index.ts";
import type { InboxItemsTable } from "../db/schema.ts";
import { isId, now } from "../db/values.ts";
import { forbidden, notFound } from "../http/errors.ts";
import { announceRead, changeUnread, lockUnread } from "./items.ts";

/** Whose inbox, and the one workspace an API key confines it to. */
export interface InboxOwner {
  userId: string;
  boundWorkspaceId?: string | undefined;
  /** The API key read with, if any (its stream ends when the key is revoked). */
  apiKeyId?: string | undefined;
}

export type InboxItem = Omit<Selectable<InboxItemsTable>, "user_id" | "source_id">;

const ITEM_COLUMNS = [
  "id",
  "kind",
  "workspace_id",
  "issue_id",
  "task_id",
  "title",
  "body",
  "created_at",
  "read_at",
] as const;

/**
 * The workspaces whose items the owner sees: those they are a member of (and the key's, for an API key), narrowed to
 * `workspaceId` when given. 403 for a workspace asked about that they may not see.
 */
async function visibleWorkspaces(db: Db, owner: InboxOwner, workspaceId?: string): Promise<string[]> {
  const wanted = workspaceId ?? owner.boundWorkspaceId;
  if (workspaceId !== undefined && owner.boundWorkspaceId !== undefined && workspaceId !== owner.boundWorkspaceId) {
    throw forbidden();
  }
  if (wanted !== undefined && !isId(wanted)) throw forbidden();
  const rows = await db
    .selectFrom("members")
    .select("workspace_id")
    .where("user_id", "=", owner.userId)
    .$if(wanted !== undefined, (query) => query.where("workspace_id", "=", wanted!))
    .execute();
  if (workspaceId !== undefined && rows.length === 0) throw forbidden();
  return rows.map((row) => row.workspace_id);
}

export async function listInbox(
  db: Db,
  owner: InboxOwner,
  filter: { unread?: boolean | undefined; workspaceId?: string | undefined },
  page: Page,
): Promise<InboxItem[]> {
  const workspaces = await visibleWorkspaces(db, owner, filter.workspaceId);
  if (workspaces.length === 0) return [];
  return db
    .selectFrom("inbox_items")
    .select(ITEM_COLUMNS)
    .where("user_id", "=", owner.userId)
    .$if(filter.unread === true, (query) => query.where("read_at", "is", null))
    .$if(filter.unread === false, (query) => query.where("read_at", "is not", null))
    .where("workspace_id", "in", workspaces)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

/** How many of the owner's items are unread: a few counter rows, however many items there are. */
export async function countUnread(db: Db, owner: InboxOwner, workspaceId?: string): Promise<number> {
  const row = await db
    .selectFrom("inbox_unread")
    .innerJoin("members", (join) =>
      join
        .onRef("members.workspace_id", "=", "inbox_unread.workspace_id")
        .onRef("members.user_id", "=", "inbox_unread.user_id"),
    )
    .select((eb) => eb.fn.sum<number | string | null>("inbox_unread.unread").as("unread"))
    .where("inbox_unread.user_id", "=", owner.userId)
    .where("inbox_unread.unread", ">", 0)
    .$if(owner.boundWorkspaceId !== undefined, (query) =>
      query.where("inbox_unread.workspace_id", "=", owner.boundWorkspaceId!),
    )
    .$if(workspaceId !== undefined, (query) => query.where("inbox_unread.workspace_id", "=", workspaceId!))
    .executeTakeFirst();
  return Number(row?.unread ?? 0);
}

/** Checks the filter of GET me/inbox/count as the list does (403 for a workspace the owner may not see). */
export async function checkWorkspaceFilter(db: Db, owner: InboxOwner, workspaceId: string): Promise<void> {
  await visibleWorkspaces(db, owner, workspaceId);
}

/** Reads one item (again reading it is fine); 404 for an item that is not the owner's to see. */
export async function readItem(db: Db, owner: InboxOwner, itemId: string): Promise<InboxItem> {
  return db.transaction().execute(async (trx) => {
    const item = await visibleItem(trx, owner, itemId);
    if (item.read_at !== null) return item;
    // The counter first, then the item: the one lock order (items.ts).
    await lockUnread(trx, [{ userId: owner.userId, workspaceId: item.workspace_id }]);
    const read_at = now();
    const read = await trx
      .updateTable("inbox_items")
      .set({ read_at })
      .where("id", "=", item.id)
      .where("read_at", "is", null)
      .returning(ITEM_COLUMNS)
      .executeTakeFirst();
    if (!read) return visibleItem(trx, owner, itemId);
    await changeUnread(trx, [{ userId: owner.userId, workspaceId: item.workspace_id, by: -1 }]);
    return read;
  });
}

async function visibleItem(db: Db, owner: InboxOwner, itemId: string): Promise<InboxItem> {
  const item = isId(itemId)
    ? await db
        .selectFrom("inbox_items")
        .innerJoin("members", (join) =>
          join
            .onRef("members.workspace_id", "=", "inbox_items.workspace_id")
            .onRef("members.user_id", "=", "inbox_items.user_id"),
        )
        .select(ITEM_COLUMNS.map((column) => `inbox_items.${column}` as const))
        .where("inbox_items.id", "=", itemId)
        .where("inbox_items.user_id", "=", owner.userId)
        .$if(owner.boundWorkspaceId !== undefined, (query) =>
          query.where("inbox_items.workspace_id", "=", owner.boundWorkspaceId!),
        )
        .executeTakeFirst()
    : undefined;
  if (!item) throw notFound("Inbox item");
  return item;
}

/** Reads every unread item of the owner (of one workspace, when given); returns how many it read. */
export async function readAll(db: Db, owner: InboxOwner, workspaceId?: string): Promise<number> {
  const workspaces = await visibleWorkspaces(db, owner, workspaceId);
  if (workspaces.length === 0) return 0;
  return db.transaction().execute(async (trx) => {
    const keys = workspaces.map((id) => ({ userId: owner.userId, workspaceId: id }));
    // The counters first (items.ts): an item added meanwhile either waits for them, and stays unread and counted, or
    // committed before, and is read here with the rest.
    await lockUnread(trx, keys);
    const read = await trx
      .updateTable("inbox_items")
      .set({ read_at: now() })
      .where("user_id", "=", owner.userId)
      .where("workspace_id", "in", workspaces)
      .where("read_at", "is", null)
      .executeTakeFirst();
    await trx
      .updateTable("inbox_unread")
      .set({ unread: 0 })
      .where("user_id", "=", owner.userId)
      .where("workspace_id", "in", workspaces)
      .execute();
    if (read.numUpdatedRows > 0n) await announceRead(trx, keys);
    return Number(read.numUpdatedRows);
  });
}
