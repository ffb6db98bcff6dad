// An agent asks a person: ask_human parks the task in waiting_input with nothing of a process held, any member answers
// once, and the run resumes with the answer as the tool's result (a restart in between changes nothing).
import { describe, expect, it } from "vitest";
import { testDialects } from "../helpers/databases.ts";
import {
  acrossRestart,
  createAgent,
  createIssue,
  expectNothingHeld,
  readRunEvents,
  taskReaching,
  tasksOf,
  toolNamesOf,
  useWorkFixture,
} from "./helpers.ts";

/** The tool message the model was sent for `callId` in its newest request. */
const toolResultIn = (body: any, callId: string): string | undefined =>
  body?.messages?.find((message: { role: string; tool_call_id?: string }) => message.tool_call_id === callId)?.content;

describe.each(testDialects)("questions (%s)", (dialect) => {
  const f = useWorkFixture(dialect);

  const questions = async (query = "") =>
    (await f.api.get(`workspaces/${f.ws}/questions${query}`, { token: f.member.token })).body as any[];
  const answer = (id: string, body: unknown, token = f.member.token) =>
    f.api.post(`workspaces/${f.ws}/questions/${id}/answer`, body, { token });

  /** An agent asked to work on an issue, whose model calls ask_human with `args`; resolves once its task waits. */
  async function askingRun(name: string, args: Record<string, unknown>) {
    const agent = await createAgent(f, { name });
    const callId = `call_${name}`;
    f.model.reply({ text: "Let me ask.", toolCalls: [{ id: callId, name: "ask_human", arguments: args }] });
    const issue = await createIssue(f, { assignee_type: "agent", assignee_id: agent.id });
    const task = await taskReaching(f, issue.id, ["waiting_input"]);
    const [question] = (await questions("?status=open")).filter((each) => each.task_id === task.id);
    return { agent, issue, task, question, callId };
  }

  it("the task waits in waiting_input; the chosen option is the tool's result and the run goes on", async () => {
    const { agent, issue, task, question, callId } = await askingRun("Asker", {
      question: "Which database should the report use?",
      options: ["SQLite", "PostgreSQL"],
    });
    expect(toolNamesOf(f.model.requests[0]?.body)).toContain("ask_human");
    expect(question).toEqual({
      id: expect.any(String),
      workspace_id: f.ws,
      task_id: task.id,
      run_id: task.run_id,
      agent_id: agent.id,
      issue_id: issue.id,
      question: "Which database should the report use?",
      options: ["SQLite", "PostgreSQL"],
      multiple: false,
      status: "open",
      answer: null,
      answered_by: null,
      created_at: expect.any(String),
      answered_at: null,
    });
    const run = (await f.api.get(`workspaces/${f.ws}/runs/${task.run_id}`, { token: f.member.token })).body;
    expect(run.status).toBe("waiting_input");
    await expectNothingHeld(f, task.id, agent.id);
    // Asking posts nothing else.
    const comments = (await f.api.get(`workspaces/${f.ws}/issues/${issue.id}/comments`, { token: f.member.token }))
      .body;
    expect(comments).toEqual([]);

    f.model.reply({ text: "Using PostgreSQL." });
    const answered = await answer(question.id, { answer: "PostgreSQL" });
    expect(answered).toMatchObject({
      status: 200,
      body: {
        id: question.id,
        status: "answered",
        answer: "PostgreSQL",
        answered_by: f.member.user.id,
        answered_at: expect.any(String),
      },
    });
    const done = await taskReaching(f, issue.id);
    expect(done).toMatchObject({ status: "succeeded", attempt: 1, run_id: task.run_id });
    expect(toolResultIn(f.model.requests.at(-1)?.body, callId)).toBe("PostgreSQL");

    const { frames } = await readRunEvents(f, task.run_id);
    const names = frames.map((frame) => (frame.event === "CUSTOM" ? `CUSTOM ${frame.data.name}` : frame.event));
    const asked = names.indexOf("CUSTOM question_asked");
    expect(names.slice(asked - 1, asked + 3)).toEqual([
      "TOOL_CALL_END",
      "CUSTOM question_asked",
      "CUSTOM question_answered",
      "TOOL_CALL_RESULT",
    ]);
    expect(frames[asked]?.data.value).toMatchObject({ id: question.id, status: "open" });
    expect(frames[asked + 1]?.data.value).toMatchObject({ id: question.id, status: "answered", answer: "PostgreSQL" });
    expect(names.at(-1)).toBe("RUN_FINISHED");

    const events = (
      await f.api.get(`workspaces/${f.ws}/events?types=question.*,task.waiting_input&limit=200`, {
        token: f.member.token,
      })
    ).body.filter((event: any) => event.entity_id === question.id || event.entity_id === task.id);
    expect(events.map((event: any) => event.type)).toEqual([
      "question.asked",
      "task.waiting_input",
      "question.answered",
    ]);

    const again = await answer(question.id, { answer: "SQLite" }, f.admin.token);
    expect(again).toMatchObject({ status: 409, body: { detail: expect.stringMatching(/already been answered/) } });
    expect((await questions("?status=answered")).find((each) => each.id === question.id)).toMatchObject({
      answer: "PostgreSQL",
    });
  });

  it("a question is in every member's inbox (not an outsider's) until someone answers it", async () => {
    const { issue, question } = await askingRun("Inboxer", { question: "Ship it today?", options: ["yes", "no"] });
    const inbox = async (token: string) =>
      ((await f.api.get(`me/inbox?workspace_id=${f.ws}`, { token })).body as any[]).filter(
        (item) => item.kind === "question_asked" && item.body === "Ship it today?",
      );
    for (const person of [f.owner, f.admin, f.member]) {
      expect(await inbox(person.token)).toEqual([
        expect.objectContaining({ workspace_id: f.ws, title: expect.stringContaining("Inboxer"), read_at: null }),
      ]);
    }
    expect((await f.api.get("me/inbox", { token: f.outsider.token })).body).not.toContainEqual(
      expect.objectContaining({ kind: "question_asked", body: "Ship it today?" }),
    );
    f.model.reply({ text: "Shipping." });
    expect((await answer(question.id, { answer: "yes" }, f.admin.token)).status).toBe(200);
    // Answered by one, read for everyone.
    for (const person of [f.owner, f.admin, f.member]) {
      expect((await inbox(person.token))[0]?.read_at).toEqual(expect.any(String));
    }
    // The resumed run takes "Shipping." before the next test resets the model's script.
    expect(await taskReaching(f, issue.id)).toMatchObject({ status: "succeeded" });
  });

  it("an answer that is not one of the options is a 400; several options when the question allows them", async () => {
    const { issue, question, callId } = await askingRun("Chooser", {
      question: "Which labels apply?",
      options: ["bug", "ui", "backend"],
      multiple: true,
    });
    expect(question).toMatchObject({ multiple: true, options: ["bug", "ui", "backend"] });
    const wrong = await answer(question.id, { answer: ["bug", "frontend"] });
    expect(wrong).toMatchObject({ status: 400, body: { detail: expect.stringMatching(/"frontend" is not one of/) } });
    const twice = await answer(question.id, { answer: ["bug", "bug"] });
    expect(twice.status).toBe(400);
    expect((await questions("?status=open")).map((each) => each.id)).toContain(question.id);

    const answered = await answer(question.id, { answer: ["bug", "ui"] });
    expect(answered.body).toMatchObject({ status: "answered", answer: ["bug", "ui"] });
    await taskReaching(f, issue.id);
    expect(JSON.parse(toolResultIn(f.model.requests.at(-1)?.body, callId) ?? "null")).toEqual(["bug", "ui"]);
  });

  it("a single-choice question takes one option; a free-text one takes text up to 10,000 characters", async () => {
    const single = await askingRun("Single", { question: "Ship today?", options: ["yes", "no"] });
    expect((await answer(single.question.id, { answer: "maybe" })).status).toBe(400);
    expect((await answer(single.question.id, { answer: ["yes", "no"] })).status).toBe(400);
    expect((await answer(single.question.id, { answer: "yes" })).status).toBe(200);
    await taskReaching(f, single.issue.id);

    const free = await askingRun("Free", { question: "What should the button say?" });
    expect(free.question).toMatchObject({ options: null, multiple: false });
    expect((await answer(free.question.id, { answer: ["Save"] })).status).toBe(400);
    expect((await answer(free.question.id, { answer: "x".repeat(10_001) })).status).toBe(422);
    expect((await answer(free.question.id, {})).status).toBe(422);
    f.model.reply({ text: "Labelled it." });
    expect((await answer(free.question.id, { answer: "Save changes" })).status).toBe(200);
    await taskReaching(f, free.issue.id);
    expect(toolResultIn(f.model.requests.at(-1)?.body, free.callId)).toBe("Save changes");
  });

  it("a comment folds into the waiting task; cancelling the task cancels its question", async () => {
    const { issue, task, question } = await askingRun("Dropped", { question: "Proceed?", options: ["yes", "no"] });
    await f.api.post(
      `workspaces/${f.ws}/issues/${issue.id}/comments`,
      { content: "More context here." },
      {
        token: f.member.token,
      },
    );
    const [still] = await tasksOf(f, issue.id);
    expect(still).toMatchObject({ id: task.id, status: "waiting_input" });
    expect(await tasksOf(f, issue.id)).toHaveLength(1);

    await f.api.post(`workspaces/${f.ws}/tasks/${task.id}/cancel`, undefined, { token: f.member.token });
    expect((await taskReaching(f, issue.id)).status).toBe("cancelled");
    expect((await questions("?status=cancelled")).find((each) => each.id === question.id)).toMatchObject({
      status: "cancelled",
      answer: null,
    });
    const { frames } = await readRunEvents(f, task.run_id);
    expect(frames.at(-1)?.data).toEqual({ type: "RUN_ERROR", message: "The task was cancelled", code: "cancelled" });
    const late = await answer(question.id, { answer: "yes" });
    expect(late.status).toBe(409);
  });

  it("unusable arguments are the tool's result, so the model can ask again; nobody else can see the question", async () => {
    const agent = await createAgent(f, { name: "Sloppy" });
    f.model.reply(
      { toolCalls: [{ id: "call_bad", name: "ask_human", arguments: { options: ["a"] } }] },
      { text: "I will manage." },
    );
    const issue = await createIssue(f, { assignee_type: "agent", assignee_id: agent.id });
    await taskReaching(f, issue.id);
    expect(toolResultIn(f.model.requests.at(-1)?.body, "call_bad")).toMatch(/^Error: Invalid arguments for ask_human/);

    const [any] = await questions();
    expect(any).toBeDefined();
    const outsider = await f.api.get(`workspaces/${f.ws}/questions`, { token: f.outsider.token });
    expect(outsider.status).toBe(403);
    const elsewhere = await f.api.post(
      `workspaces/${f.otherWs}/questions/${any.id}/answer`,
      { answer: "x" },
      {
        token: f.outsider.token,
      },
    );
    expect(elsewhere.status).toBe(404);
    expect((await f.api.get(`workspaces/${f.ws}/questions/not-an-id`, { token: f.member.token })).status).toBe(404);
    expect((await f.api.get(`workspaces/${f.ws}/questions?status=nope`, { token: f.member.token })).status).toBe(422);
  });
});

