// The set-up the browser suites share: a server whose agents talk to a model double, a browser page signed up with a
// workspace of its own, and an API client holding the same account's token.
import type { Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import type { SqlDialect } from "../../src/db/index.ts";
import { ApiClient, startTestApp, type TestApp } from "./app.ts";
import { launchBrowser, signUpAndCreateWorkspace, type TestBrowser } from "./browser.ts";
import { TestModelServer } from "./model-server.ts";

export interface BrowserFixture {
  t: TestApp;
  model: TestModelServer;
  browser: TestBrowser;
  page: Page;
  ws: string;
  token: string;
  api: ApiClient;
}

/** Started before the suite's first test (`env`: the server's, beside the model double's), closed after its last. */
export function useBrowserFixture(dialect: SqlDialect, env: Record<string, string> = {}): BrowserFixture {
  const f = {} as BrowserFixture;
  beforeAll(async () => {
    f.model = await TestModelServer.start();
    f.t = await startTestApp(dialect, {
      env: { OPENAI_BASE_URL: f.model.url, AGENT_MODEL: "openai/test-model", ...env },
    });
    f.api = new ApiClient(f.t.url);
    f.browser = await launchBrowser();
    f.page = await f.browser.newPage();
    const account = await signUpAndCreateWorkspace(f.page, f.t.url);
    f.ws = account.workspaceId;
    f.token = (await f.api.post("auth/login", { email: account.email, password: account.password })).body.token;
  }, 60_000);
  afterAll(async () => {
    await f.browser?.close();
    await f.t?.close();
    await f.model?.close();
  });
  return f;
}
