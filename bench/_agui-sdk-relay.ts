// Child process of bench/agui.ts: a minimal relay on the openai SDK (what the issue measured at 0.57 of the pipe):
// the SDK's streaming chat completion, each delta written at once as a seed-dialect event. No runtime around it.
import { createServer } from "node:http";
import OpenAI from "openai";

const client = new OpenAI({ baseURL: process.env.OPENAI_BASE_URL, apiKey: "not-needed" });
const frame = (type: string, fields: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`;

const server = createServer((req, res) => {
  let body = "";
  req.on("data", (chunk) => (body += chunk));
  req.on("end", async () => {
    const { threadId, runId, state } = JSON.parse(body);
    const controller = new AbortController();
    res.on("close", () => controller.abort());
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    res.write(frame("run_started", { threadId, runId }));
    const messageId = `msg-${runId}`;
    res.write(frame("text_message_start", { messageId, role: "assistant" }));
    const stream = await client.chat.completions.create(
      { model: "bench", stream: true, messages: state.messages },
      { signal: controller.signal },
    );
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta?.content;
      if (delta) res.write(frame("text_message_content", { messageId, delta }));
    }
    res.write(frame("text_message_end", { messageId }));
    res.end(frame("run_finished", { threadId, runId }));
  });
});
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  if (address && typeof address === "object") console.log(`sdk-relay listening on http://127.0.0.1:${address.port}`);
});
