// A server of one checkout (its own code and its own web/dist) over a throwaway SQLite database, seeded with a
// workspace of BENCH_ISSUES issues as bench/web.ts seeds it; prints one JSON line (url, email, password) and serves
// until stdin closes. bench/board-ab.ts starts one per checkout to compare two builds of the dashboard.
//   tsx bench/support/board-server.ts <checkout root> [web dist dir (default: the checkout's web/dist)]
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const root = resolve(process.argv[2] ?? ".");
const issues = Number(process.env.BENCH_ISSUES ?? 1000);
// The checkout's own helpers, so its own server code and its own build are what is served.
const helpers = await import(pathToFileURL(join(root, "test/helpers/app.ts")).href);
const app = await helpers.startTestApp("sqlite", process.argv[3] ? { webDistDir: resolve(process.argv[3]) } : {});
const api = app.api;

const email = `bench-${Date.now()}@example.com`;
const password = "correct horse battery";
const { token } = (await api.post("auth/register", { email, password, name: "Bench" })).body;
const ws = (await api.post("workspaces/", { name: "Bench" }, { token })).body.id;
const statuses = ["backlog", "todo", "in_progress", "in_review", "done", "blocked", "cancelled"];
for (let start = 0; start < issues; start += 16) {
  await Promise.all(
    Array.from({ length: Math.min(16, issues - start) }, (_, offset) =>
      api.post(
        `workspaces/${ws}/issues/`,
        { title: `Issue number ${start + offset + 1}`, status: statuses[(start + offset) % statuses.length] },
        { token },
      ),
    ),
  );
}
process.stdout.write(`${JSON.stringify({ url: app.url, email, password })}\n`);
process.stdin.resume();
process.stdin.on("end", async () => {
  await app.close();
  process.exit(0);
});
