// The baseline: a bare Fastify route answering the same 50 issues from memory, no auth, no database.
import { readFileSync } from "node:fs";
import Fastify from "fastify";

const issues = JSON.parse(readFileSync(process.argv[2] ?? "", "utf8"));
const app = Fastify();
app.get("/issues", async () => issues);
console.log(await app.listen({ host: "127.0.0.1", port: 0 }));
process.on("SIGTERM", () => app.close().then(() => process.exit(0)));
