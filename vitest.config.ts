import { defineConfig } from "vitest/config";

// Files named *.pg.test.ts hold only PostgreSQL tests (several processes on one PostgreSQL): without
// TEST_DATABASE_URL they are left out of the run, which the global setup says loudly.
const postgresOnly = process.env.TEST_DATABASE_URL ? [] : ["test/**/*.pg.test.ts"];

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["**/node_modules/**", ...postgresOnly],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: "forks",
    globalSetup: ["test/helpers/global-setup.ts"],
  },
});
