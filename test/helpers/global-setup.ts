// Once per run: builds the dashboard if its build is missing or stale (the browser tests serve it), and says
// loudly when the PostgreSQL half of the suite is not running, or tests needing a missing tool are skipped.
import { ensureWebBuild } from "../../scripts/build-web.ts";
import { missingToolsLine } from "./system-tools.ts";

export default function globalSetup(): void {
  ensureWebBuild();
  const missingTools = missingToolsLine();
  if (missingTools) console.warn(`\n${missingTools}\n`);
  if (process.env.TEST_DATABASE_URL) return;
  const line = "!".repeat(100);
  console.warn(
    `\n${line}\n!! PostgreSQL tests DID NOT RUN (nor the *.pg.test.ts files): TEST_DATABASE_URL is not set.\n` +
      `!! Run them with TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm test\n${line}\n`,
  );
}
