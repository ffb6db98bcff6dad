// Ten `agent-platform serve` processes started at once on an empty PostgreSQL database: one of them applies the
// migrations (the others wait on the advisory lock and find nothing to do), and every one of them serves.
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/index.ts";
import { LATEST_MIGRATION } from "../../src/db/migrate.ts";
import { type PlatformProcess, startProcess, stopProcess } from "../helpers/cluster.ts";
import { createTestDatabase, testDialects } from "../helpers/databases.ts";

const PROCESSES = 10;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe.each(testDialects.filter((dialect) => dialect === "postgres"))(
  "ten processes start at once (%s)",
  (dialect) => {
    it("on an empty database exactly one migrates, all start and all are ready", async () => {
      const database = await createTestDatabase(dialect);
      cleanups.push(() => database.drop());
      const started: PlatformProcess[] = [];
      cleanups.push(async () => {
        await Promise.all(started.map(stopProcess));
      });
      const results = await Promise.allSettled(
        Array.from({ length: PROCESSES }, () =>
          startProcess(
            "serve",
            { DATABASE_URL: database.url, LOG_LEVEL: "info", AGENT_WORKERS: "1" },
            [],
            240_000,
          ).then((running) => {
            started.push(running);
            return running;
          }),
        ),
      );
      const failures = results.filter((result) => result.status === "rejected").map((result) => String(result.reason));
      expect(failures).toEqual([]);
      expect(started).toHaveLength(PROCESSES);

      const migrated = started.filter((running) => running.output().stdout.includes('"msg":"applied migrations"'));
      expect(migrated).toHaveLength(1);
      for (const running of started) {
        const ready = await fetch(`${running.url}/ready`);
        expect([ready.status, await ready.json()]).toEqual([200, { status: "ready" }]);
        expect(running.output().stderr).toBe("");
      }

      const handle = openDatabase(database.url);
      try {
        const applied = await handle.db
          .selectFrom("kysely_migration" as never)
          .select("name" as never)
          .execute();
        const names = applied.map((row) => (row as { name: string }).name).sort();
        expect(names.at(-1)).toBe(LATEST_MIGRATION);
        expect(new Set(names).size).toBe(names.length);
        // The schema is whole: a table of the newest migration answers.
        expect(await handle.db.selectFrom("tasks").select("id").execute()).toEqual([]);
      } finally {
        await handle.close();
      }
    }, 300_000);
  },
);
