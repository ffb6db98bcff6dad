// The phone agent: a call server with CALL_AGENT_ID speaks as a platform agent made through the API (its
// instructions, skills, registry tools, platform tools acting as the agent) and, with CALL_ISSUE, files each call on
// the board. The platform server and the call server share one database, as in production.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Tool } from "../../src/tools/registry.ts";
import { testDialects } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import { startWorkspaceFixture, unknownId, type WorkspaceFixture } from "../helpers/platform.ts";
import { CarrierCall, fetchWebhook, newSid, streamOf } from "./doubles/carrier.ts";
import type { ProviderConnection } from "./doubles/realtime-provider.ts";
import { functionCallItem, modelCalls, outputsOf } from "./function-call-items.ts";
import { type Harness, settleFromProvider, startHarness } from "./harness.ts";

const lookupOrder: Tool = {
  name: "lookup_order",
  description: "Finds an order by number",
  inputSchema: { type: "object", properties: { order: { type: "integer" } }, required: ["order"] },
  run: async ({ order }) => ({ order, status: "shipped" }),
};

const INSTRUCTIONS = "You are Ada, the front desk of Acme Plumbing. Book visits and take messages.";
const SKILL_MD =
  "---\nname: refunds\ndescription: How to handle a refund request\n---\n# Refunds\nAsk for the order.\n";