describe.each(testDialects)("questions across a restart (%s)", (dialect) => {
  it("a run waiting for an answer survives a restart: answered on the new server, it resumes there", async () => {
    const scene = {
      agent: { name: "Curious" },
      firstReply: () => ({
        toolCalls: [{ id: "call_q", name: "ask_human", arguments: { question: "Which colour?" } }],
      }),
      pendingPath: "questions?status=open",
    };
    await acrossRestart(dialect, scene, async ({ server, model, auth, ws, issue, pending: question, succeeded }) => {
      model.reply({ text: "Painting it teal." });
      const answered = await server.api.post(
        `workspaces/${ws}/questions/${question.id}/answer`,
        { answer: "Teal" },
        auth,
      );
      expect(answered.status).toBe(200);
      const task = await succeeded();
      expect(task.attempt).toBe(1);
      const comments = (await server.api.get(`workspaces/${ws}/issues/${issue.id}/comments`, auth)).body;
      expect(comments.map((comment: { content: string }) => comment.content)).toEqual(["Painting it teal."]);
      // The model went on from the stored thread: the call and the answer as its result.
      const resumed = model.requests.at(-1)?.body.messages;
      expect(resumed.map((message: { role: string }) => message.role)).toEqual(["system", "user", "assistant", "tool"]);
      expect(resumed.at(-1)).toMatchObject({ role: "tool", tool_call_id: "call_q", content: "Teal" });
    });
  });
});
