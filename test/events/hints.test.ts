// The hint every process hears when events commit: the same on SQLite and PostgreSQL — sent once the change has
// committed (never for one that rolled back), carrying the committed event when it fits.
import SqliteDatabase from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendEvent } from "../../src/events/append.ts";
import { readEvents, type WorkspaceEvent } from "../../src/events/outbox.ts";
import { type EventSignal, openEventSignal } from "../../src/events/signal.ts";
import { registerUser, startTestApp, type TestApp } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";

interface Heard {
  seq: number;
  event: WorkspaceEvent | undefined;
  /** SQLite: whether another connection saw the event's row the moment the hint came. */
  committed?: boolean;
}

describe.each(testDialects)("event hints (%s)", (dialect) => {
  let t: TestApp;
  let signal: EventSignal;
  let reader: SqliteDatabase.Database | undefined;
  let ws: string;
  let actor: { type: "member"; id: string };
  const heard: Heard[] = [];

  beforeAll(async () => {
    t = await startTestApp(dialect);
    const { token, user } = await registerUser(t.api, "hints");
    actor = { type: "member", id: user.id };
    ws = (await t.api.post("workspaces/", { name: "Hints" }, { token })).body.id;
    if (dialect === "sqlite") reader = new SqliteDatabase(t.databaseUrl.replace(/^sqlite:/, ""), { readonly: true });
    const seen = reader?.prepare("select count(*) as n from events where workspace_id = ? and seq = ?");
    signal = openEventSignal(dialect, t.databaseUrl, { warn() {} });
    signal.onHint((workspaceId, seq, event) => {
      if (workspaceId !== ws) return;
      const committed = seen ? (seen.get(workspaceId, seq) as { n: number }).n === 1 : undefined;
      heard.push({ seq, event, ...(committed === undefined ? {} : { committed }) });
    });
    await signal.ready;
  });
  afterAll(async () => {
    await signal.close();
    reader?.close();
    await t.close();
  });

  const queued = (data: Record<string, unknown>) =>
    ({ workspaceId: ws, type: "task.queued", entityType: "task", entityId: null, actor, data }) as const;
  const append = (data: Record<string, unknown>) => t.db.transaction().execute((trx) => appendEvent(trx, queued(data)));

  it("a rolled-back change sends no hint; a committed one's comes after COMMIT, carrying the stored event", async () => {
    await expect(
      t.db.transaction().execute(async (trx) => {
        await appendEvent(trx, queued({ never: "seen" }));
        throw new Error("undone");
      }),
    ).rejects.toThrow("undone");
    await append({ kept: true });
    const [stored] = await readEvents(t.db, ws, { afterSeq: 1, limit: 10 });
    expect(stored).toMatchObject({ seq: 2, data: { kept: true } });
    await eventually(() => heard.some((hint) => hint.seq === 2), "the committed event's hint");
    expect(heard.filter((hint) => hint.seq > 1)).toEqual([
      { seq: 2, event: stored, ...(dialect === "sqlite" ? { committed: true } : {}) },
    ]);
  });

  it("an event too large for the hint comes without it (listeners read it from the outbox)", async () => {
    await append({ big: "x".repeat(9_000) });
    await eventually(() => heard.some((hint) => hint.seq === 3), "the large event's hint");
    expect(heard.find((hint) => hint.seq === 3)?.event).toBeUndefined();
  });
});
