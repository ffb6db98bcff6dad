// Deliveries are fair per hook: a receiver that takes its time (or never answers) holds at most `perHook` attempts
// in flight, across every process on the database, and every other hook's deliveries go out beside it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerUser, startAppOn, startTestApp, type TestApp } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import { createIssue } from "../helpers/platform.ts";
import { WebhookReceiver } from "./receiver.ts";

const PER_HOOK = 2;
const OPTIONS = {
  env: { WEBHOOK_ALLOW_PRIVATE: "true" },
  // Attempts never time out during a test: the slow receiver holds them until the test lets go.
  events: { webhooks: { concurrency: 4, perHook: PER_HOOK, timeoutMs: 60_000, retryDelaysMs: [60_000], sweepMs: 100 } },
};

/** A receiver that holds every request open until `release()`, then answers 200 (later ones at once). */
async function slowReceiver() {
  const receiver = await WebhookReceiver.start();
  let release!: () => void;
  const released = new Promise<number>((resolve) => {
    release = () => resolve(200);
  });
  receiver.answer = () => released;
  return { receiver, release };
}

/** A workspace with a hook for comments at `url`, and a way to comment in it (through `apps`, in turn). */
async function workspaceHearing(apps: TestApp[], url: string) {
  const { token } = await registerUser(apps[0]!.api, "fair");
  const ws = (await apps[0]!.api.post("workspaces/", { name: "Fair" }, { token })).body.id as string;
  const hook = await apps[0]!.api.post(`workspaces/${ws}/webhooks`, { url, types: ["comment.created"] }, { token });
  expect(hook.status).toBe(201);
  const issue = await createIssue(apps[0]!.api, ws, token);
  let turn = 0;
  const comment = async (content: string) => {
    const app = apps[turn++ % apps.length]!;
    const response = await app.api.post(`workspaces/${ws}/issues/${issue.id}/comments`, { content }, { token });
    expect(response.status).toBe(201);
  };
  const deliveries = async () =>
    (await apps[0]!.api.get(`workspaces/${ws}/webhooks/${hook.body.id}/deliveries`, { token })).body as {
      status: string;
    }[];
  return { comment, deliveries };
}

const webhookIds = (receiver: WebhookReceiver, path: string) =>
  receiver.to(path).map((request) => request.headers["webhook-id"]);

/**
 * 48 events to a receiver that holds them, then 5 to a fast one of another workspace: the fast one hears all 5 while
 * the slow one still holds its first attempts open, never more than PER_HOOK of them; let go, it hears all 48 once.
 */
async function slowBesideFast(apps: TestApp[]) {
  const slow = await slowReceiver();
  const fast = await WebhookReceiver.start();
  try {
    const slowSide = await workspaceHearing(apps, `${slow.receiver.url}/slow`);
    const fastSide = await workspaceHearing(apps, `${fast.url}/fast`);
    for (let index = 0; index < 48; index++) await slowSide.comment(`slow ${index}`);
    await eventually(() => (slow.receiver.open.get("/slow") ?? 0) >= PER_HOOK, "the slow hook to hold its attempts");

    for (let index = 0; index < 5; index++) await fastSide.comment(`fast ${index}`);
    await eventually(() => fast.to("/fast").length === 5, "the fast hook's five deliveries");
    expect(slow.receiver.to("/slow")).toHaveLength(PER_HOOK);
    expect(slow.receiver.open.get("/slow")).toBe(PER_HOOK);

    slow.release();
    await eventually(() => new Set(webhookIds(slow.receiver, "/slow")).size === 48, "all 48 slow deliveries");
    expect(webhookIds(slow.receiver, "/slow")).toHaveLength(48);
    expect(slow.receiver.mostOpen.get("/slow")).toBe(PER_HOOK);
    expect(new Set(webhookIds(fast, "/fast")).size).toBe(5);
  } finally {
    slow.release();
    await slow.receiver.close();
    await fast.close();
  }
}

describe.each(testDialects)("webhook deliveries fair per hook (%s)", (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(dialect, OPTIONS);
  });
  afterAll(() => t.close());

  it("a slow receiver holds only its own attempts: another workspace's hook hears all its events meanwhile", () =>
    slowBesideFast([t]));

  it("a failing hook gets one attempt in flight at a time", async () => {
    const failing = await WebhookReceiver.start();
    failing.answer = () => ({ status: 500, delayMs: 100 });
    try {
      const side = await workspaceHearing([t], `${failing.url}/failing`);
      await side.comment("first");
      // Recorded as failed: the hook is failing from then on.
      await eventually(async () => (await side.deliveries()).some((row) => row.status === "failed"), "a failure");
      failing.mostOpen.clear();
      for (let index = 0; index < 6; index++) await side.comment(`then ${index}`);
      await eventually(() => failing.to("/failing").length === 7 && failing.open.get("/failing") === 0, "six more");
      expect(failing.mostOpen.get("/failing")).toBe(1);
    } finally {
      await failing.close();
    }
  });
});

describe.each(testDialects.filter((dialect) => dialect === "postgres"))(
  "webhook deliveries fair per hook, two processes (%s)",
  (dialect) => {
    let a: TestApp;
    let b: TestApp;
    beforeAll(async () => {
      a = await startTestApp(dialect, OPTIONS);
      b = await startAppOn(a.databaseUrl, dialect, OPTIONS);
    });
    afterAll(async () => {
      await b.close();
      await a.close();
    });

    it("the per-hook limit holds over both processes, and the fast hook is not held up by either", () =>
      slowBesideFast([a, b]));
  },
);