describe.each(testDialects)("the phone agent (%s)", (dialect) => {
  let f: WorkspaceFixture;
  let agentId: string;
  let harness: Harness | undefined;

  beforeAll(async () => {
    f = await startWorkspaceFixture(dialect);
    const skill = await f.t.api.post(
      `workspaces/${f.ws}/skills`,
      { files: [{ path: "SKILL.md", content: SKILL_MD }] },
      { token: f.member.token },
    );
    const agent = await f.t.api.post(
      `workspaces/${f.ws}/agents/`,
      { name: "Front desk", instructions: INSTRUCTIONS, tools: ["list_agents"], skills: [skill.body.id] },
      { token: f.member.token },
    );
    expect(agent.status).toBe(201);
    agentId = agent.body.id;
  });
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });
  afterAll(async () => {
    await f?.t.close();
  });

  async function agentCall(env: Record<string, string> = {}) {
    harness = await startHarness({
      sharedDatabaseUrl: f.t.databaseUrl,
      database: dialect,
      dialect: "ga",
      tools: [lookupOrder],
      env: { CALL_WORKSPACE_ID: f.ws, CALL_AGENT_ID: agentId, ...env },
    });
    return placeCall(harness);
  }

  async function placeCall(on: Harness) {
    const connection = on.provider.connections.length + 1;
    const call = await CarrierCall.place(on.server.url);
    const provider = await on.provider.connection(connection);
    const update = await provider.waitForType("session.update");
    await provider.waitForType("session.update", 2);
    return { call, provider, update };
  }

  const issues = async () => (await f.t.api.get(`workspaces/${f.ws}/issues/`, { token: f.member.token })).body;

  it("the session has the agent's instructions with its skills, its tools, the platform tools and the tools file's", async () => {
    const { update } = await agentCall();
    expect(update.session.instructions.startsWith(`${INSTRUCTIONS}\n\n## Skills\n`)).toBe(true);
    expect(update.session.instructions).toContain("- refunds: How to handle a refund request");
    expect(update.session.tools.map((tool: { name: string }) => tool.name).sort()).toEqual(
      [
        "end_call",
        "read_skill",
        "list_agents",
        "lookup_order",
        ...["list_issues", "get_issue", "create_issue", "update_issue", "add_comment"],
      ].sort(),
    );
    expect(update.session.tools[0].name).toBe("end_call");
  });

  it("platform tools act as the agent, skills are read on demand, and other registry tools are unknown", async () => {
    const { provider } = await agentCall();
    modelCalls(provider, "resp_1", [
      functionCallItem("call_issue", "create_issue", '{"title":"Leaking tap at Hauptstr. 5"}'),
      functionCallItem("call_skill", "read_skill", '{"name":"refunds"}'),
      functionCallItem("call_ask", "ask_front_desk", '{"message":"hi"}'),
    ]);
    await provider.waitForType("response.create");
    const [issue, skill, ask] = outputsOf(provider) as Array<{ callId: string; output: any }>;
    expect(issue!.output).toMatchObject({ title: "Leaking tap at Hauptstr. 5", creator_type: "agent" });
    expect(issue!.output.creator_id).toBe(agentId);
    expect(skill!.output).toBe(SKILL_MD);
    expect(ask!.output).toEqual({ error: "Unknown tool: ask_front_desk" });
    const stored = (await issues()).find((row: { title: string }) => row.title === "Leaking tap at Hauptstr. 5");
    expect(stored).toMatchObject({ creator_type: "agent", creator_id: agentId });
  });

  it("the agent is read again for every call: an edit applies from the next call", async () => {
    const first = await agentCall();
    expect(first.update.session.instructions.startsWith(INSTRUCTIONS)).toBe(true);
    first.call.stop();
    await first.call.closed;
    const edited = "You are Ada. Be brief.";
    const patched = await f.t.api.patch(
      `workspaces/${f.ws}/agents/${agentId}`,
      { instructions: edited, skills: [] },
      { token: f.member.token },
    );
    expect(patched.status).toBe(200);
    try {
      const second = await placeCall(harness!);
      expect(second.update.session.instructions).toBe(edited);
      expect(second.update.session.tools.map((tool: { name: string }) => tool.name)).not.toContain("read_skill");
    } finally {
      await f.t.api.patch(
        `workspaces/${f.ws}/agents/${agentId}`,
        { instructions: INSTRUCTIONS, skills: patched.body.skills },
        { token: f.member.token },
      );
    }
  });

  it("CALL_ISSUE: after the call, the agent files an issue 'Call from <number>' with the transcript", async () => {
    const { call, provider } = await agentCall({ CALL_ISSUE: "true" });
    await say(call, provider, "caller", "Hi, my heating is broken.");
    await say(call, provider, "assistant", "I am sorry to hear that. Press 1 for an urgent visit.");
    call.pressKey("1");
    await provider.waitForType("response.create");
    call.stop();
    await call.closed;

    const filed = await eventually(async () =>
      (await issues()).find((row: { title: string }) => row.title === "Call from +15550100"),
    );
    expect(filed).toMatchObject({ creator_type: "agent", creator_id: agentId });
    expect(filed.description).toBe(
      "**Caller:** Hi, my heating is broken.\n\n" +
        "**Assistant:** I am sorry to hear that. Press 1 for an urgent visit.\n\n" +
        "**Caller:** [pressed 1]",
    );
  });

  it("CALL_ISSUE: a call about an issue the agent created is a comment on it, not a new issue", async () => {
    const before = (await issues()).length;
    const { call, provider } = await agentCall({ CALL_ISSUE: "true" });
    await say(call, provider, "caller", "Please book a chimney sweep.");
    modelCalls(provider, "resp_1", [functionCallItem("call_1", "create_issue", '{"title":"Chimney sweep"}')]);
    await provider.waitForType("response.create");
    const created = outputsOf(provider)[0]!.output as { id: string };
    call.stop();
    await call.closed;

    const comments = await eventually(async () => {
      const list = await f.t.api.get(`workspaces/${f.ws}/issues/${created.id}/comments`, { token: f.member.token });
      return list.body.length === 1 && list.body;
    });
    expect(comments[0]).toMatchObject({
      author_type: "agent",
      author_id: agentId,
      content: "Call from +15550100:\n\n**Caller:** Please book a chimney sweep.",
    });
    expect((await issues()).length).toBe(before + 1);
  });

  it("the caller's number rides to the stream bound to its token: a changed number is refused", async () => {
    harness = await startHarness({
      sharedDatabaseUrl: f.t.databaseUrl,
      database: dialect,
      env: { CALL_WORKSPACE_ID: f.ws, CALL_AGENT_ID: agentId },
    });
    const streamUrl = `${harness.server.url.replace(/^http/, "ws")}/media-stream`;
    const callSid = newSid("CA");
    const { parameters } = streamOf((await fetchWebhook(harness.server.url, { callSid })).body);
    expect(parameters.from).toBe("+15550100");
    const forged = await CarrierCall.connect(streamUrl, callSid, { ...parameters, from: "+4930999999" });
    expect(await forged.closed).toBe(1008);
    expect(harness.provider.connections).toHaveLength(0);
  });

  it("start-up refuses an agent of no workspace, an unknown agent, and CALL_ISSUE without an agent", async () => {
    const shared = { sharedDatabaseUrl: f.t.databaseUrl, database: dialect };
    await expect(startHarness({ ...shared, env: { CALL_AGENT_ID: agentId } })).rejects.toThrow(
      "CALL_AGENT_ID needs CALL_WORKSPACE_ID",
    );
    const missing = unknownId();
    await expect(
      startHarness({ ...shared, env: { CALL_WORKSPACE_ID: f.otherWs, CALL_AGENT_ID: agentId } }),
    ).rejects.toThrow(`CALL_AGENT_ID names no agent of workspace ${f.otherWs}: ${agentId}`);
    await expect(startHarness({ ...shared, env: { CALL_WORKSPACE_ID: f.ws, CALL_AGENT_ID: missing } })).rejects.toThrow(
      `CALL_AGENT_ID names no agent of workspace ${f.ws}: ${missing}`,
    );
    await expect(startHarness({ ...shared, env: { CALL_WORKSPACE_ID: f.ws, CALL_ISSUE: "true" } })).rejects.toThrow(
      "CALL_ISSUE needs CALL_AGENT_ID",
    );
  });
});

/** One line of the conversation as the provider reports it, handled by the bridge before the next step. */
async function say(call: CarrierCall, provider: ProviderConnection, who: "caller" | "assistant", transcript: string) {
  provider.send(
    who === "caller"
      ? { type: "conversation.item.input_audio_transcription.completed", item_id: "c", transcript }
      : { type: "response.output_audio_transcript.done", item_id: "a", transcript },
  );
  await settleFromProvider(call, provider);
}
