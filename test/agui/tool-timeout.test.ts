// TOOL_TIMEOUT_MS: a tool from a tools file that never returns fails with a timeout error; the model gets that error as
// the tool's result and the run goes on to finish.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CustomTools, loadCustomTools } from "../../src/tools/custom.ts";
import { staticSource, ToolRegistry } from "../../src/tools/registry.ts";
import { postAgui, seedRequest } from "../helpers/agui.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { testDialects } from "../helpers/databases.ts";
import { TestModelServer } from "../helpers/model-server.ts";
import { dirWith, removeTempDirs } from "../tools/temp-dir.ts";

const TOOL_TIMEOUT_MS = 300;
const definition = { name: "hang", description: "Never returns", parameters: { type: "object", properties: {} } };
const TOOLS_FILES: Record<string, Record<string, string>> = {
  "tools.mjs": {
    "tools.mjs": `export const tools = [[${JSON.stringify(definition)}, () => new Promise(() => {})]];\n`,
  },
  "tools.py": {
    "tools.py": `import asyncio, json\n\nasync def hang():\n    await asyncio.Event().wait()\n\ntools = [(json.loads(${JSON.stringify(JSON.stringify(definition))}), hang)]\n`,
  },
};

describe.each(testDialects)("POST /agui with a tool that never returns (%s)", (dialect) => {
  let model: TestModelServer;
  const apps: TestApp[] = [];
  const loaded: CustomTools[] = [];
  beforeAll(async () => {
    model = await TestModelServer.start();
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    for (const custom of loaded) await custom.close();
    await model.close();
    removeTempDirs();
  });

  for (const [file, files] of Object.entries(TOOLS_FILES)) {
    it(`${file}: the call fails after TOOL_TIMEOUT_MS, the model sees the error and the run finishes`, async () => {
      const custom = await loadCustomTools({ cwd: dirWith(files) });
      loaded.push(custom);
      const t = await startTestApp(dialect, {
        registry: new ToolRegistry().addSource(staticSource(custom.tools)),
        env: {
          OPENAI_BASE_URL: model.url,
          AGENT_MODEL: "openai/test-model",
          TOOL_TIMEOUT_MS: String(TOOL_TIMEOUT_MS),
        },
      });
      apps.push(t);
      model.reset();
      model.reply({ toolCalls: [{ id: "call_hang", name: "hang", arguments: {} }] }, { text: "The tool timed out." });

      const response = await postAgui(
        t.url,
        seedRequest(`hang-${file}`, "r1", [{ id: "m1", role: "user", content: "Go" }]),
      );
      expect(response.types.at(-1)).toBe("run_finished");
      const error = `Error: hang timed out after ${TOOL_TIMEOUT_MS} ms`;
      expect(response.frames.find((frame) => frame.data.type === "tool_call_result")?.data).toMatchObject({
        toolCallId: "call_hang",
        content: error,
      });
      expect(model.requests[1]?.body.messages.at(-1)).toEqual({
        role: "tool",
        content: error,
        tool_call_id: "call_hang",
      });
    });
  }
});
