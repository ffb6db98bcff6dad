import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDialects } from "../helpers/databases.ts";
import { activityOf, startWorkspaceFixture, unknownId, type WorkspaceFixture } from "../helpers/platform.ts";

const skillMd = (name: string) => `---\nname: ${name}\ndescription: How to ${name}\n---\n# ${name}\n`;

describe.each(testDialects)("agents carry skills (%s)", (dialect) => {
  let { t, ws, owner, member, outsider, otherWs } = {} as WorkspaceFixture;
  const agents = (suffix = "") => `workspaces/${ws}/agents/${suffix}`;
  const createSkill = async (workspace: string, name: string, token: string) => {
    const created = await t.api.post(
      `workspaces/${workspace}/skills`,
      { files: [{ path: "SKILL.md", content: skillMd(name) }] },
      { token },
    );
    expect(created.status).toBe(201);
    return created.body.id as string;
  };

  beforeAll(async () => {
    ({ t, ws, owner, member, outsider, otherWs } = await startWorkspaceFixture(dialect));
  });
  afterAll(() => t.close());

  it("an agent is created with skills, in the order given, and shows them wherever it is read", async () => {
    const triage = await createSkill(ws, "triage", member.token);
    const notes = await createSkill(ws, "release-notes", member.token);
    const created = await t.api.post(agents(), { name: "Skilled", skills: [notes, triage] }, { token: member.token });
    expect(created).toMatchObject({ status: 201, body: { skills: [notes, triage] } });
    expect((await t.api.get(agents(created.body.id), { token: owner.token })).body.skills).toEqual([notes, triage]);
    const listed = await t.api.get(agents(), { token: owner.token });
    expect(listed.body.find((agent: { id: string }) => agent.id === created.body.id).skills).toEqual([notes, triage]);
    const plain = await t.api.post(agents(), { name: "Plain" }, { token: member.token });
    expect(plain.body.skills).toEqual([]);
  });

  it("PATCH replaces the skills (recorded in agent.updated); leaving them out keeps them", async () => {
    const first = await createSkill(ws, "first", member.token);
    const second = await createSkill(ws, "second", member.token);
    const agent = (await t.api.post(agents(), { name: "Patched", skills: [first] }, { token: member.token })).body;
    const renamed = await t.api.patch(agents(agent.id), { name: "Renamed" }, { token: member.token });
    expect(renamed.body.skills).toEqual([first]);
    const patched = await t.api.patch(agents(agent.id), { skills: [second, first] }, { token: member.token });
    expect(patched).toMatchObject({ status: 200, body: { skills: [second, first] } });
    const updated = (await activityOf(t, ws)).filter(
      (row) => row.action === "agent.updated" && row.entity_id === agent.id,
    );
    expect(updated.at(-1)?.details).toMatchObject({ changes: { skills: { from: [first], to: [second, first] } } });
    const cleared = await t.api.patch(agents(agent.id), { skills: [] }, { token: member.token });
    expect(cleared.body.skills).toEqual([]);
  });

  it("another workspace's skill, or none at all, is 404 Skill not found and changes nothing", async () => {
    const mine = await createSkill(ws, "mine", member.token);
    const theirs = await createSkill(otherWs, "theirs", outsider.token);
    for (const id of [theirs, unknownId(), "not-an-id"]) {
      expect(
        await t.api.post(agents(), { name: `With ${id}`, skills: [mine, id] }, { token: member.token }),
      ).toMatchObject({ status: 404, body: { detail: "Skill not found" } });
    }
    const names = (await t.api.get(agents(), { token: member.token })).body.map(
      (agent: { name: string }) => agent.name,
    );
    expect(names.filter((name: string) => name.startsWith("With "))).toEqual([]);
    const agent = (await t.api.post(agents(), { name: "Guarded", skills: [mine] }, { token: member.token })).body;
    expect(await t.api.patch(agents(agent.id), { skills: [theirs] }, { token: member.token })).toMatchObject({
      status: 404,
      body: { detail: "Skill not found" },
    });
    expect((await t.api.get(agents(agent.id), { token: member.token })).body.skills).toEqual([mine]);
    expect((await t.api.patch(agents(agent.id), { skills: [mine, mine] }, { token: member.token })).status).toBe(422);
  });

  it("deleting a skill takes it off every agent", async () => {
    const kept = await createSkill(ws, "kept", member.token);
    const gone = await createSkill(ws, "gone", member.token);
    const agent = (await t.api.post(agents(), { name: "Loses one", skills: [gone, kept] }, { token: member.token }))
      .body;
    expect((await t.api.delete(`workspaces/${ws}/skills/${gone}`, { token: member.token })).status).toBe(204);
    expect((await t.api.get(agents(agent.id), { token: member.token })).body.skills).toEqual([kept]);
    const deleted = (await activityOf(t, ws)).find((row) => row.action === "skill.deleted");
    expect(deleted?.details).toMatchObject({ name: "gone", unlinked_agents: 1 });
  });
});
