import type { Kysely } from "kysely";

// Outbound calls (voice-phone.md §4): a call knows its direction, the carrier's status and answering-machine verdict,
// its numbers and length; an outbound call also keeps what it was placed with (instructions, greeting, voicemail
// message), since the carrier's webhook and media stream may reach another call process than the one that placed it.
const COLUMNS = [
  "status",
  "answered_by",
  "duration_s",
  "to_number",
  "from_number",
  "instructions",
  "greeting",
  "voicemail_message",
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("calls")
    .addColumn("direction", "text", (c) => c.notNull().defaultTo("inbound"))
    .execute();
  for (const column of COLUMNS) {
    await db.schema
      .alterTable("calls")
      .addColumn(column, column === "duration_s" ? "integer" : "text")
      .execute();
  }
  await db.schema.createIndex("calls_call_sid_idx").on("calls").column("call_sid").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("calls_call_sid_idx").execute();
  for (const column of [...COLUMNS].reverse()) await db.schema.alterTable("calls").dropColumn(column).execute();
  await db.schema.alterTable("calls").dropColumn("direction").execute();
}
