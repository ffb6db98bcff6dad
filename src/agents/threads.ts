// Stored thread history: one agent_threads row per (scope, thread id), its messages in order.
// A request may carry only the new message or the whole history: messages are kept once, by message id.
import { sql } from "kysely";
import type { MessageRole } from "../db/enums.ts";
import { type Db, isPostgres } from "../db/index.ts";
import { fromJson, type JsonText, newId, now, toJson } from "../db/values.ts";
import type { ChatMessage, ToolCallRecord } from "./model.ts";

export interface ThreadMessage {
  id: string;
  message: ChatMessage;
}

export interface Thread {
  rowId: string;
  messages: ThreadMessage[];
  /** Sequence number of the last stored message (0 for none). */
  lastSeq: number;
}

const APPEND_ATTEMPTS = 3;

/** The stored thread, created empty on first use. */
export async function openThread(db: Db, scope: string, threadId: string, agentId: string | null): Promise<Thread> {
  if (isPostgres(db)) {
    const opened = await findOrCreateOnPostgres(db, scope, threadId, agentId);
    if (opened?.created) return { rowId: opened.id, messages: [], lastSeq: 0 };
    if (opened) return readThread(db, opened.id);
  }
  let row = await findThreadRow(db, scope, threadId);
  if (!row) {
    const at = now();
    const id = newId();
    try {
      await db
        .insertInto("agent_threads")
        .values({ id, scope, thread_id: threadId, agent_id: agentId, created_at: at, updated_at: at })
        .execute();
      return { rowId: id, messages: [], lastSeq: 0 };
    } catch (error) {
      // Another run created it at the same moment.
      row = await findThreadRow(db, scope, threadId);
      if (!row) throw error;
    }
  }
  return readThread(db, row.id);
}

async function readThread(db: Db, rowId: string): Promise<Thread> {
  const rows = await db
    .selectFrom("thread_messages")
    .select(["seq", "message_id", "role", "content", "tool_calls", "tool_call_id"])
    .where("thread_row_id", "=", rowId)
    .orderBy("seq")
    .execute();
  return { rowId, messages: rows.map(toThreadMessage), lastSeq: Number(rows.at(-1)?.seq ?? 0) };
}

/**
 * PostgreSQL: the thread's row, found or created, in one round trip. Undefined when another run created it at the
 * same moment (this statement's snapshot does not see that row yet): the caller then reads it.
 */
async function findOrCreateOnPostgres(db: Db, scope: string, threadId: string, agentId: string | null) {
  const at = now();
  const { rows } = await sql<{ id: string; created: boolean }>`
    with found as (
      select id from agent_threads where scope = ${scope} and thread_id = ${threadId}
    ), created as (
      insert into agent_threads (id, scope, thread_id, agent_id, created_at, updated_at)
      select ${newId()}, ${scope}, ${threadId}, ${agentId}, ${at}, ${at}
      where not exists (select 1 from found)
      on conflict do nothing
      returning id
    )
    select id, false as created from found
    union all
    select id, true as created from created`.execute(db);
  return rows[0];
}

function findThreadRow(db: Db, scope: string, threadId: string) {
  return db
    .selectFrom("agent_threads")
    .select("id")
    .where("scope", "=", scope)
    .where("thread_id", "=", threadId)
    .executeTakeFirst();
}

function toThreadMessage(row: {
  message_id: string;
  role: MessageRole;
  content: string | null;
  tool_calls: JsonText<unknown[]> | null;
  tool_call_id: string | null;
}): ThreadMessage {
  const content = row.content ?? "";
  if (row.role === "tool")
    return { id: row.message_id, message: { role: "tool", content, toolCallId: row.tool_call_id ?? "" } };
  if (row.role === "assistant") {
    const toolCalls = fromJson<unknown[] | null>(row.tool_calls, null) as ToolCallRecord[] | null;
    return {
      id: row.message_id,
      message: toolCalls?.length ? { role: "assistant", content, toolCalls } : { role: "assistant", content },
    };
  }
  return { id: row.message_id, message: { role: "user", content } };
}

/**
 * Appends messages after the last one this thread knows of: one multi-row insert (atomic on its own) and the thread's
 * updated_at. A concurrent writer on the same thread takes those numbers first; then the last number is read again.
 */
export async function appendMessages(db: Db, thread: Thread, messages: ThreadMessage[]): Promise<void> {
  if (messages.length === 0) return;
  for (let attempt = 1; ; attempt++) {
    const at = now();
    let seq = thread.lastSeq;
    const rows = messages.map(({ id, message }) => ({
      id: newId(),
      thread_row_id: thread.rowId,
      seq: ++seq,
      message_id: id,
      role: message.role,
      content: message.content,
      tool_calls: message.role === "assistant" && message.toolCalls?.length ? toJson(message.toolCalls) : null,
      tool_call_id: message.role === "tool" ? message.toolCallId : null,
      created_at: at,
    }));
    try {
      if (isPostgres(db)) {
        // The messages and the thread's updated_at in one statement: one round trip.
        await db
          .with("stored", (qb) => qb.insertInto("thread_messages").values(rows))
          .updateTable("agent_threads")
          .set({ updated_at: at })
          .where("id", "=", thread.rowId)
          .execute();
      } else {
        await db.insertInto("thread_messages").values(rows).execute();
        await db.updateTable("agent_threads").set({ updated_at: at }).where("id", "=", thread.rowId).execute();
      }
    } catch (error) {
      if (attempt >= APPEND_ATTEMPTS) throw error;
      const last = await db
        .selectFrom("thread_messages")
        .select((eb) => eb.fn.max("seq").as("seq"))
        .where("thread_row_id", "=", thread.rowId)
        .executeTakeFirst();
      thread.lastSeq = Number(last?.seq ?? 0);
      continue;
    }
    thread.lastSeq = seq;
    thread.messages.push(...messages);
    return;
  }
}

/** The incoming messages the thread does not hold yet (by id), in the order they came. */
export function unseenMessages(thread: Thread, incoming: ThreadMessage[]): ThreadMessage[] {
  const known = new Set(thread.messages.map((stored) => stored.id));
  const fresh: ThreadMessage[] = [];
  for (const message of incoming) {
    if (known.has(message.id)) continue;
    known.add(message.id);
    fresh.push(message);
  }
  return fresh;
}

/**
 * The history as a model accepts it: an assistant's tool calls without results (a run cut short) are dropped,
 * and so are tool results whose call is not in the history.
 */
export function modelReadyHistory(messages: ThreadMessage[]): ChatMessage[] {
  const answered = new Set<string>();
  for (const { message } of messages) if (message.role === "tool") answered.add(message.toolCallId);
  const called = new Set<string>();
  const out: ChatMessage[] = [];
  for (const { message } of messages) {
    if (message.role === "assistant" && message.toolCalls?.length) {
      const kept = message.toolCalls.filter((call) => answered.has(call.id));
      for (const call of kept) called.add(call.id);
      if (kept.length > 0) out.push({ role: "assistant", content: message.content, toolCalls: kept });
      else if (message.content) out.push({ role: "assistant", content: message.content });
    } else if (message.role === "tool") {
      if (called.has(message.toolCallId)) out.push(message);
    } else {
      out.push(message);
    }
  }
  return out;
}
