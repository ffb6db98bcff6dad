// Many signed-in users asking about many workspaces at once: each gets the answer for their own membership (on
// PostgreSQL concurrent reads share one query, auth/member-reads.ts), and a change of membership holds from the next
// request on, however many requests are in flight.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerUser, startTestApp, type TestApp, type TestUser } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";

describe.each(testDialects)("concurrent workspace access (%s)", (dialect) => {
  let t: TestApp;
  let users: TestUser[];
  let workspaces: string[];

  beforeAll(async () => {
    t = await startTestApp(dialect);
    users = await Promise.all([0, 1, 2, 3].map((index) => registerUser(t.api, `user${index}`)));
    // Workspace i belongs to user i alone.
    workspaces = await Promise.all(
      users.map(
        async (user, index) => (await t.api.post("workspaces/", { name: `W${index}` }, { token: user.token })).body.id,
      ),
    );
  });
  afterAll(() => t.close());

  it("200 requests at once, users × workspaces: each member gets the list, each stranger 403", async () => {
    const asks = Array.from({ length: 200 }, (_, n) => ({ user: n % 4, workspace: Math.floor(n / 4) % 5 }));
    const answers = await Promise.all(
      asks.map(({ user, workspace }) =>
        t.api.get(`workspaces/${workspaces[workspace] ?? "no-such-workspace"}/issues/`, { token: users[user]!.token }),
      ),
    );
    answers.forEach((answer, n) => {
      const { user, workspace } = asks[n]!;
      expect(answer.status, `user ${user} in workspace ${workspace}`).toBe(user === workspace ? 200 : 403);
    });
  });

  it("a member added or removed is answered accordingly by the very next requests, while others are in flight", async () => {
    const [owner, guest] = [users[0]!, users[1]!];
    const ws = `workspaces/${workspaces[0]}`;
    const load = () =>
      Promise.all(Array.from({ length: 50 }, () => t.api.get(`${ws}/issues/`, { token: owner.token })));
    const background = load();
    const added = await t.api.post(
      `${ws}/members/`,
      { email: guest.user.email, role: "member" },
      { token: owner.token },
    );
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const asGuest = await Promise.all(
      Array.from({ length: 20 }, () => t.api.get(`${ws}/issues/`, { token: guest.token })),
    );
    expect(asGuest.map((answer) => answer.status)).toEqual(Array(20).fill(200));
    const background2 = load();
    expect((await t.api.delete(`${ws}/members/${guest.user.id}`, { token: owner.token })).status).toBe(204);
    const afterRemoval = await Promise.all(
      Array.from({ length: 20 }, () => t.api.get(`${ws}/issues/`, { token: guest.token })),
    );
    expect(afterRemoval.map((answer) => answer.status)).toEqual(Array(20).fill(403));
    for (const answer of [...(await background), ...(await background2)]) expect(answer.status).toBe(200);
  });

  it("API keys of several workspaces at once: each key opens its own workspace only; a revoked one is 401 at once", async () => {
    const keys = await Promise.all(
      users.map(async (user, index) => {
        const created = await t.api.post(
          `workspaces/${workspaces[index]}/api-keys`,
          { name: "k" },
          { token: user.token },
        );
        expect(created.status).toBe(201);
        return created.body as { id: string; key: string };
      }),
    );
    const asks = Array.from({ length: 160 }, (_, n) => ({ key: n % 4, workspace: Math.floor(n / 4) % 4 }));
    const answers = await Promise.all(
      asks.map(({ key, workspace }) =>
        t.api.get(`workspaces/${workspaces[workspace]}/issues/`, { headers: { "x-api-key": keys[key]!.key } }),
      ),
    );
    answers.forEach((answer, n) => {
      const { key, workspace } = asks[n]!;
      expect(answer.status, `key ${key} in workspace ${workspace}`).toBe(key === workspace ? 200 : 403);
    });
    const revoked = await t.api.delete(`workspaces/${workspaces[2]}/api-keys/${keys[2]!.id}`, {
      token: users[2]!.token,
    });
    expect(revoked.status).toBe(204);
    const after = await Promise.all(
      [0, 1, 2, 3].map((key) =>
        t.api.get(`workspaces/${workspaces[key]}/issues/`, { headers: { "x-api-key": keys[key]!.key } }),
      ),
    );
    expect(after.map((answer) => answer.status)).toEqual([200, 200, 401, 200]);
  });
});
