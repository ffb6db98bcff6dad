// The Calls page plays a call's recording: a real call server (CALL_RECORDING) records a call on the dashboard
// server's database and recordings directory, and the page's audio control holds the whole call.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { launchBrowser, signUpAndCreateWorkspace, type TestBrowser } from "../helpers/browser.ts";
import { eventually } from "../helpers/eventually.ts";
import { needs } from "../helpers/system-tools.ts";
import { CarrierCall } from "../voice/doubles/carrier.ts";
import { type Harness, startHarness } from "../voice/harness.ts";
import { speechUlaw } from "../voice/speech.ts";

declare const document: any;

describe("a call's recording on the Calls page", needs("chromium"), () => {
  let t: TestApp;
  let harness: Harness | undefined;
  let browser: TestBrowser;
  let page: Page;
  let directory: string;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), "call-recordings-web-"));
    t = await startTestApp("sqlite", { env: { CALL_RECORDINGS_DIR: directory } });
    browser = await launchBrowser();
    page = await browser.newPage();
  }, 60_000);
  afterAll(async () => {
    await harness?.close();
    await browser?.close();
    await t?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it("shows an audio control named Call recording that holds the whole call", async () => {
    const account = await signUpAndCreateWorkspace(page, t.url);
    harness = await startHarness({
      sharedDatabaseUrl: t.databaseUrl,
      dialect: "ga",
      env: { CALL_WORKSPACE_ID: account.workspaceId, CALL_RECORDING: "true", CALL_RECORDINGS_DIR: directory },
    });
    const call = await CarrierCall.place(harness.server.url);
    const provider = await harness.provider.connection();
    await provider.waitForType("session.update", 2);
    const words = speechUlaw("I would like to speak to someone about my invoice.");
    call.sendAudio(words);
    await provider.waitFor(() => provider.appendedAudio().length === words.length);
    call.stop();
    await call.closed;
    await eventually(async () => {
      const row = await harness!.database.db.selectFrom("calls").select("ended_at").executeTakeFirst();
      return Boolean(row?.ended_at);
    });

    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Calls" }).click();
    await page.getByRole("link", { name: new RegExp(`Call ${call.callSid}`) }).click();
    const audio = page.getByRole("region", { name: "Transcript" }).getByLabel("Call recording");
    await audio.waitFor();
    const duration = await eventually(
      () =>
        page.evaluate(() => {
          const element = document.querySelector("audio");
          return element && element.readyState >= 1 ? (element.duration as number) : undefined;
        }),
      "the recording's metadata",
    );
    expect(duration).toBeCloseTo(words.length / 8000, 2);
    expect(await audio.getAttribute("src")).toMatch(/^blob:/);
    expect(browser.problems).toEqual([]);
  });
});
