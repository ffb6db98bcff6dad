// The Inbox in a real browser against a real server: the nav link "Inbox" carries the unread count, live; the page
// lists the person's items newest first with links to their issues, Mark read and Mark all read (another tab's count
// follows); a failed load is answered by Retry; and it fits a phone. (SQLite: what is tested here is the page.)
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient, registerUser, startTestApp, type TestApp, type TestUser } from "../helpers/app.ts";
import { launchBrowser, signUpAndCreateWorkspace, type TestBrowser } from "../helpers/browser.ts";

// Functions passed to page.evaluate run in the browser: its globals, untyped here (the server's types have no DOM).
declare const document: any;

describe("the inbox in the browser", () => {
  let t: TestApp;
  let browser: TestBrowser;
  let page: Page;
  let api: ApiClient;
  let ws: string;
  let grace: TestUser;
  let issue: { id: string; identifier: string };

  beforeAll(async () => {
    t = await startTestApp("sqlite");
    api = new ApiClient(t.url);
    browser = await launchBrowser();
    page = await browser.newPage();
    const account = await signUpAndCreateWorkspace(page, t.url);
    ws = account.workspaceId;
    const { token } = (await api.post("auth/login", { email: account.email, password: account.password })).body;
    grace = await registerUser(api, "grace");
    await api.post(`workspaces/${ws}/members`, { user_id: grace.user.id }, { token });
    issue = (await api.post(`workspaces/${ws}/issues/`, { title: "Review the launch plan" }, { token: grace.token }))
      .body;
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const nav = () => page.getByRole("navigation", { name: "Main" });
  const inboxLink = () => nav().getByRole("link", { name: /^Inbox/ });
  const mention = (content: string) =>
    api.post(`workspaces/${ws}/issues/${issue.id}/comments`, { content }, { token: grace.token });
  const items = () => page.getByRole("main").getByRole("listitem");

  it("the nav link counts unread items live, and the page lists them newest first", async () => {
    expect(await inboxLink().textContent()).toBe("Inbox");
    await mention("@Ada-Lovelace could you look at the budget section?");
    await expect.poll(() => inboxLink().textContent()).toBe("Inbox1 unread");

    await inboxLink().click();
    await page.getByRole("heading", { name: "Inbox", level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/w/${ws}/inbox`);
    expect(await inboxLink().getAttribute("aria-current")).toBe("page");
    await items().first().getByText("could you look at the budget section?").waitFor();

    // A new item arrives on the open page, and the count follows.
    await mention("@Ada-Lovelace and the timeline too");
    await expect.poll(() => items().count()).toBe(2);
    expect(await items().first().textContent()).toContain("and the timeline too");
    await expect.poll(() => inboxLink().textContent()).toBe("Inbox2 unread");
    const title = `grace mentioned you on ${issue.identifier} Review the launch plan`;
    expect(await items().first().getByRole("link", { name: title }).count()).toBe(1);
  });

  it("Mark read reads one item, Mark all read the rest; the count goes with them", async () => {
    await items()
      .nth(1)
      .getByRole("button", { name: /^Mark read/ })
      .click();
    await expect.poll(() => inboxLink().textContent()).toBe("Inbox1 unread");
    expect(
      await items()
        .nth(1)
        .getByRole("button", { name: /^Mark read/ })
        .count(),
    ).toBe(0);

    await page.getByRole("button", { name: "Unread", exact: true }).click();
    await expect.poll(() => items().count()).toBe(1);
    await page.getByRole("button", { name: "Mark all read" }).click();
    await expect.poll(() => inboxLink().textContent()).toBe("Inbox");
    await page.reload();
    await page.getByText("Nothing unread.").waitFor();
    await page.getByRole("button", { name: "All", exact: true }).click();
    await expect.poll(() => items().count()).toBe(2);
  });

  it("an item's link opens its issue, and reads it", async () => {
    await mention("@Ada-Lovelace one more thing");
    await expect.poll(() => inboxLink().textContent()).toBe("Inbox1 unread");
    await items().first().getByRole("link").click();
    await page.getByRole("heading", { name: "Review the launch plan" }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/w/${ws}/issues/${issue.id}`);
    await expect.poll(() => inboxLink().textContent()).toBe("Inbox");
  });

  it("an item read in another tab leaves this tab's count too", async () => {
    await mention("@Ada-Lovelace from the other tab");
    await expect.poll(() => inboxLink().textContent()).toBe("Inbox1 unread");
    const other = await browser.newPage();
    try {
      await other.goto(`${t.url}/w/${ws}/inbox`);
      const newest = other.getByRole("main").getByRole("listitem").first();
      await newest.getByText("from the other tab").waitFor();
      await newest.getByRole("button", { name: /^Mark read/ }).click();
      await expect.poll(() => inboxLink().textContent()).toBe("Inbox");
    } finally {
      await other.close();
    }
  });

  it("a failed load says so, and Retry loads the inbox", async () => {
    await page.route("**/api/v1/me/inbox?**", (route) =>
      route.fulfill({ status: 503, contentType: "application/json", body: '{"detail":"Try again later"}' }),
    );
    await inboxLink().click();
    const alert = page.getByRole("main").getByRole("alert");
    await alert.getByText("Could not load your inbox: Try again later").waitFor();
    await page.unroute("**/api/v1/me/inbox?**");
    await alert.getByRole("button", { name: "Retry" }).click();
    await expect.poll(() => items().count()).toBe(4);
    expect(browser.problems.filter((problem) => !/status of (4\d\d|503)/.test(problem))).toEqual([]);
  });

  it("fits a 390 px phone", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await mention(`@Ada-Lovelace ${"a-very-long-word-without-spaces-".repeat(8)}`);
    await page.goto(`${t.url}/w/${ws}/inbox`);
    await expect.poll(() => items().count()).toBe(5);
    const extra = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(extra).toBeLessThanOrEqual(0);
    // Folded behind Menu, the count shows on the button too.
    const menu = page.getByRole("button", { name: /^Menu/ });
    expect(await menu.textContent()).toBe("Menu1 unread");
    await menu.click();
    await expect.poll(() => inboxLink().textContent()).toBe("Inbox1 unread");
  });
});
