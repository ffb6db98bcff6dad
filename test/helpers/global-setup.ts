// Says loudly, once per run, when the PostgreSQL half of the suite is not running.
export default function globalSetup(): void {
  if (process.env.TEST_DATABASE_URL) return;
  const line = "!".repeat(100);
  console.warn(
    `\n${line}\n!! PostgreSQL tests DID NOT RUN: TEST_DATABASE_URL is not set.\n` +
      `!! Run them with TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm test\n${line}\n`,
  );
}
