// kill -9 of the real server while a writer and webhook deliveries run, then a restart on the same database: every
// change acknowledged to its caller is in the outbox, reaches a stream by replay and the webhook by retry.
import { afterEach, describe, expect, it } from "vitest";
import { type ServerProcess, startBin, stopBins } from "../helpers/bin.ts";
import { createTestDatabase, type TestDatabase, testDialects } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import { SseClient } from "./helpers.ts";
import { WebhookReceiver } from "./receiver.ts";

const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  await stopBins();
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** `agent-platform serve` on the database; resolves once it listens. */
function serve(databaseUrl: string): Promise<ServerProcess> {
  return startBin("serve", [], {
    env: { DATABASE_URL: databaseUrl, WEBHOOK_ALLOW_PRIVATE: "true", WEBHOOK_TIMEOUT_MS: "1000" },
  });
}

async function call(
  url: string,
  method: string,
  body?: unknown,
  token?: string,
): Promise<{ status: number; body: any }> {
  const response = await fetch(url, {
    method,
    headers: { "content-type": "application/json", ...(token && { authorization: `Bearer ${token}` }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json().catch(() => undefined) };
}

describe.each(testDialects)("kill -9 mid-load (%s)", (dialect) => {
  it("every acknowledged change reaches the stream by replay and the webhook by retry", {
    timeout: 120_000,
  }, async () => {
    const database: TestDatabase = await createTestDatabase(dialect);
    cleanups.push(() => database.drop());
    const receiver = await WebhookReceiver.start();
    cleanups.push(() => receiver.close());
    // Slower than the writers, so attempts are in flight and queued when the server dies.
    receiver.answer = () => ({ status: 200, delayMs: 250 });

    const first = await serve(database.url);
    const api = `${first.url}/api/v1`;
    const registered = await call(`${api}/auth/register`, "POST", {
      email: `crash-${dialect}-${Date.now()}@example.com`,
      password: "correct horse battery",
    });
    const token = registered.body.token as string;
    const ws = (await call(`${api}/workspaces/`, "POST", { name: "Crash" }, token)).body.id as string;
    const hook = await call(`${api}/workspaces/${ws}/webhooks`, "POST", { url: `${receiver.url}/crash` }, token);
    expect(hook.status).toBe(201);

    // Four writers create issues until their server is gone; only a 201 counts as acknowledged.
    const acknowledged = new Set<string>();
    let attempted = 0;
    const writers = Array.from({ length: 4 }, async (_, writer) => {
      for (let index = 0; ; index++) {
        attempted++;
        try {
          const created = await call(
            `${api}/workspaces/${ws}/issues/`,
            "POST",
            { title: `w${writer}-${index}` },
            token,
          );
          if (created.status === 201) acknowledged.add(created.body.id);
        } catch {
          return; // connection refused or reset: the server is down
        }
      }
    });
    await eventually(() => acknowledged.size >= 150 && receiver.to("/crash").length >= 10, "load to build up", 60_000);
    first.child.kill("SIGKILL");
    await Promise.all(writers);
    const deliveredBeforeCrash = new Set(receiver.to("/crash").map((request) => request.headers["webhook-id"]));

    const second = await serve(database.url);
    const api2 = `${second.url}/api/v1`;
    const stream = await SseClient.open(`${api2}/workspaces/${ws}/events/stream?after_seq=0&types=issue.created`, {
      authorization: `Bearer ${token}`,
    });
    expect(stream.status).toBe(200);
    const replayed = await eventually(
      () => {
        const ids = new Set(stream.data.map((event) => event.entity_id));
        return [...acknowledged].every((id) => ids.has(id)) && ids;
      },
      "every acknowledged change on the stream",
      30_000,
    );
    const hooked = await eventually(
      () => {
        const ids = new Set(
          receiver
            .to("/crash")
            .map((request) => JSON.parse(request.body))
            .filter((event) => event.type === "issue.created")
            .map((event) => event.entity_id),
        );
        return [...acknowledged].every((id) => ids.has(id)) && ids;
      },
      "every acknowledged change at the webhook",
      30_000,
    );
    stream.close();

    const missing = {
      stream: [...acknowledged].filter((id) => !replayed.has(id)),
      webhook: [...acknowledged].filter((id) => !hooked.has(id)),
    };
    expect(missing).toEqual({ stream: [], webhook: [] });
    // The outbox is gapless across the crash; whatever committed but was never acknowledged is there too.
    const all: any[] = [];
    for (let afterSeq = 0; ; ) {
      const page = (
        await call(`${api2}/workspaces/${ws}/events?limit=200&after_seq=${afterSeq}`, "GET", undefined, token)
      ).body as any[];
      all.push(...page);
      if (page.length < 200) break;
      afterSeq = page.at(-1).seq;
    }
    expect(all.map((event) => event.seq)).toEqual(all.map((_, index) => index + 1));
    expect(acknowledged.size).toBeLessThanOrEqual(attempted);
    console.log(
      `${dialect}: ${attempted} writes attempted, ${acknowledged.size} acknowledged, ` +
        `${all.filter((event) => event.type === "issue.created").length} in the outbox; ` +
        `${deliveredBeforeCrash.size} events delivered before the crash, ${hooked.size} issues at the webhook after ` +
        `(${receiver.to("/crash").length} requests); ` +
        "missing on the stream 0, at the webhook 0",
    );
  });
});
