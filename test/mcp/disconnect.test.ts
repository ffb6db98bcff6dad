// A long tool call stops when its caller goes away: the tool's signal aborts on a dropped request or a closed stream.
import http from "node:http";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Tool } from "../../src/tools/registry.ts";
import type { TestApp } from "../helpers/app.ts";
import { eventually } from "../helpers/eventually.ts";
import { call, echoTool, postJson, RawSseStream, startMcpApp } from "./helpers.ts";

const aborted = new Set<string>();
const started = new Set<string>();

const waitTool: Tool = {
  name: "wait_for_abort",
  description: "Runs until its caller goes away",
  inputSchema: { type: "object", properties: { tag: { type: "string" } }, required: ["tag"] },
  run: (args, ctx) =>
    new Promise((resolve) => {
      const tag = String(args.tag);
      started.add(tag);
      ctx.signal?.addEventListener("abort", () => {
        aborted.add(tag);
        resolve("aborted");
      });
      setTimeout(() => resolve("finished"), 10_000).unref();
    }),
};

const keptSignals: AbortSignal[] = [];
const keepSignalTool: Tool = {
  name: "keep_signal",
  description: "Answers at once and keeps its signal",
  inputSchema: { type: "object", properties: {} },
  run: async (_args, ctx) => {
    if (ctx.signal) keptSignals.push(ctx.signal);
    return "ok";
  },
};

let server: TestApp;
beforeAll(async () => {
  server = await startMcpApp("sqlite", { tools: [echoTool, waitTool, keepSignalTool] });
});
afterAll(async () => server?.close());

it.each(["/mcp", "/messages/"])("a client that drops its POST to %s aborts the running tool", async (path) => {
  const tag = `post${path}`;
  const request = http.request(new URL(path, server.url), {
    method: "POST",
    headers: { "content-type": "application/json" },
  });
  request.on("error", () => {});
  request.end(JSON.stringify(call(1, "wait_for_abort", { tag })));
  await eventually(() => started.has(tag), "the tool to start");
  request.destroy();
  await eventually(() => aborted.has(tag), "the tool to be aborted");
  const after = await postJson(server.url, path, call(2, "echo", { text: "still serving" }));
  expect(after.json().result.structuredContent).toEqual({ echoed: "still serving" });
});

it("closing an SSE stream aborts the tool its session is running", async () => {
  const stream = await RawSseStream.open(server.url);
  const endpoint = await stream.endpoint();
  await postJson(server.url, endpoint, call(1, "wait_for_abort", { tag: "sse" }));
  await eventually(() => started.has("sse"), "the tool to start");
  stream.close();
  await eventually(() => aborted.has("sse"), "the tool to be aborted");
});

it("a call that was answered is not aborted when its connection closes later", async () => {
  // A tool's signal aborts, if ever, when the server's response closes: once it has, the signal's fate is sealed.
  const responseClosed = new Promise<void>((resolve) =>
    server.app.server.once("request", (_request, response) => response.once("close", () => resolve())),
  );
  const response = await postJson(server.url, "/mcp", call(3, "keep_signal", {}), { connection: "close" });
  expect(response.status).toBe(200);
  await responseClosed;
  expect(keptSignals).toHaveLength(1);
  expect(keptSignals[0]?.aborted).toBe(false);
});
