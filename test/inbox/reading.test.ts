// Reading the inbox: newest first, unread only, one workspace only; the unread count; reading one item or all.
// Only the person's own items of workspaces they are a member of; an API key sees its workspace's only.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerUser, type TestUser } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";
import { createIssue, startWorkspaceFixture, unknownId, type WorkspaceFixture } from "../helpers/platform.ts";

describe.each(testDialects)("reading the inbox (%s)", (dialect) => {
  let f: WorkspaceFixture;
  beforeAll(async () => {
    f = await startWorkspaceFixture(dialect);
  });
  afterAll(() => f.t.close());

  const api = () => f.t.api;
  const auth = (user: TestUser) => ({ token: user.token });
  /** A workspace of `owner` with `others` as members, and an issue in it. */
  async function team(owner: TestUser, others: TestUser[]) {
    const ws = (await api().post("workspaces/", { name: "Reading" }, auth(owner))).body.id as string;
    for (const other of others) await api().post(`workspaces/${ws}/members`, { user_id: other.user.id }, auth(owner));
    const issue = await createIssue(api(), ws, owner.token, { title: "Talk" });
    return { ws, issue };
  }
  const mention = (ws: string, issueId: string, by: TestUser, content: string) =>
    api().post(`workspaces/${ws}/issues/${issueId}/comments`, { content }, auth(by));
  const count = async (user: TestUser, query = "") =>
    (await api().get(`me/inbox/count${query}`, auth(user))).body.unread as number;

  it("lists newest first, filters unread and by workspace, and counts what is unread", async () => {
    const boss = await registerUser(api(), "boss");
    const reader = await registerUser(api(), "reader");
    const one = await team(boss, [reader]);
    const two = await team(boss, [reader]);
    for (const text of ["first", "second", "third"]) await mention(one.ws, one.issue.id, boss, `@reader ${text}`);
    await mention(two.ws, two.issue.id, boss, "@reader elsewhere");

    const all = (await api().get("me/inbox", auth(reader))).body;
    expect(all.map((item: any) => item.body)).toEqual([
      "@reader elsewhere",
      "@reader third",
      "@reader second",
      "@reader first",
    ]);
    expect(await count(reader)).toBe(4);
    expect(await count(reader, `?workspace_id=${one.ws}`)).toBe(3);

    const read = await api().post(`me/inbox/${all[2].id}/read`, undefined, auth(reader));
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: all[2].id, read_at: expect.any(String) });
    // Again is fine, and counts nothing twice.
    const again = await api().post(`me/inbox/${all[2].id}/read`, undefined, auth(reader));
    expect(again.body.read_at).toBe(read.body.read_at);
    expect(await count(reader)).toBe(3);

    const unread = (await api().get("me/inbox?unread=true", auth(reader))).body;
    expect(unread.map((item: any) => item.body)).toEqual(["@reader elsewhere", "@reader third", "@reader first"]);
    const paged = (await api().get(`me/inbox?unread=true&workspace_id=${one.ws}&limit=1&offset=1`, auth(reader))).body;
    expect(paged.map((item: any) => item.body)).toEqual(["@reader first"]);

    const allRead = await api().post(`me/inbox/read-all?workspace_id=${one.ws}`, undefined, auth(reader));
    expect(allRead.body).toEqual({ read: 2 });
    expect(await count(reader)).toBe(1);
    expect((await api().get("me/inbox?unread=true", auth(reader))).body.map((item: any) => item.body)).toEqual([
      "@reader elsewhere",
    ]);
    expect((await api().post("me/inbox/read-all", undefined, auth(reader))).body).toEqual({ read: 1 });
    expect(await count(reader)).toBe(0);
    expect((await api().get("me/inbox?unread=true", auth(reader))).body).toEqual([]);
    expect(
      await api()
        .get("me/inbox", auth(reader))
        .then((response) => response.body.length),
    ).toBe(4);
  });

  it("another person's item is not found; a workspace one is not a member of is forbidden", async () => {
    const boss = await registerUser(api(), "boss");
    const reader = await registerUser(api(), "reader");
    const { ws, issue } = await team(boss, [reader]);
    await mention(ws, issue.id, boss, "@reader hello");
    const [item] = (await api().get("me/inbox", auth(reader))).body;
    for (const id of [item.id, unknownId(), "not-an-id"]) {
      const response = await api().post(`me/inbox/${id}/read`, undefined, auth(f.outsider));
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ detail: "Inbox item not found" });
    }
    for (const path of [
      `me/inbox?workspace_id=${ws}`,
      `me/inbox/count?workspace_id=${ws}`,
      "me/inbox?workspace_id=x",
    ]) {
      expect((await api().get(path, auth(f.outsider))).status).toBe(403);
    }
    expect((await api().post(`me/inbox/read-all?workspace_id=${ws}`, undefined, auth(f.outsider))).status).toBe(403);
    expect((await api().get("me/inbox?unread=maybe", auth(reader))).status).toBe(422);
    expect((await api().get("me/inbox")).status).toBe(401);
    expect((await api().get("me/inbox/count")).status).toBe(401);
  });

  it("someone who left a workspace no longer sees or counts its items", async () => {
    const boss = await registerUser(api(), "boss");
    const reader = await registerUser(api(), "reader");
    const { ws, issue } = await team(boss, [reader]);
    await mention(ws, issue.id, boss, "@reader before you go");
    expect(await count(reader)).toBe(1);
    const left = await api().delete(`workspaces/${ws}/members/${reader.user.id}`, auth(reader));
    expect(left.status).toBe(204);
    expect(await count(reader)).toBe(0);
    expect((await api().get("me/inbox", auth(reader))).body).toEqual([]);
    // And is told nothing of it any more.
    await mention(ws, issue.id, boss, "@reader are you there?");
    expect(await count(reader)).toBe(0);
  });

  it("a comment naming 50 members gives each of them one item, counted once", async () => {
    const boss = await registerUser(api(), "boss");
    const crowd: TestUser[] = [];
    for (let index = 0; index < 50; index++) crowd.push(await registerUser(api(), `crowd${index}`));
    const { ws, issue } = await team(boss, crowd);
    const content = crowd.map((person) => `@${person.user.name}`).join(" ");
    expect((await mention(ws, issue.id, boss, content)).status).toBe(201);
    for (const person of crowd) {
      expect(await count(person)).toBe(1);
      const items = (await api().get("me/inbox", auth(person))).body;
      expect(items).toEqual([expect.objectContaining({ kind: "mentioned", issue_id: issue.id, body: content })]);
    }
    expect(await count(boss)).toBe(0);
  });

  it("items added while others are read keep the count exact: nothing lost, nothing counted twice", async () => {
    const boss = await registerUser(api(), "boss");
    const reader = await registerUser(api(), "reader");
    const { ws, issue } = await team(boss, [reader]);
    await Promise.all(Array.from({ length: 6 }, (_, index) => mention(ws, issue.id, boss, `@reader early ${index}`)));
    const early = (await api().get("me/inbox", auth(reader))).body as any[];
    const answers = await Promise.all([
      ...Array.from({ length: 10 }, (_, index) => mention(ws, issue.id, boss, `@reader late ${index}`)),
      ...early.map((item) => api().post(`me/inbox/${item.id}/read`, undefined, auth(reader))),
      api().post(`me/inbox/read-all?workspace_id=${ws}`, undefined, auth(reader)),
      api().post("me/inbox/read-all", undefined, auth(reader)),
    ]);
    expect(answers.map((answer) => answer.status).filter((status) => status >= 300)).toEqual([]);
    const unread = (await api().get("me/inbox?unread=true&limit=200", auth(reader))).body as any[];
    const all = (await api().get("me/inbox?limit=200", auth(reader))).body as any[];
    expect(all).toHaveLength(16);
    expect(await count(reader)).toBe(unread.length);
    expect((await api().post("me/inbox/read-all", undefined, auth(reader))).body).toEqual({ read: unread.length });
    expect(await count(reader)).toBe(0);
  });

  it("an API key reads only its own workspace's items", async () => {
    const boss = await registerUser(api(), "boss");
    const reader = await registerUser(api(), "reader");
    const one = await team(boss, [reader]);
    const two = await team(reader, [boss]);
    await mention(one.ws, one.issue.id, boss, "@reader in one");
    await mention(two.ws, two.issue.id, reader, "@boss in two");
    await mention(two.ws, two.issue.id, boss, "@reader in two");
    const key = (await api().post(`workspaces/${two.ws}/api-keys`, { name: "inbox" }, auth(reader))).body.key;
    const withKey = { headers: { "x-api-key": key } };
    const listed = (await api().get("me/inbox", withKey)).body;
    expect(listed.map((item: any) => item.body)).toEqual(["@reader in two"]);
    expect((await api().get("me/inbox/count", withKey)).body).toEqual({ unread: 1 });
    expect((await api().get(`me/inbox?workspace_id=${one.ws}`, withKey)).status).toBe(403);
    const [elsewhere] = (await api().get(`me/inbox?workspace_id=${one.ws}`, auth(reader))).body;
    expect((await api().post(`me/inbox/${elsewhere.id}/read`, undefined, withKey)).status).toBe(404);
    expect((await api().post("me/inbox/read-all", undefined, withKey)).body).toEqual({ read: 1 });
    expect(await count(reader)).toBe(1);
  });
});
