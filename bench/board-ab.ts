// tsx bench/board-ab.ts <build A> [build B …]   (a build: a checkout's root, or root:dist dir; B defaults to this one)
// The board's render (List view → Board view, BENCH_ISSUES cards) of two or more builds of the dashboard, in one
// headless chromium, rounds alternating (A B, then B A) so that load on the machine falls on all alike. Each checkout
// is served by its own code and its own web/dist or the dist dir given (bench/support/board-server.ts; run
// `npm run build:web` in each first).
// Per round: the wall time to every card in the DOM plus a frame, and the deltas of Chromium's main-thread metrics
// (ThreadTime, TaskDuration, ScriptDuration, Layout, RecalcStyle) after a garbage collection; Nodes after it.
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { CDPSession, Page } from "playwright-core";
import { launchBrowser } from "../test/helpers/browser.ts";
import { boardRenderMs } from "./support/board-render.ts";

declare const document: any;
declare const requestAnimationFrame: any;

const ISSUES = Number(process.env.BENCH_ISSUES ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 21);
/** A wait after the render before the CPU is read, so work a build puts off until after its frames is counted too. */
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 0);
const builds = process.argv.slice(2);
if (builds.length === 0) throw new Error("usage: tsx bench/board-ab.ts <build A> [build B …]");
if (builds.length === 1) builds.push(fileURLToPath(new URL("..", import.meta.url)));
const labels = builds.map((_, index) => String.fromCharCode(65 + index));
const tsx = fileURLToPath(new URL("../node_modules/.bin/tsx", import.meta.url));
const serverScript = fileURLToPath(new URL("./support/board-server.ts", import.meta.url));

interface Served {
  child: ChildProcess;
  url: string;
  email: string;
  password: string;
}

function serve(build: string): Promise<Served> {
  const [root, dist] = build.split(":") as [string, string | undefined];
  const child = spawn(tsx, [serverScript, root, ...(dist ? [dist] : [])], {
    cwd: root,
    stdio: ["pipe", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`server of ${root} exited ${code}`)));
    createInterface({ input: child.stdout! }).once("line", (line) => resolve({ child, ...JSON.parse(line) }));
  });
}

const METRICS = ["ThreadTime", "TaskDuration", "ScriptDuration", "LayoutDuration", "RecalcStyleDuration"] as const;
type Sample = Record<(typeof METRICS)[number] | "wall" | "Nodes", number>;

async function metrics(cdp: CDPSession): Promise<Record<string, number>> {
  const { metrics } = await cdp.send("Performance.getMetrics");
  return Object.fromEntries(metrics.map((metric) => [metric.name, metric.value]));
}

async function open(browser: Awaited<ReturnType<typeof launchBrowser>>, served: Served) {
  const page = await browser.newPage();
  page.setDefaultTimeout(60_000);
  await page.goto(served.url);
  await page.getByRole("textbox", { name: "Email" }).fill(served.email);
  await page.getByLabel("Password").fill(served.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForFunction((count) => document.querySelectorAll(".issue-card").length === count, ISSUES, {
    polling: "raf",
  });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Performance.enable");
  return { page, cdp };
}

async function round(page: Page, cdp: CDPSession): Promise<Sample> {
  await page.bringToFront();
  await page.getByRole("button", { name: "List view" }).click();
  await page.getByRole("table").waitFor();
  await cdp.send("HeapProfiler.collectGarbage");
  await new Promise((resolve) => setTimeout(resolve, 150));
  const before = await metrics(cdp);
  const wall = await boardRenderMs(page, ISSUES);
  if (SETTLE_MS > 0) await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const after = await metrics(cdp);
  await cdp.send("HeapProfiler.collectGarbage");
  const sample = { wall, Nodes: (await metrics(cdp)).Nodes! } as Sample;
  for (const name of METRICS) sample[name] = (after[name]! - before[name]!) * 1000;
  return sample;
}

/** The value at fraction q of the sorted values, interpolated (0.5: the median). */
const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const below = Math.floor(at);
  return sorted[below]! + (sorted[Math.ceil(at)]! - sorted[below]!) * (at - below);
};

const servers = await Promise.all(builds.map(serve));
const browser = await launchBrowser();
try {
  const pages = [];
  for (const served of servers) pages.push(await open(browser, served));
  for (const { page, cdp } of pages) await round(page, cdp); // warm-up, not counted
  const samples: Sample[][] = builds.map(() => []);
  const forward = builds.map((_, index) => index);
  for (let index = 0; index < ROUNDS; index++) {
    const order = index % 2 === 0 ? forward : [...forward].reverse();
    for (const which of order) samples[which]!.push(await round(pages[which]!.page, pages[which]!.cdp));
  }
  const columns = ["wall", "ThreadTime", "TaskDuration", "ScriptDuration", "LayoutDuration", "RecalcStyleDuration"];
  // The first quartile beside the median: on a busy machine the quieter rounds say more about the work itself.
  for (const [q, name] of [
    [0.5, "medians"],
    [0.25, "first quartiles"],
  ] as const) {
    console.log(
      `board render, ${ISSUES} issues, ${ROUNDS} rounds each (${name}, ms; Nodes once the render is collected)`,
    );
    console.log(`   ${columns.map((column) => column.replace("Duration", "").padStart(11)).join("")}      Nodes`);
    for (const [which, label] of labels.entries()) {
      const rows = samples[which]!;
      const cells = columns.map((column) =>
        quantile(
          rows.map((row) => row[column as keyof Sample]),
          q,
        )
          .toFixed(1)
          .padStart(11),
      );
      console.log(
        `${label}  ${cells.join("")} ${String(
          quantile(
            rows.map((row) => row.Nodes),
            q,
          ),
        ).padStart(10)}`,
      );
    }
  }
  for (const [which, label] of labels.entries()) {
    const wins = samples[which]!.filter((row, index) => row.ThreadTime <= samples[0]![index]!.ThreadTime).length;
    console.log(`${label} = ${builds[which]}${which > 0 ? `  (ThreadTime ≤ A's in ${wins} of ${ROUNDS} rounds)` : ""}`);
  }
  if (browser.problems.length > 0) console.log(`page errors: ${browser.problems.join(" | ")}`);
} finally {
  await browser.close();
  for (const served of servers) served.child.stdin!.end();
}
