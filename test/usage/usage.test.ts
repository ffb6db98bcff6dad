// Usage and cost on every run: tokens as the model API reports them (cached input apart), priced from the price
// table or the agent's own price, and the workspace's usage grouped by agent, model, day or issue.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { testDialects } from "../helpers/databases.ts";
import { createAgent, createIssue, startWorkFixture, taskReaching, type WorkFixture } from "../work/helpers.ts";

describe.each(testDialects)("usage and cost (%s)", (dialect) => {
  let f: WorkFixture;
  beforeAll(async () => {
    f = await startWorkFixture(dialect);
  });
  afterAll(() => f.close());
  beforeEach(() => f.model.reset());

  /** One run of `agent` on a new issue whose model call reports `usage`; resolves to the ended run. */
  async function runWith(
    agent: { id: string },
    usage: { prompt_tokens: number; completion_tokens: number; cached_tokens?: number },
  ) {
    f.model.reply({ text: "Done.", usage });
    const draft = await createIssue(f, { title: `Costly ${agent.id}`, assignee_type: "agent", assignee_id: agent.id });
    const task = await taskReaching(f, draft.id);
    expect(task.status).toBe("succeeded");
    const run = (await f.api.get(`workspaces/${f.ws}/runs/${task.run_id}`, { token: f.member.token })).body;
    return { draft, run };
  }

  const usage = async (query: string, token = f.member.token) =>
    f.api.get(`workspaces/${f.ws}/usage${query}`, { token });

  it("records uncached input, cached input and output apart, priced by the built-in table", async () => {
    const agent = await createAgent(f, { name: "Priced", model: "openai/gpt-4o-2024-08-06" });
    const { run } = await runWith(agent, { prompt_tokens: 1000, cached_tokens: 400, completion_tokens: 200 });
    // gpt-4o: $2.50 input, $10 output, $1.25 cached input per million tokens.
    expect(run.usage).toEqual({
      input_tokens: 600,
      output_tokens: 200,
      cache_read_tokens: 400,
      cache_write_tokens: 0,
      cost_usd: expect.closeTo((600 * 2.5 + 200 * 10 + 400 * 1.25) / 1e6, 12),
    });
  });

  it("an agent's own price wins; a model with no price records tokens and no cost", async () => {
    const own = await createAgent(f, {
      name: "Own price",
      runtime_config: { price: { input: 1, output: 2, cached_input: 0.5 } },
    });
    const { run } = await runWith(own, { prompt_tokens: 1000, cached_tokens: 400, completion_tokens: 200 });
    expect(run.usage.cost_usd).toBeCloseTo((600 * 1 + 200 * 2 + 400 * 0.5) / 1e6, 12);

    const unpriced = await createAgent(f, { name: "Unpriced" });
    const second = await runWith(unpriced, { prompt_tokens: 50, completion_tokens: 5 });
    expect(second.run.usage).toEqual({
      input_tokens: 50,
      output_tokens: 5,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      cost_usd: null,
    });

    const bad = await f.api.post(
      `workspaces/${f.ws}/agents/`,
      { name: "Bad price", runtime_config: { price: { input: -1, output: 2 } } },
      { token: f.owner.token },
    );
    expect(bad.status).toBe(422);
  });

  it("GET usage groups the month's runs by agent, model, day and issue", async () => {
    const agent = await createAgent(f, {
      name: "Grouped",
      model: "openai/grouped-model",
      runtime_config: { price: { input: 10, output: 10 } },
    });
    const a = await runWith(agent, { prompt_tokens: 100, completion_tokens: 100 });
    const b = await runWith(agent, { prompt_tokens: 300, completion_tokens: 100 });
    const cost = (n: number) => (n * 10) / 1e6;

    const byAgent = (await usage("?group_by=agent")).body as any[];
    expect(byAgent.find((row) => row.key === agent.id)).toEqual({
      key: agent.id,
      name: "Grouped",
      runs: 2,
      input_tokens: 400,
      output_tokens: 200,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      cost_usd: expect.closeTo(cost(600), 12),
    });
    const byModel = (await usage("?group_by=model")).body as any[];
    expect(byModel.find((row) => row.key === "openai/grouped-model")).toMatchObject({ runs: 2, input_tokens: 400 });

    const byIssue = (await usage("?group_by=issue")).body as any[];
    expect(byIssue.find((row) => row.key === a.draft.id)).toMatchObject({
      name: a.draft.title,
      runs: 1,
      input_tokens: 100,
    });
    expect(byIssue.find((row) => row.key === b.draft.id)).toMatchObject({ runs: 1, input_tokens: 300 });

    const day = a.run.started_at.slice(0, 10);
    const byDay = (await usage("?group_by=day")).body as any[];
    const today = byDay.find((row) => row.key === day);
    const totals = byAgent.reduce((sum, row) => sum + row.runs, 0);
    expect(today.runs).toBe(totals);
    // The same day read from the runs (a range that cuts days) agrees with the daily rollup.
    const next = new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    const cut = (await usage(`?group_by=day&from=${day}T00:00:00.000001Z&to=${next}`)).body as any[];
    expect(cut).toEqual([{ ...today, cost_usd: expect.closeTo(today.cost_usd, 9) }]);

    // A range with none of these runs.
    expect((await usage("?group_by=agent&from=2001-01-01&to=2001-02-01")).body).toEqual([]);
  });

  it("refuses bad ranges and groups, and outsiders", async () => {
    expect((await usage("?group_by=week")).status).toBe(422);
    expect((await usage("?from=yesterday")).status).toBe(422);
    expect((await usage("?from=2026-02-01&to=2026-01-01")).status).toBe(422);
    expect((await usage("", f.outsider.token)).status).toBe(403);
  });
});
