// Child process of bench/agui.ts: the straight pipe. A bare node:http server that relays each model delta at once
// as a seed-dialect text_message_content event. No SDK, no auth, no history: the floor the runtime is compared to.
import { createServer, request } from "node:http";

const model = new URL(`${process.env.OPENAI_BASE_URL}/chat/completions`);
const frame = (type: string, fields: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`;

const server = createServer((req, res) => {
  let body = "";
  req.on("data", (chunk) => (body += chunk));
  req.on("end", () => {
    const { threadId, runId, state } = JSON.parse(body);
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    res.write(frame("run_started", { threadId, runId }));
    const messageId = `msg-${runId}`;
    res.write(frame("text_message_start", { messageId, role: "assistant" }));
    const upstream = request(model, { method: "POST", headers: { "content-type": "application/json" } }, (up) => {
      up.setEncoding("utf8");
      let pending = "";
      up.on("data", (chunk: string) => {
        pending += chunk;
        let end = pending.indexOf("\n\n");
        while (end !== -1) {
          const line = pending.slice(0, end);
          pending = pending.slice(end + 2);
          end = pending.indexOf("\n\n");
          if (!line.startsWith("data: ") || line === "data: [DONE]") continue;
          const delta = JSON.parse(line.slice(6)).choices[0]?.delta?.content;
          if (delta) res.write(frame("text_message_content", { messageId, delta }));
        }
      });
      up.on("end", () => {
        res.write(frame("text_message_end", { messageId }));
        res.end(frame("run_finished", { threadId, runId }));
      });
    });
    res.on("close", () => upstream.destroy());
    upstream.end(JSON.stringify({ model: "bench", stream: true, messages: state.messages }));
  });
});
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  if (address && typeof address === "object") console.log(`agui-pipe listening on http://127.0.0.1:${address.port}`);
});
