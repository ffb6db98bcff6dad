// The issue page and the work on it, in a real browser against a real server and a model double: due date and
// project set on the page, activity in names (never ids), Markdown task lists in comments and in the agent's words,
// a comment deleted only after asking, each card's work state at a glance, Run again on an ended task, and agent
// badges that tell the truth.
import { beforeAll, describe, expect, it } from "vitest";
import { useBrowserFixture } from "../helpers/browser-fixture.ts";
import { testDialects } from "../helpers/databases.ts";

// Functions passed to page.evaluate run in the browser: its globals, untyped here (the server's types have no DOM).
declare const document: any;

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

describe.each(testDialects)("the issue page and work at a glance (%s)", (dialect) => {
  const f = useBrowserFixture(dialect, { TASK_MAX_ATTEMPTS: "1" });
  let agent: any;

  beforeAll(async () => {
    agent = (await f.api.post(`workspaces/${f.ws}/agents/`, { name: "Reviewer" }, { token: f.token })).body;
  });

  const newIssue = async (title: string, fields: Record<string, unknown> = {}) =>
    (await f.api.post(`workspaces/${f.ws}/issues/`, { title, ...fields }, { token: f.token })).body;
  const open = async (issue: any) => {
    await f.page.goto(`${f.t.url}/w/${f.ws}/issues/${issue.id}`);
    await f.page.getByRole("heading", { name: issue.title, level: 1 }).waitFor();
  };
  const card = (title: string) => f.page.getByRole("article", { name: new RegExp(title) });
  const readText = () => f.page.evaluate(() => document.body.innerText as string);

  it("a new agent's badge says Idle, not offline: it takes work at once", async () => {
    await f.page.goto(`${f.t.url}/w/${f.ws}/agents`);
    const row = f.page.getByRole("listitem").filter({ hasText: "Reviewer" });
    await row.getByText("Idle", { exact: true }).waitFor();
    expect((await readText()).toLowerCase()).not.toContain("offline");
  });

  it("due date and project are set on the issue page, and the card shows the due date", async () => {
    const project = (await f.api.post(`workspaces/${f.ws}/projects/`, { title: "Launch" }, { token: f.token })).body;
    const issue = await newIssue("Ship the beta");
    await open(issue);
    await f.page.getByLabel("Due date").fill("2031-05-17");
    await f.page.getByRole("combobox", { name: "Project" }).selectOption({ label: "Launch" });
    await expect
      .poll(async () => {
        const stored = (await f.api.get(`workspaces/${f.ws}/issues/${issue.id}`, { token: f.token })).body;
        return [stored.due_date?.slice(0, 10), stored.project_id];
      })
      .toEqual(["2031-05-17", project.id]);
    const activity = f.page.getByRole("region", { name: "Activity" });
    await activity.getByText("put it in the project Launch").waitFor();
    await activity.getByText(/set the due date to May 17, 2031/).waitFor();
    await f.page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Board" }).click();
    const due = card("Ship the beta").locator("time");
    expect(await due.getAttribute("datetime")).toBe("2031-05-17");
    expect(await due.textContent()).toBe("May 17, 2031");
  });

  it("the activity names people, agents, labels and statuses, and no page shows an id", async () => {
    const label = (await f.api.post(`workspaces/${f.ws}/labels`, { name: "bug", color: "#D14343" }, { token: f.token }))
      .body;
    const issue = await newIssue("Named, not numbered", { status: "todo" });
    await open(issue);
    await f.page.getByRole("checkbox", { name: "bug" }).check();
    await f.page.getByRole("combobox", { name: "Status" }).selectOption({ label: "Done" });
    await f.page.getByRole("combobox", { name: "Assignee" }).selectOption({ label: "Ada Lovelace" });
    const activity = f.page.getByRole("region", { name: "Activity" });
    for (const line of ["added label bug", "moved to Done", "assigned Ada Lovelace"])
      await activity.getByText(line, { exact: false }).waitFor();
    expect(await activity.getByText("Ada Lovelace", { exact: true }).count()).toBeGreaterThan(0);
    const body = await readText();
    expect(body).not.toMatch(UUID);
    expect(body).not.toContain(label.id);
    for (const path of [
      "board",
      "agents",
      `agents/${agent.id}`,
      "approvals",
      "calls",
      "settings/members",
      "settings/labels",
    ]) {
      await f.page.goto(`${f.t.url}/w/${f.ws}/${path}`);
      await f.page.getByRole("main").waitFor();
      await f.page.getByText("Loading…").waitFor({ state: "detached" });
      expect(await readText(), path).not.toMatch(UUID);
    }
  });

  it("comments render task lists; deleting one asks first", async () => {
    const issue = await newIssue("Checklist");
    await open(issue);
    await f.page.getByRole("textbox", { name: "Comment" }).fill("Plan:\n\n- [x] write the tests\n- [ ] ship **it**");
    await f.page.getByRole("button", { name: "Add comment" }).click();
    const comments = f.page.getByRole("region", { name: "Comments" });
    await comments.getByRole("checkbox", { name: "write the tests" }).waitFor();
    expect(await comments.getByRole("checkbox", { name: "write the tests" }).isChecked()).toBe(true);
    expect(await comments.getByRole("checkbox", { name: "ship it" }).isChecked()).toBe(false);
    expect(await comments.getByText("it", { exact: true }).evaluate((node) => node.tagName)).toBe("STRONG");
    const time = comments.locator("time").first();
    expect(await time.textContent()).toBe("just now");
    expect(await time.getAttribute("datetime")).toMatch(/Z$/);

    await comments.getByRole("button", { name: "Delete" }).click();
    await f.page.getByRole("dialog", { name: "Delete this comment?" }).getByRole("button", { name: "Cancel" }).click();
    expect((await f.api.get(`workspaces/${f.ws}/issues/${issue.id}/comments`, { token: f.token })).body).toHaveLength(
      1,
    );
    await comments.getByRole("button", { name: "Delete" }).click();
    await f.page
      .getByRole("dialog", { name: "Delete this comment?" })
      .getByRole("button", { name: "Delete comment" })
      .click();
    await comments.getByRole("checkbox").first().waitFor({ state: "detached" });
    expect((await f.api.get(`workspaces/${f.ws}/issues/${issue.id}/comments`, { token: f.token })).body).toEqual([]);
  });

  it("a card says Working, then Waiting for approval; the approval names the issue", async () => {
    await f.api.patch(
      `workspaces/${f.ws}/agents/${agent.id}`,
      { runtime_config: { approval_required: ["create_issue"] } },
      { token: f.token },
    );
    f.model.reset();
    f.model.reply({ stall: true, text: "Thinking it over" });
    const slow = await newIssue("Slow one", { assignee_type: "agent", assignee_id: agent.id });
    await f.page.goto(`${f.t.url}/w/${f.ws}/board`);
    await card("Slow one").getByText("Working", { exact: true }).waitFor();
    await f.page.goto(`${f.t.url}/w/${f.ws}/agents`);
    await f.page.getByRole("listitem").filter({ hasText: "Reviewer" }).getByText("Working", { exact: true }).waitFor();
    const [task] = (await f.api.get(`workspaces/${f.ws}/issues/${slow.id}/tasks`, { token: f.token })).body;
    await f.api.post(`workspaces/${f.ws}/tasks/${task.id}/cancel`, {}, { token: f.token });

    f.model.reset();
    f.model.reply({
      text: "I will file a **follow-up**:\n\n- [ ] check the docs",
      toolCalls: [{ id: "call_1", name: "create_issue", arguments: { title: "Follow-up" } }],
    });
    await newIssue("Needs a decision", { assignee_type: "agent", assignee_id: agent.id });
    await f.page.goto(`${f.t.url}/w/${f.ws}/board`);
    await card("Needs a decision").getByText("Waiting for approval", { exact: true }).waitFor();
    expect(await card("Slow one").getByText("Working", { exact: true }).count()).toBe(0);
    await f.page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Approvals" }).click();
    await f.page.getByRole("link", { name: /ISS-\d+ Needs a decision/ }).waitFor();
    // The agent's words in the run are Markdown: bold and a task list.
    await f.page.getByRole("link", { name: /Needs a decision/ }).click();
    const run = f.page.getByRole("article", { name: "Task of Reviewer" });
    expect(await run.getByText("follow-up", { exact: true }).evaluate((node) => node.tagName)).toBe("STRONG");
    expect(await run.getByRole("checkbox", { name: "check the docs" }).isChecked()).toBe(false);
    await run.getByRole("button", { name: "Deny" }).click();
    await run.getByText("Run finished").waitFor();
  });

  it("a failed task shows Failed on its card; Run again works it again and the card clears", async () => {
    f.model.reset();
    f.model.setDefault({ status: 400, message: "the model is down" });
    const issue = await newIssue("Unlucky", { assignee_type: "agent", assignee_id: agent.id });
    await f.page.goto(`${f.t.url}/w/${f.ws}/board`);
    await card("Unlucky").getByText("Failed", { exact: true }).waitFor();
    await open(issue);
    const task = f.page.getByRole("article", { name: "Task of Reviewer" });
    await task
      .getByText(/the model is down/)
      .first()
      .waitFor();
    f.model.setDefault({ text: "Fixed it this time." });
    await task.getByRole("button", { name: "Run again" }).click();
    await f.page.getByRole("region", { name: "Comments" }).getByText("Fixed it this time.").waitFor();
    const tasks = (await f.api.get(`workspaces/${f.ws}/issues/${issue.id}/tasks`, { token: f.token })).body;
    expect(tasks.map((each: any) => [each.trigger, each.status])).toEqual([
      ["manual", "succeeded"],
      ["assigned", "failed"],
    ]);
    // Only the newest ended task offers Run again, and not while work is open.
    expect(await f.page.getByRole("button", { name: "Run again" }).count()).toBe(1);
    await f.page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Board" }).click();
    await card("Unlucky").waitFor();
    await expect.poll(() => card("Unlucky").getByText("Failed", { exact: true }).count()).toBe(0);
    expect(f.browser.problems.filter((problem) => !/status of 4\d\d/.test(problem))).toEqual([]);
  });
});
