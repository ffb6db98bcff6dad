// Skills in in-process runs: the model sees each attached skill's name and description, and reads one only when it
// calls read_skill (a task run and /agui alike), through the model double speaking OpenAI's wire format.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { testDialects } from "../helpers/databases.ts";
import { createAgent, createIssue, startWorkFixture, taskReaching, type WorkFixture } from "../work/helpers.ts";

const SKILL_MD =
  "---\nname: release-notes\ndescription: Write release notes from the issues done this week\n---\n\n" +
  "# Release notes\n\nGroup by project; follow reference/style.md.\n";
const STYLE = "Use past tense. One line per issue.\n";

describe.each(testDialects)("read_skill in runs (%s)", (dialect) => {
  let f: WorkFixture;
  let skillId: string;
  const systemOf = (request: { body: any }) => request.body.messages[0].content as string;
  const toolResults = (request: { body: any }) =>
    (request.body.messages as any[]).filter((message) => message.role === "tool").map((message) => message.content);
  const toolNames = (request: { body: any }) => (request.body.tools ?? []).map((tool: any) => tool.function.name);

  beforeAll(async () => {
    f = await startWorkFixture(dialect);
    const created = await f.api.post(
      `workspaces/${f.ws}/skills`,
      {
        files: [
          { path: "SKILL.md", content: SKILL_MD },
          { path: "reference/style.md", content: STYLE },
          { path: "logo.png", content: Buffer.from([0x89, 0x50, 0xff, 0x00]).toString("base64"), encoding: "base64" },
        ],
      },
      { token: f.member.token },
    );
    expect(created.status).toBe(201);
    skillId = created.body.id;
  });
  afterAll(() => f.close());
  beforeEach(() => f.model.reset());

  it("a task run lists the skill in the system prompt and reads SKILL.md, then a file, through read_skill", async () => {
    const agent = await createAgent(f, { name: "Scribe", instructions: "You write.", skills: [skillId] });
    f.model.reply(
      { toolCalls: [{ id: "call_1", name: "read_skill", arguments: { name: "release-notes" } }] },
      {
        toolCalls: [
          { id: "call_2", name: "read_skill", arguments: { name: "release-notes", path: "reference/style.md" } },
          { id: "call_3", name: "read_skill", arguments: { name: "release-notes", path: "logo.png" } },
          { id: "call_4", name: "read_skill", arguments: { name: "release-notes", path: "missing.md" } },
          { id: "call_5", name: "read_skill", arguments: { name: "someone-elses" } },
        ],
      },
      { text: "Notes written." },
    );
    const issue = await createIssue(f, { title: "Release notes", assignee_type: "agent", assignee_id: agent.id });
    expect((await taskReaching(f, issue.id)).status).toBe("succeeded");

    const [first, second, third] = f.model.requests;
    expect(systemOf(first!)).toContain("You write.");
    expect(systemOf(first!)).toContain("- release-notes: Write release notes from the issues done this week");
    expect(systemOf(first!)).not.toContain("Group by project");
    expect(toolNames(first!)).toContain("read_skill");
    expect(toolResults(second!)).toEqual([SKILL_MD]);
    expect(toolResults(third!).slice(1)).toEqual([
      STYLE,
      '"logo.png" of skill "release-notes" is a binary file (4 bytes): read_skill returns text only',
      'Error: Skill "release-notes" has no file "missing.md"; its files: SKILL.md, logo.png, reference/style.md',
      'Error: You have no skill named "someone-elses"',
    ]);
  });

  it("/agui runs of the agent get the same, and an agent without skills gets neither list nor tool", async () => {
    const agent = await createAgent(f, { name: "Chatty", skills: [skillId] });
    f.model.reply(
      { toolCalls: [{ id: "call_a", name: "read_skill", arguments: { name: "release-notes" } }] },
      { text: "Read it." },
    );
    const response = await fetch(`${f.t.url}/agui?agent=${agent.id}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${f.member.token}` },
      body: JSON.stringify({
        threadId: "skills-thread",
        state: { messages: [{ id: "m1", role: "user", content: "Notes please" }] },
      }),
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("run_finished");
    const [first, second] = f.model.requests;
    expect(systemOf(first!)).toContain("- release-notes: Write release notes");
    expect(toolResults(second!)).toEqual([SKILL_MD]);

    f.model.reset();
    f.model.reply({ text: "Plain." });
    const plain = await createAgent(f, { name: "Plain" });
    await (
      await fetch(`${f.t.url}/agui?agent=${plain.id}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${f.member.token}` },
        body: JSON.stringify({
          threadId: "plain-thread",
          state: { messages: [{ id: "m1", role: "user", content: "Hi" }] },
        }),
      })
    ).text();
    expect(JSON.stringify(f.model.requests[0]?.body.messages)).not.toContain("release-notes");
    expect(toolNames(f.model.requests[0]!)).not.toContain("read_skill");
  });
});
