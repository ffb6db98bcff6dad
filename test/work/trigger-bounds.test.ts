// Agents triggering agents are bounded: a chain of agent-made triggers on an issue stops at AGENT_CHAIN_MAX_DEPTH,
// an agent gets at most AGENT_TRIGGER_RATE agent-triggered tasks per window, each stop says so in the activity, and a
// person's comment always starts the work again.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { testDialects } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import { createAgent, createIssue, startWorkFixture, TERMINAL, tasksOf, type WorkFixture } from "./helpers.ts";

const BOUNDS = { AGENT_CHAIN_MAX_DEPTH: "3", AGENT_TRIGGER_RATE: "4", AGENT_TRIGGER_WINDOW_MS: "600000" };

describe.each(testDialects)("bounds on agents triggering agents (%s)", (dialect) => {
  let f: WorkFixture;
  beforeAll(async () => {
    f = await startWorkFixture(dialect, { env: BOUNDS });
  });
  afterAll(() => f.close());
  beforeEach(() => {
    f.model.reset();
    f.model.setDefault({ text: "Done." });
  });

  /** Each agent answers by its instructions: the model double reads them from the system message. */
  const answerBy = (answers: Record<string, string>) =>
    f.model.routeBy((body) => {
      const system: string = body.messages?.[0]?.content ?? "";
      const who = Object.keys(answers).find((name) => system.includes(`You are ${name}.`));
      return who ? { text: answers[who] } : undefined;
    });
  const comment = (issueId: string, content: string) =>
    f.api.post(`workspaces/${f.ws}/issues/${issueId}/comments`, { content }, { token: f.member.token });
  const stoppedOn = async (issueId: string) =>
    (await f.api.get(`workspaces/${f.ws}/issues/${issueId}/activity?limit=100`, { token: f.member.token })).body.filter(
      (entry: { action: string }) => entry.action === "task.trigger_stopped",
    );
  /** The issue's tasks once `count` of them exist and all have ended, oldest first. */
  const endedTasks = (issueId: string, count: number) =>
    eventually(async () => {
      const tasks = await tasksOf(f, issueId);
      return tasks.length === count && tasks.every((task) => TERMINAL.includes(task.status)) && tasks.reverse();
    }, `${count} ended tasks`);

  it("two agents mentioning each other stop at the chain depth, and a person's comment starts them again", async () => {
    const ping = await createAgent(f, { name: "Ping Bot", instructions: "You are Ping." });
    const pong = await createAgent(f, { name: "Pong Bot", instructions: "You are Pong." });
    answerBy({ Ping: "@pong-bot your turn.", Pong: "@ping-bot your turn." });
    const issue = await createIssue(f, { title: "Ping pong" });

    await comment(issue.id, "@ping-bot start");
    const [stopped] = await eventually(async () => {
      const entries = await stoppedOn(issue.id);
      return entries.length > 0 && entries;
    }, "the stop in the activity");
    // Ping (a person's mention, depth 0), Pong 1, Ping 2, Pong 3; Ping at depth 4 is past the bound of 3.
    const first = await endedTasks(issue.id, 4);
    expect(first.map((task) => [task.agent_id, task.trigger, task.status])).toEqual([
      [ping.id, "mention", "succeeded"],
      [pong.id, "mention", "succeeded"],
      [ping.id, "mention", "succeeded"],
      [pong.id, "mention", "succeeded"],
    ]);
    expect(stopped).toMatchObject({
      entity_type: "agent",
      entity_id: ping.id,
      issue_id: issue.id,
      actor_type: "agent",
      actor_id: pong.id,
      details: {
        agent_id: ping.id,
        agent_name: "Ping Bot",
        bound: "chain_depth",
        chain_depth: 4,
        max_chain_depth: 3,
        trigger: "mention",
        message: expect.stringMatching(/^No task for Ping Bot: .*A person's comment starts the work again\.$/),
      },
    });
    const stoppedComment = (await f.t.db
      .selectFrom("comments")
      .select("author_id")
      .where("id", "=", stopped.details.comment_id)
      .executeTakeFirstOrThrow()) as { author_id: string };
    expect(stoppedComment.author_id).toBe(pong.id);

    // A person's comment restarts the chain from depth 0: four more tasks, then the next stop.
    await comment(issue.id, "@ping-bot once more, please");
    await eventually(async () => (await stoppedOn(issue.id)).length === 2, "the second stop");
    const all = await endedTasks(issue.id, 8);
    expect(all.slice(4).map((task) => [task.agent_id, task.status])).toEqual([
      [ping.id, "succeeded"],
      [pong.id, "succeeded"],
      [ping.id, "succeeded"],
      [pong.id, "succeeded"],
    ]);
  });

  it("an agent gets at most AGENT_TRIGGER_RATE agent-triggered tasks per window; a person's trigger still works", async () => {
    const herald = await createAgent(f, { name: "Herald", instructions: "You are Herald." });
    const listener = await createAgent(f, { name: "Listener", instructions: "You are Listener." });
    answerBy({ Herald: "News for @listener.", Listener: "Noted." });
    const issues: { id: string }[] = [];
    for (let index = 0; index < 5; index++) {
      const issue = await createIssue(f, { title: `News ${index}` });
      issues.push(issue);
      await comment(issue.id, "@herald anything new?");
      // Herald's task (a person's mention), then, for the first four, Listener's (mentioned by Herald).
      await endedTasks(issue.id, index < 4 ? 2 : 1);
    }
    const [stopped] = await eventually(async () => {
      const entries = await stoppedOn(issues[4].id);
      return entries.length > 0 && entries;
    }, "the rate stop");
    expect(stopped.details).toMatchObject({
      agent_id: listener.id,
      agent_name: "Listener",
      bound: "rate",
      chain_depth: 1,
      rate: 4,
      window_ms: 600000,
    });
    expect((await tasksOf(f, issues[4].id)).map((task) => task.agent_id)).toEqual([herald.id]);
    for (const issue of issues.slice(0, 4)) expect(await stoppedOn(issue.id)).toEqual([]);

    // A person mentioning the agent is no agent-made trigger: it works at once.
    await comment(issues[4].id, "@listener did you see this?");
    const tasks = await endedTasks(issues[4].id, 2);
    expect(tasks.map((task) => [task.agent_id, task.status])).toEqual([
      [herald.id, "succeeded"],
      [listener.id, "succeeded"],
    ]);
  });
});
