// npm run bench -- events
// Event fan-out: 1,000 stream subscribers on one server process while changes are written at 200/s for 30 s; the
// latency from the change's event being written (its created_at, inside the transaction, so a little before the
// commit) to its arrival at each subscriber, p50/p99; missed, duplicated, out-of-order; server RSS per subscriber.
// Beside it, a bare node:http SSE fan-out of the same frames at the same rate (no database, no auth, no framework).
// Then webhook deliveries/s to a local receiver: while changes are written as fast as they go, and draining a backlog;
// beside a bare loop that signs event-sized bodies with standardwebhooks and POSTs them with the same concurrency.
// On SQLite always, and on PostgreSQL when TEST_DATABASE_URL names a server (BENCH_DIALECT=sqlite or postgres runs only
// that one).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { Webhook } from "standardwebhooks";
import { openDatabase } from "../src/db/index.ts";
import { createTestDatabase } from "../test/helpers/databases.ts";
import { type FanOutResult, StreamSubscribers } from "./support/event-stream-clients.ts";
import { settledMemory } from "./support/memory.ts";
import { fmt, startChild } from "./support/processes.ts";

const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 1000);
const RATE = Number(process.env.BENCH_RATE ?? 200);
const DURATION_S = Number(process.env.BENCH_DURATION ?? 30);
const WEBHOOK_CHANGES = Number(process.env.BENCH_WEBHOOK_CHANGES ?? 3000);
const WRITERS = 16;

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

function request(url: string, method: string, body?: unknown, token?: string): Promise<{ status: number; body: any }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      url,
      {
        method,
        agent,
        headers: {
          ...(payload !== undefined && {
            "content-type": "application/json",
            "content-length": Buffer.byteLength(payload),
          }),
          ...(token && { authorization: `Bearer ${token}` }),
        },
      },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          text += chunk;
        });
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }),
        );
      },
    );
    outgoing.on("error", reject);
    outgoing.end(payload);
  });
}

