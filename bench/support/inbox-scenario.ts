// `npm run bench -- control inbox` (one of bench/control.ts's scenarios).
// With 100,000 items in one person's inbox (90 % unread): GET me/inbox/count and GET me/inbox?unread=true under 4
// connections, beside GET /auth/me (the same credential check and a one-row read) as the baseline; then a comment
// naming 50 members (its 50 items in the comment's transaction) posted one at a time, beside a comment naming nobody.
// Targets (issue bench): count p99 < 5 ms, unread list p99 < 20 ms, the 50-mention comment p99 < 50 ms.
import { randomUUID } from "node:crypto";
import { openDatabase } from "../../src/db/index.ts";
import { createTestDatabase } from "../../test/helpers/databases.ts";
import { json, percentile, register } from "./api.ts";
import { fmt, load, startChild } from "./processes.ts";

const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = 4;
const ITEMS = 100_000;
const MENTIONED = 50;
const COMMENTS = 100;

/** The reader's 100,000 items, written straight to the table with their unread count. */
async function seedItems(databaseUrl: string, userId: string, workspaceId: string): Promise<void> {
  const { db, close } = openDatabase(databaseUrl);
  try {
    const start = Date.parse("2026-01-01T00:00:00Z");
    for (let first = 0; first < ITEMS; first += 1000) {
      const rows = Array.from({ length: 1000 }, (_, index) => {
        const n = first + index;
        const at = new Date(start + n * 1000).toISOString().slice(0, 23);
        return {
          id: randomUUID(),
          user_id: userId,
          workspace_id: workspaceId,
          kind: "mentioned" as const,
          issue_id: randomUUID(),
          task_id: null,
          source_id: null,
          title: `someone mentioned you on ISS-${n} An issue`,
          body: "@reader could you have a look at this one?",
          created_at: `${at}000`,
          read_at: n % 10 === 0 ? `${at}500` : null,
        };
      });
      await db.insertInto("inbox_items").values(rows).execute();
    }
    await db
      .insertInto("inbox_unread")
      .values({ user_id: userId, workspace_id: workspaceId, unread: ITEMS - ITEMS / 10 })
      .onConflict((conflict) =>
        conflict.columns(["user_id", "workspace_id"]).doUpdateSet({ unread: ITEMS - ITEMS / 10 }),
      )
      .execute();
  } finally {
    await close();
  }
}

async function timedComments(url: string, token: string, content: string): Promise<number[]> {
  const times: number[] = [];
  for (let index = 0; index < COMMENTS; index++) {
    const started = performance.now();
    await json("POST", url, token, { content: `${content} (${index})` });
    times.push(performance.now() - started);
  }
  return times;
}

/** Prints the figures for one dialect; true when every target is met. */
export async function inboxScenario(dialect: "sqlite" | "postgres"): Promise<boolean> {
  const database = await createTestDatabase(dialect);
  const server = await startChild("bench/support/platform-server.ts", [], { DATABASE_URL: database.url });
  try {
    const base = server.url;
    const reader = await register(base, "reader");
    const workspace = await json("POST", `${base}/api/v1/workspaces/`, reader.token, { name: "Bench" });
    const members = [];
    for (let start = 0; start < MENTIONED; start += 10) {
      members.push(...(await Promise.all(Array.from({ length: 10 }, (_, i) => register(base, `member${start + i}`)))));
    }
    for (const member of members) {
      await json("POST", `${base}/api/v1/workspaces/${workspace.id}/members`, reader.token, {
        user_id: member.user.id,
      });
    }
    await seedItems(database.url, reader.user.id, workspace.id);
    const headers = { authorization: `Bearer ${reader.token}` };
    const run = (path: string) =>
      load({ url: `${base}${path}`, connections: CONNECTIONS, duration: DURATION_S, headers });

    const baseline = await run("/api/v1/auth/me");
    const count = await run("/api/v1/me/inbox/count");
    const unread = await run("/api/v1/me/inbox?unread=true");
    console.log(`\n${dialect}: ${ITEMS} items, ${CONNECTIONS} connections, ${DURATION_S} s each`);
    for (const [name, result] of [
      ["GET auth/me (baseline)", baseline],
      ["GET me/inbox/count", count],
      ["GET me/inbox?unread=true", unread],
    ] as const) {
      console.log(
        `  ${name.padEnd(26)} ${fmt(result.requestsPerSecond, 0).padStart(6)} req/s  p50 ${result.p50} ms  p99 ${result.p99} ms` +
          (result.errors + result.non2xx > 0 ? `  (${result.errors} errors, ${result.non2xx} non-2xx)` : ""),
      );
    }

    const issue = await json("POST", `${base}/api/v1/workspaces/${workspace.id}/issues/`, reader.token, {
      title: "Talk",
    });
    const comments = `${base}/api/v1/workspaces/${workspace.id}/issues/${issue.id}/comments`;
    const plain = await timedComments(comments, reader.token, "A comment naming nobody");
    const naming = members.map((member) => `@${member.user.name}`).join(" ");
    const mentioning = await timedComments(comments, reader.token, `${naming} please look`);
    console.log(`  comment naming nobody       p99 ${fmt(percentile(plain, 99))} ms`);
    console.log(`  comment naming ${MENTIONED} members  p99 ${fmt(percentile(mentioning, 99))} ms`);
    const told = await json("GET", `${base}/api/v1/me/inbox/count`, members[0].token);
    if (told.unread !== COMMENTS) throw new Error(`expected ${COMMENTS} items for a member, got ${told.unread}`);
    const met = count.p99 < 5 && unread.p99 < 20 && percentile(mentioning, 99) < 50;
    console.log(
      `  targets: count p99 < 5 ms, unread list p99 < 20 ms, 50 mentions p99 < 50 ms: ${met ? "PASS" : "FAIL"}`,
    );
    return met;
  } finally {
    await server.stop();
    await database.drop();
  }
}
