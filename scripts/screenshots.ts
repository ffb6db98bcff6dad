// Takes the README's dashboard screenshots from the real app: a server on a throwaway SQLite database, a model
// double for the agent, a workspace filled through the API, then Debian's chromium in light and dark.
// Run: npx tsx scripts/screenshots.ts  (writes docs/screenshots/*.png; SCREENSHOTS_DIR=<dir> writes there instead)
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ApiClient, startTestApp } from "../test/helpers/app.ts";
import { launchBrowser } from "../test/helpers/browser.ts";
import { TestModelServer } from "../test/helpers/model-server.ts";
import { ensureWebBuild } from "./build-web.ts";

const out = process.env.SCREENSHOTS_DIR
  ? `${process.env.SCREENSHOTS_DIR.replace(/\/$/, "")}/`
  : fileURLToPath(new URL("../docs/screenshots/", import.meta.url));
mkdirSync(out, { recursive: true });

ensureWebBuild();
const model = await TestModelServer.start();
const t = await startTestApp("sqlite", { env: { OPENAI_BASE_URL: model.url, AGENT_MODEL: "openai/demo-model" } });
const api = new ApiClient(t.url);
try {
  const email = "ada@example.com";
  const password = "correct horse battery";
  const { token } = (await api.post("auth/register", { email, password, name: "Ada Lovelace" })).body;
  const as = { token };
  const ws = (await api.post("workspaces/", { name: "Acme Robotics" }, as)).body.id;
  const grace = (await api.post("auth/register", { email: "grace@example.com", password, name: "Grace Hopper" })).body;
  await api.post(`workspaces/${ws}/members`, { user_id: grace.user.id, role: "admin" }, as);
  const agent = (
    await api.post(
      `workspaces/${ws}/agents/`,
      {
        name: "Reviewer",
        model: "openai/demo-model",
        instructions: "Review changes and file follow-ups.",
        runtime_config: { approval_required: ["create_issue"], price: { input: 3, output: 15 } },
      },
      as,
    )
  ).body;
  const bug = (await api.post(`workspaces/${ws}/labels`, { name: "bug", color: "#D14343" }, as)).body;
  const docs = (await api.post(`workspaces/${ws}/labels`, { name: "docs", color: "#2F6FD1" }, as)).body;
  const project = (await api.post(`workspaces/${ws}/projects/`, { title: "Launch" }, as)).body;
  const seed: [string, string, string, string | null, string | null][] = [
    ["Write the onboarding guide", "todo", "medium", docs.id, "member"],
    ["Login page loses the session on refresh", "in_progress", "urgent", bug.id, "member"],
    ["Add rate limits to the public API", "backlog", "high", null, null],
    ["Dark theme for the dashboard", "in_review", "low", null, "member"],
    ["Release notes for 0.1", "done", "none", docs.id, null],
    ["Webhook retries double-send on timeout", "blocked", "high", bug.id, null],
    ["Old CSV export", "cancelled", "none", null, null],
    ["Sketch the mobile layout", "backlog", "low", null, null],
  ];
  for (const [index, [title, status, priority, label, assignee]] of seed.entries()) {
    const issue = (
      await api.post(
        `workspaces/${ws}/issues/`,
        {
          title,
          status,
          priority,
          project_id: project.id,
          ...(index % 3 === 0 && { due_date: `2026-0${(index % 8) + 1}-1${index}` }),
          ...(assignee && { assignee_type: "member", assignee_id: grace.user.id }),
        },
        as,
      )
    ).body;
    if (label) await api.post(`workspaces/${ws}/issues/${issue.id}/labels/${label}`, {}, as);
  }
  model.reply({
    text: "The changelog misses the webhook fix. I will file a follow-up for it.",
    toolCalls: [{ id: "call_1", name: "create_issue", arguments: { title: "Changelog: mention the webhook fix" } }],
  });
  const reviewed = (
    await api.post(
      `workspaces/${ws}/issues/`,
      {
        title: "Review the 0.1 changelog",
        description:
          "Check the changelog against the merged work.\n\n- every **fix** is listed\n- links point to the issues\n\n`docs/CHANGELOG.md`",
        status: "todo",
        priority: "high",
        assignee_type: "agent",
        assignee_id: agent.id,
      },
      as,
    )
  ).body;
  await api.post(
    `workspaces/${ws}/issues/${reviewed.id}/comments`,
    { content: "Please check the **webhook** part too." },
    as,
  );
  for (let attempt = 0; attempt < 100; attempt++) {
    const [task] = (await api.get(`workspaces/${ws}/issues/${reviewed.id}/tasks`, as)).body;
    if (task?.status === "waiting_approval") break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  // Grace names Ada in a comment: a mention in Ada's inbox, next to the approval that waits for her.
  await api.post(
    `workspaces/${ws}/issues/${reviewed.id}/comments`,
    { content: "@Ada-Lovelace the follow-up needs your approval before the release." },
    { token: grace.token },
  );

  for (const scheme of ["light", "dark"] as const) {
    const browser = await launchBrowser({ colorScheme: scheme });
    const page = await browser.newPage();
    await page.goto(t.url);
    if (scheme === "light") await page.screenshot({ path: `${out}sign-in.png` });
    await page.getByRole("textbox", { name: "Email" }).fill(email);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("link", { name: /Review the 0.1 changelog/ }).waitFor();
    await page.waitForTimeout(300);
    await page.screenshot({ path: `${out}board-${scheme}.png` });
    if (scheme === "light") {
      await page.getByRole("link", { name: /Review the 0.1 changelog/ }).click();
      await page.getByRole("button", { name: "Approve" }).waitFor();
      await page.waitForTimeout(300);
      await page.screenshot({ path: `${out}issue.png`, fullPage: true });
      model.reply({ text: "The open bugs are the login session loss and the webhook double-send." });
      await page.goto(`${t.url}/w/${ws}/agents/${agent.id}`);
      await page.getByRole("textbox", { name: "Message" }).fill("Which bugs are open?");
      await page.getByRole("button", { name: "Send" }).click();
      await page.getByText("The open bugs are").waitFor();
      await page.waitForTimeout(300);
      await page.screenshot({ path: `${out}agent-chat.png` });
      await page.goto(`${t.url}/w/${ws}/approvals`);
      await page.getByRole("button", { name: "Approve" }).waitFor();
      await page.screenshot({ path: `${out}approvals.png` });
      await page.goto(`${t.url}/w/${ws}/inbox`);
      await page
        .getByText(/needs your approval before the release/)
        .first()
        .waitFor();
      await page.screenshot({ path: `${out}inbox.png` });
      await page.goto(`${t.url}/w/${ws}/settings/usage`);
      await page.getByRole("img", { name: "Cost by day" }).waitFor();
      await page.screenshot({ path: `${out}usage.png`, fullPage: true });
      await page.goto(`${t.url}/w/${ws}/settings`);
      await page.getByRole("heading", { name: "Members" }).waitFor();
      await page.screenshot({ path: `${out}settings.png` });
      await page.goto(`${t.url}/w/${ws}/settings/labels`);
      await page.getByRole("button", { name: "New label" }).click();
      await page.getByRole("button", { name: "Create" }).click();
      await page.getByText("Name is required").waitFor();
      await page.screenshot({ path: `${out}settings-labels.png` });
      await page.keyboard.press("Escape");
      await page.goto(`${t.url}/w/${ws}/board`);
      const card = page.getByRole("article", { name: /Login page loses the session/ });
      await card.getByRole("button", { name: "Move" }).click();
      await page.getByRole("menu").waitFor();
      await page.screenshot({ path: `${out}move-menu.png` });
      await page.keyboard.press("Escape");
      await page.keyboard.press("Control+k");
      await page.getByRole("combobox", { name: "Go to" }).fill("web");
      await page.getByRole("option", { name: /Webhook retries/ }).waitFor();
      await page.screenshot({ path: `${out}command-palette.png` });
      await page.keyboard.press("Escape");
      await page.setViewportSize({ width: 390, height: 844 });
      await page.screenshot({ path: `${out}phone-board.png` });
      await page.getByRole("button", { name: "Menu" }).click();
      await page.screenshot({ path: `${out}phone-menu.png` });
      await page.getByRole("link", { name: /Review the 0.1 changelog/ }).click();
      await page.getByRole("heading", { name: "Review the 0.1 changelog" }).waitFor();
      await page.screenshot({ path: `${out}phone-issue.png`, fullPage: true });
    }
    await browser.close();
  }
  console.log(`screenshots written to ${out}`);
} finally {
  await t.close();
  await model.close();
}
