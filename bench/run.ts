// `npm run bench -- <name>` runs bench/<name>.ts; each benchmark compares against a bare baseline in the same run.
import { existsSync, readdirSync } from "node:fs";

const name = process.argv[2];
const available = readdirSync(new URL(".", import.meta.url))
  .filter((file) => file.endsWith(".ts") && !["run.ts"].includes(file) && !file.startsWith("_"))
  .map((file) => file.replace(/\.ts$/, ""));
if (!name || !existsSync(new URL(`./${name}.ts`, import.meta.url))) {
  console.error(`usage: npm run bench -- <${available.join("|")}>`);
  process.exit(2);
}
await import(`./${name}.ts`);
