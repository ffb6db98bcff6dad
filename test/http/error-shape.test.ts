// Every error a client can provoke, the framework's own included, is JSON `{"detail": …}`; an id of any length is
// simply one that names nothing.
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDialects } from "../helpers/databases.ts";
import { createIssue, startWorkspaceFixture, type WorkspaceFixture } from "../helpers/platform.ts";

/** Sends raw bytes and returns the whole answer: for requests no HTTP client would send. */
function rawExchange(url: string, request: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(request));
    let answer = "";
    socket.on("data", (chunk) => {
      answer += chunk;
    });
    socket.on("close", () => resolve(answer));
    socket.on("error", reject);
  });
}

function parseRaw(answer: string): { status: number; contentType: string; body: unknown } {
  const [head = "", body = ""] = answer.split("\r\n\r\n");
  return {
    status: Number(head.split(" ")[1]),
    contentType: /content-type: ([^\r]+)/i.exec(head)?.[1] ?? "",
    body: JSON.parse(body),
  };
}

describe.each(testDialects)("error bodies (%s)", (dialect) => {
  let f: WorkspaceFixture;
  beforeAll(async () => {
    f = await startWorkspaceFixture(dialect);
  });
  afterAll(() => f.t.close());

  const send = async (path: string, init: RequestInit = {}) => {
    const response = await fetch(`${f.t.url}${path}`, init);
    return { status: response.status, type: response.headers.get("content-type"), body: await response.json() };
  };

  it("an unknown route, bad JSON, a body too large and a body that is not JSON each answer {detail}", async () => {
    expect(await send("/api/v1/no-such-thing")).toEqual({
      status: 404,
      type: "application/json; charset=utf-8",
      body: { detail: "Not Found" },
    });
    const json = { "content-type": "application/json" };
    const badJson = await send("/api/v1/auth/login", { method: "POST", headers: json, body: "{bad" });
    expect(badJson.status).toBe(422);
    expect(badJson.body).toEqual({
      detail: [{ type: "json_invalid", loc: ["body"], msg: "Request body is not valid JSON" }],
    });
    const tooLarge = await send("/api/v1/auth/login", { method: "POST", headers: json, body: "x".repeat(1_100_000) });
    expect(tooLarge).toMatchObject({ status: 413, body: { detail: expect.stringContaining("too large") } });
    const xml = await send("/api/v1/auth/login", {
      method: "POST",
      headers: { "content-type": "application/xml" },
      body: "<login/>",
    });
    expect(xml).toMatchObject({ status: 415, body: { detail: expect.stringContaining("application/json") } });
  });

  it("a path that is not valid percent-encoding is a 400 {detail}", async () => {
    const response = await send(`/api/v1/workspaces/${f.ws}/issues/%zz`, {
      headers: { authorization: `Bearer ${f.owner.token}` },
    });
    expect(response).toEqual({
      status: 400,
      type: "application/json; charset=utf-8",
      body: { detail: expect.stringContaining("Malformed URL") },
    });
  });

  it("ids of 300 and 5,000 characters are not found: 403 for a workspace, 404 for anything in one", async () => {
    const auth = { headers: { authorization: `Bearer ${f.owner.token}` } };
    const issue = await createIssue(f.t.api, f.ws, f.owner.token, { title: "real" });
    for (const length of [300, 5000]) {
      const longId = `${issue.id}${"a".repeat(length - issue.id.length)}`;
      const workspace = await send(`/api/v1/workspaces/${longId}`, auth);
      expect(workspace.status).toBe(403);
      expect(workspace.body).toEqual({ detail: expect.any(String) });
      expect(await send(`/api/v1/workspaces/${f.ws}/issues/${longId}`, auth)).toEqual({
        status: 404,
        type: "application/json; charset=utf-8",
        body: { detail: "Issue not found" },
      });
      const comment = await send(`/api/v1/workspaces/${f.ws}/issues/${issue.id}/comments/${longId}`, {
        method: "DELETE",
        ...auth,
      });
      expect(comment).toMatchObject({ status: 404, body: { detail: "Comment not found" } });
    }
  });

  it("requests Node refuses while reading them (headers too large, a garbled request line) still answer {detail}", async () => {
    const hugeHeader = await rawExchange(
      f.t.url,
      `GET /api/v1/auth/me HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Filler: ${"a".repeat(20_000)}\r\n\r\n`,
    );
    expect(parseRaw(hugeHeader)).toEqual({
      status: 431,
      contentType: "application/json; charset=utf-8",
      body: { detail: expect.stringContaining("too large") },
    });
    const garbled = await rawExchange(f.t.url, "HELLO THERE\r\n\r\n");
    expect(parseRaw(garbled)).toMatchObject({ status: 400, body: { detail: "Malformed HTTP request" } });
  });
});