/** Calls `change(n)` RATE times a second for DURATION_S seconds without waiting for answers (an open loop). */
async function pacedChanges(
  change: (n: number) => Promise<{ status: number }>,
): Promise<{ sent: number; failed: number }> {
  const total = RATE * DURATION_S;
  const started = performance.now();
  let failed = 0;
  const pending: Promise<void>[] = [];
  for (let n = 0; n < total; n++) {
    const due = started + (n * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    pending.push(
      change(n).then(
        (response) => {
          if (response.status !== 201) failed++;
        },
        () => {
          failed++;
        },
      ),
    );
  }
  await Promise.all(pending);
  return { sent: total, failed };
}

async function measureFanOut(
  target: { url: string; path: string; headers: Record<string, string> },
  base: number,
  child: Parameters<typeof settledMemory>[0],
  change: (n: number) => Promise<{ status: number }>,
): Promise<{ result: FanOutResult; perSubscriberKiB: number; writes: { sent: number; failed: number } }> {
  const url = new URL(target.url);
  const before = await settledMemory(child);
  const subscribers = new StreamSubscribers(base, RATE * DURATION_S);
  await subscribers.open(
    { host: url.hostname, port: Number(url.port), path: target.path, headers: target.headers },
    SUBSCRIBERS,
  );
  await sleep(500);
  const open = await settledMemory(child);
  const writes = await pacedChanges(change);
  const expected = writes.sent - writes.failed;
  const deadline = Date.now() + 30_000;
  while (!subscribers.allReached(expected) && Date.now() < deadline) await sleep(100);
  const result = subscribers.result(expected);
  subscribers.close();
  return { result, perSubscriberKiB: (open.rss - before.rss) / (SUBSCRIBERS + 1) / 1024, writes };
}

/** A receiver answering 204 at once; counts arrivals and checks a sample of signatures. */
async function startReceiver(secret: () => string | undefined) {
  const arrivals: number[] = [];
  let badSignatures = 0;
  const server = http.createServer((incoming, response) => {
    let body = "";
    incoming.setEncoding("utf8");
    incoming.on("data", (chunk: string) => {
      body += chunk;
    });
    incoming.on("end", () => {
      arrivals.push(performance.now());
      const key = secret();
      if (key && arrivals.length % 50 === 0) {
        try {
          new Webhook(key).verify(body, incoming.headers as Record<string, string>);
        } catch {
          badSignatures++;
        }
      }
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrivals,
    badSignatures: () => badSignatures,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const rate = (arrivals: number[]) =>
  arrivals.length > 1 ? ((arrivals.length - 1) * 1000) / (arrivals.at(-1)! - arrivals[0]!) : 0;

function printFanOut(label: string, figures: Awaited<ReturnType<typeof measureFanOut>>) {
  const { result, perSubscriberKiB, writes } = figures;
  console.log(
    `${label.padEnd(16)} p50 ${fmt(result.p50)} ms  p99 ${fmt(result.p99)} ms  max ${fmt(result.max)} ms  ` +
      `delivered ${result.delivered}  missed ${result.missed}  duplicated ${result.duplicated}  ` +
      `out of order ${result.outOfOrder}  dropped ${result.dropped}  writes failed ${writes.failed}  ` +
      `RSS/subscriber ${fmt(perSubscriberKiB, 1)} KiB`,
  );
}

async function benchDialect(dialect: "sqlite" | "postgres") {
  const database = await createTestDatabase(dialect);
  const server = await startChild("bench/support/events-server.ts", [], {
    DATABASE_URL: database.url,
    WEBHOOK_ALLOW_PRIVATE: "true",
    // Every subscriber is the same user.
    MAX_STREAMS_PER_USER: String(SUBSCRIBERS + 10),
  });
  const bare = await startChild("bench/support/bare-sse-fanout.ts");
  try {
    const api = `${server.url}/api/v1`;
    const { token } = (
      await request(`${api}/auth/register`, "POST", {
        email: `bench-${Date.now()}@example.com`,
        password: "bench password",
      })
    ).body;
    const ws = (await request(`${api}/workspaces/`, "POST", { name: "Bench" }, token)).body.id;
    const issue = (await request(`${api}/workspaces/${ws}/issues/`, "POST", { title: "Busy issue" }, token)).body;
    const comments = `${api}/workspaces/${ws}/issues/${issue.id}/comments`;
    // Warm the code paths once.
    for (let n = 0; n < 50; n++) await request(comments, "POST", { content: `warm ${n}` }, token);
    const head = (
      await request(`${api}/workspaces/${ws}/events?after_seq=0&limit=200`, "GET", undefined, token)
    ).body.at(-1).seq as number;

    const ours = await measureFanOut(
      {
        url: server.url,
        path: `/api/v1/workspaces/${ws}/events/stream`,
        headers: { authorization: `Bearer ${token}` },
      },
      head,
      server.child,
      (n) => request(comments, "POST", { content: `change ${n}` }, token),
    );
    // The same frames from the bare fan-out: the payload is our comment.created event minus what the server adds.
    const template = { workspace_id: ws, type: "comment.created", entity_type: "comment", entity_id: issue.id };
    const baseline = await measureFanOut({ url: bare.url, path: "/stream", headers: {} }, 0, bare.child, (n) =>
      request(`${bare.url}/publish`, "POST", {
        ...template,
        issue_id: issue.id,
        actor_type: "member",
        actor_id: issue.creator_id,
        data: { identifier: `ISS-${n}` },
      }),
    );
    console.log(
      `\n== events (${dialect}): ${SUBSCRIBERS} stream subscribers, ${RATE} changes/s for ${DURATION_S} s, one process`,
    );
    printFanOut("agent-platform", ours);
    printFanOut("bare SSE fan-out", baseline);
    console.log(
      `ratio            p99 ${fmt(ours.result.p99 / Math.max(baseline.result.p99, 0.1), 2)}× the bare fan-out's ` +
        `(target p99 < 100 ms, 0 missed, 0 duplicated); RSS/subscriber ${fmt(ours.perSubscriberKiB / Math.max(baseline.perSubscriberKiB, 0.01), 2)}×`,
    );

    // Webhooks: every change as fast as 16 writers can, one hook, a receiver answering at once.
    let secret: string | undefined;
    const receiver = await startReceiver(() => secret);
    const hook = (await request(`${api}/workspaces/${ws}/webhooks`, "POST", { url: `${receiver.url}/hook` }, token))
      .body;
    secret = hook.secret;
    await sleep(500);
    receiver.arrivals.length = 0;
    const writeAll = async (label: string) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: WRITERS }, async () => {
          while (next < WEBHOOK_CHANGES) {
            next++;
            await request(comments, "POST", { content: `${label} ${next}` }, token);
          }
        }),
      );
    };
    const writeStarted = performance.now();
    await writeAll("hooked");
    const writeSeconds = (performance.now() - writeStarted) / 1000;
    const waitForArrivals = async (count: number) => {
      const deadline = Date.now() + 120_000;
      while (receiver.arrivals.length < count && Date.now() < deadline) await sleep(100);
    };
    await waitForArrivals(WEBHOOK_CHANGES);
    const lagMs = (receiver.arrivals.at(-1) ?? 0) - writeStarted - writeSeconds * 1000;
    const oursPerSecond = rate(receiver.arrivals);
    const received = receiver.arrivals.length;

    // A backlog: the hook is paused while the changes are written, then switched back on in the database itself
    // with its outbox position kept (the API's enable would start it at the present), so the worker drains it flat out.
    const hookUrl = `${api}/workspaces/${ws}/webhooks/${hook.id}`;
    await request(hookUrl, "PATCH", { enabled: false }, token);
    await writeAll("backlog");
    receiver.arrivals.length = 0;
    const direct = openDatabase(database.url);
    await direct.db.updateTable("webhooks").set({ enabled: 1 }).where("id", "=", hook.id).execute();
    await direct.close();
    await request(comments, "POST", { content: "wake up" }, token);
    await waitForArrivals(WEBHOOK_CHANGES + 1);
    const backlogPerSecond = rate(receiver.arrivals);
    const drained = receiver.arrivals.length;

    // Bare: the same number of signed POSTs of an event-sized body, 16 at a time.
    receiver.arrivals.length = 0;
    const body = JSON.stringify({ ...template, id: hook.id, seq: 1, data: { identifier: "ISS-1" }, created_at: "x" });
    const signer = new Webhook(hook.secret);
    let sent = 0;
    await Promise.all(
      Array.from({ length: WRITERS }, async () => {
        while (sent < WEBHOOK_CHANGES) {
          sent++;
          const at = new Date();
          const headers = {
            "content-type": "application/json",
            "webhook-id": `msg_${sent}`,
            "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
            "webhook-signature": signer.sign(`msg_${sent}`, at, body),
          };
          await new Promise<void>((resolve, reject) => {
            const outgoing = http.request(`${receiver.url}/bare`, { method: "POST", agent, headers }, (response) => {
              response.resume();
              response.on("end", resolve);
            });
            outgoing.on("error", reject);
            outgoing.end(body);
          });
        }
      }),
    );
    const barePerSecond = rate(receiver.arrivals);
    console.log(
      `\n== webhooks (${dialect}): ${WEBHOOK_CHANGES} changes from ${WRITERS} writers, one hook, local receiver`,
    );
    console.log(
      `agent-platform   ${fmt(oursPerSecond, 0).padStart(6)} deliveries/s  (${received} of ${WEBHOOK_CHANGES} received, ` +
        `writes ${fmt(WEBHOOK_CHANGES / writeSeconds, 0)}/s, last delivery ${fmt(Math.max(lagMs, 0), 0)} ms after the last write, ` +
        `sampled signatures bad: ${receiver.badSignatures()})`,
    );
    console.log(
      `backlog drained  ${fmt(backlogPerSecond, 0).padStart(6)} deliveries/s  (${drained} events queued ` +
        "while the hook was paused, no writes meanwhile)",
    );
    console.log(`bare sign + POST ${fmt(barePerSecond, 0).padStart(6)} deliveries/s`);
    console.log(`ratio            ${fmt(backlogPerSecond / barePerSecond, 3)} of the bare loop (backlog drain)`);
    await receiver.close();
  } finally {
    await bare.stop();
    await server.stop();
    await database.drop();
  }
}

// BENCH_DIALECT=sqlite or postgres runs that dialect only.
const only = process.env.BENCH_DIALECT;
if (only !== "postgres") await benchDialect("sqlite");
if (only !== "sqlite" && process.env.TEST_DATABASE_URL) await benchDialect("postgres");
else if (only !== "sqlite")
  console.log("\n(PostgreSQL skipped: set TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test to include it)");
agent.destroy();
