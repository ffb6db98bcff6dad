// Times as people read them, in browsers in other time zones: every time a <time> whose datetime carries its zone
// (the API's zone-less times are UTC), its text relative or local to the browser's zone, and the full local date as
// its title. The browser's clock is fixed, so "5 min ago" and "yesterday" do not depend on when the test runs.
// (SQLite: what is tested here is the page, not the store.)
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient, startTestApp, type TestApp } from "../helpers/app.ts";
import { launchBrowser } from "../helpers/browser.ts";

// Functions passed to page.evaluate run in the browser: its globals, untyped here (the server's types have no DOM).
declare const localStorage: any;

// Written at 03:30 UTC on 10 March 2024: 22:30 the evening before in New York, 12:30 the same day in Tokyo.
const WRITTEN = "2024-03-10T03:30:00.000000";

interface Shown {
  datetime: string | null;
  title: string | null;
  text: string | null;
}

describe("times in the browser's zone", () => {
  let t: TestApp;
  let api: ApiClient;
  let session: { token: string; user: unknown };
  let issuePath: string;

  beforeAll(async () => {
    t = await startTestApp("sqlite");
    api = new ApiClient(t.url);
    session = (
      await api.post("auth/register", { email: "tz@example.com", password: "correct horse battery", name: "Tz" })
    ).body;
    const as = { token: session.token };
    const ws = (await api.post("workspaces/", { name: "Zones" }, as)).body.id;
    const issue = (await api.post(`workspaces/${ws}/issues/`, { title: "Around the world" }, as)).body;
    const comment = (await api.post(`workspaces/${ws}/issues/${issue.id}/comments`, { content: "Hello" }, as)).body;
    await t.db.updateTable("comments").set({ created_at: WRITTEN }).where("id", "=", comment.id).execute();
    issuePath = `/w/${ws}/issues/${issue.id}`;
  }, 60_000);
  afterAll(() => t?.close());

  /** A browser in `timezoneId`; `read(now)` is the comment's <time> as it shows when the browser's clock reads `now`. */
  async function inZone(timezoneId: string, check: (read: (now: string) => Promise<Shown>) => Promise<void>) {
    const browser = await launchBrowser({ timezoneId, locale: "en-US" });
    try {
      const page = await browser.newPage();
      await page.goto(t.url);
      await page.evaluate((stored) => localStorage.setItem("agent-platform.session", stored), JSON.stringify(session));
      await check(async (now) => {
        await page.clock.setFixedTime(new Date(now));
        await page.goto(`${t.url}${issuePath}`);
        const time = page.getByRole("region", { name: "Comments" }).locator("time");
        await time.waitFor();
        return {
          datetime: await time.getAttribute("datetime"),
          title: await time.getAttribute("title"),
          text: await time.textContent(),
        };
      });
    } finally {
      await browser.close();
    }
  }

  it("New York: the evening before, in its own zone; 5 min ago, then yesterday", async () => {
    await inZone("America/New_York", async (read) => {
      expect(await read("2024-03-10T03:35:00Z")).toEqual({
        datetime: `${WRITTEN}Z`,
        title: "Saturday, March 9, 2024 at 10:30:00 PM EST",
        text: "5 min ago",
      });
      // 11:00 the next morning there (after the switch to summer time): yesterday, at its local time.
      expect((await read("2024-03-10T15:00:00Z")).text).toBe("yesterday, 10:30 PM");
    });
  });

  it("Tokyo: the same moment is lunchtime on the 10th; days later it reads as a date", async () => {
    await inZone("Asia/Tokyo", async (read) => {
      const later = await read("2024-03-10T05:00:00Z");
      expect(later.title).toBe("Sunday, March 10, 2024 at 12:30:00 PM GMT+9");
      expect(later.text).toBe("1 h ago");
      expect((await read("2024-03-14T00:00:00Z")).text).toBe("Mar 10");
      expect((await read("2025-01-02T00:00:00Z")).text).toBe("Mar 10, 2024");
    });
  });
});
