// Writing inbox items: a feature adds them inside the transaction of the change that causes them (none without the
// change, none twice), for the workspace's members it names, never for whoever made the change. Each person's unread
// count (inbox_unread) changes in the same transaction; a signal per item tells the streams of every process.
//
// Lock order, the same in every transaction that touches the inbox: a person's counters first (by user, then
// workspace), then items, then (at commit) the workspace's event counter. So adding, reading and reading all cannot
// deadlock one another.
import { sql } from "kysely";
import type { InboxKind } from "../db/enums.ts";
import { type Db, isPostgres } from "../db/index.ts";
import type { InboxItemsTable } from "../db/schema.ts";
import { sendSignal } from "../db/signals.ts";
import { newId, now } from "../db/values.ts";

/**
 * The channel of a person's inbox changes: `<user id>:<item id>` for a new item, `<user id>:read:<workspace id>` when
 * some of their items in that workspace were read (by them in another tab, or for everyone by a decision).
 */
export const INBOX_CHANNEL = "inbox_items";

const TITLE_CHARS = 300;
const BODY_CHARS = 2_000;

/** Who made a change: a member (a user id) or an agent. */
export interface InboxActor {
  type: string;
  id: string;
}

/** One thing to tell people, the same for each of them. */
export interface InboxNotice {
  workspaceId: string;
  kind: InboxKind;
  issueId?: string | null;
  taskId?: string | null;
  /** The approval or question it asks about: deciding that (markSourceRead) reads the items for everyone. */
  sourceId?: string | null;
  title: string;
  body?: string | null;
  /** Who caused it: never told. Null for the platform's own changes. */
  actor?: InboxActor | null;
}

/** Who is told: these users, every member of the workspace, or its admins and owners. */
export type Recipients = readonly string[] | "members" | "admins";

/**
 * Adds one item of `notice` for each recipient who is a member of its workspace, except its actor, inside `trx`
 * (which should be the transaction of the change). Returns how many were added.
 */
export async function addInboxItems(trx: Db, notice: InboxNotice, recipients: Recipients): Promise<number> {
  if (Array.isArray(recipients) && recipients.length === 0) return 0;
  // Items and their count change together, or not at all.
  if (!trx.isTransaction) return trx.transaction().execute((own) => addInboxItems(own, notice, recipients));
  let members = trx.selectFrom("members").select("user_id").where("workspace_id", "=", notice.workspaceId);
  if (recipients === "admins") members = members.where("role", "in", ["admin", "owner"]);
  else if (Array.isArray(recipients)) members = members.where("user_id", "in", [...new Set(recipients)]);
  const actorUser = notice.actor?.type === "member" ? notice.actor.id : undefined;
  const users = (await members.execute()).map((row) => row.user_id).filter((userId) => userId !== actorUser);
  if (users.length === 0) return 0;
  // Each person's counter row is locked in one order (see the top): sorted here, upserted in this order.
  users.sort();
  const createdAt = now();
  const rows: InboxItemsTable[] = users.map((userId) => ({
    id: newId(),
    user_id: userId,
    workspace_id: notice.workspaceId,
    kind: notice.kind,
    issue_id: notice.issueId ?? null,
    task_id: notice.taskId ?? null,
    source_id: notice.sourceId ?? null,
    title: clip(notice.title, TITLE_CHARS),
    body: notice.body == null ? null : clip(notice.body, BODY_CHARS),
    created_at: createdAt,
    read_at: null,
  }));
  await changeUnread(
    trx,
    users.map((userId) => ({ userId, workspaceId: notice.workspaceId, by: 1 })),
  );
  await trx.insertInto("inbox_items").values(rows).execute();
  await announce(
    trx,
    rows.map((row) => `${row.user_id}:${row.id}`),
  );
  return rows.length;
}

/**
 * The approval or question `sourceId` was decided: its items are read, for everyone (the decider included). Inside
 * the decision's transaction.
 */
export async function markSourceRead(trx: Db, sourceId: string): Promise<void> {
  if (!trx.isTransaction) return trx.transaction().execute((own) => markSourceRead(own, sourceId));
  const unread = await trx
    .selectFrom("inbox_items")
    .select(["user_id", "workspace_id"])
    .where("source_id", "=", sourceId)
    .where("read_at", "is", null)
    .execute();
  if (unread.length === 0) return;
  const byPerson = new Map<string, { userId: string; workspaceId: string; by: number }>();
  for (const row of unread) byPerson.set(`${row.user_id}\n${row.workspace_id}`, { ...keyOf(row), by: 0 });
  await lockUnread(trx, [...byPerson.values()]);
  const read = await trx
    .updateTable("inbox_items")
    .set({ read_at: now() })
    .where("source_id", "=", sourceId)
    .where("read_at", "is", null)
    .returning(["user_id", "workspace_id"])
    .execute();
  for (const row of read) byPerson.get(`${row.user_id}\n${row.workspace_id}`)!.by -= 1;
  await changeUnread(
    trx,
    [...byPerson.values()].filter((change) => change.by !== 0),
  );
}

const keyOf = (row: { user_id: string; workspace_id: string }) => ({
  userId: row.user_id,
  workspaceId: row.workspace_id,
});

interface UnreadChange {
  userId: string;
  workspaceId: string;
  /** +n for items added, -n for items read. */
  by: number;
}

const byKey = (a: { userId: string; workspaceId: string }, b: { userId: string; workspaceId: string }) =>
  a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : a.workspaceId < b.workspaceId ? -1 : 1;

/** Takes the counters' row locks (PostgreSQL), in the one order, before the items they count are touched. */
export async function lockUnread(trx: Db, keys: Array<{ userId: string; workspaceId: string }>): Promise<void> {
  await changeUnread(
    trx,
    keys.map((key) => ({ ...key, by: 0 })),
  );
}

/** Adds `by` to each counter (creating it), in the one lock order. */
export async function changeUnread(trx: Db, changes: UnreadChange[]): Promise<void> {
  if (changes.length === 0) return;
  const rows = [...changes]
    .sort(byKey)
    .map((change) => ({ user_id: change.userId, workspace_id: change.workspaceId, unread: change.by }));
  await trx
    .insertInto("inbox_unread")
    .values(rows)
    .onConflict((conflict) =>
      conflict
        .columns(["user_id", "workspace_id"])
        .doUpdateSet((eb) => ({ unread: eb("inbox_unread.unread", "+", eb.ref("excluded.unread")) })),
    )
    .execute();
  await announceRead(
    trx,
    changes.filter((change) => change.by < 0),
  );
}

/** Tells the streams of each person in `keys` that some of their items in that workspace were read. */
export function announceRead(trx: Db, keys: Array<{ userId: string; workspaceId: string }>): Promise<void> {
  return announce(
    trx,
    keys.map((key) => `${key.userId}:read:${key.workspaceId}`),
  );
}

/** Tells every process's streams, once (and only if) `trx` commits. */
async function announce(trx: Db, payloads: string[]): Promise<void> {
  if (payloads.length === 0) return;
  if (!isPostgres(trx)) {
    for (const payload of payloads) await sendSignal(trx, INBOX_CHANNEL, payload);
    return;
  }
  if (payloads.length === 1) return sendSignal(trx, INBOX_CHANNEL, payloads[0]!);
  await sql`select pg_notify(${INBOX_CHANNEL}::text, payload) from unnest(${payloads}::text[]) as payload`.execute(trx);
}

/** At most `max` characters, never cutting a character in two. */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text[max - 2] ?? "") ? max - 2 : max - 1;
  return `${text.slice(0, end)}…`;
}
