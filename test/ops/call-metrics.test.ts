// The call server's own /metrics: the calls it is bridging right now, kept from callers it should not reach.
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "../helpers/eventually.ts";
import { CarrierCall } from "../voice/doubles/carrier.ts";
import { type Harness, startHarness } from "../voice/harness.ts";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const callsInProgress = async (url: string) => {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/^agent_platform_calls_in_progress (\d+)$/m.exec(text)?.[1]);
};

describe("call server /metrics", () => {
  it("counts the calls in progress, up while they last and down when they end", async () => {
    harness = await startHarness({ dialect: "ga" });
    const url = harness.server.url;
    expect(await callsInProgress(url)).toBe(0);
    const calls = await Promise.all([CarrierCall.place(url), CarrierCall.place(url)]);
    await harness.provider.connection(2);
    expect(await callsInProgress(url)).toBe(2);
    calls[0]!.stop();
    await eventually(async () => (await callsInProgress(url)) === 1, "one call in progress", 10_000);
    calls[1]!.stop();
    await eventually(async () => (await callsInProgress(url)) === 0, "no call in progress", 10_000);
  });

  it("refuses a request relayed by a proxy, and wants METRICS_TOKEN's bearer when it is set", async () => {
    harness = await startHarness({ dialect: "ga", env: { METRICS_TOKEN: "call-metrics-token-0123" } });
    const url = `${harness.server.url}/metrics`;
    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(url, { headers: { authorization: "Bearer call-metrics-token-0124" } })).status).toBe(403);
    const allowed = await fetch(url, { headers: { authorization: "Bearer call-metrics-token-0123" } });
    expect(allowed.status).toBe(200);
    expect(await allowed.text()).toContain("agent_platform_calls_in_progress");
    await harness.close();
    harness = await startHarness({ dialect: "ga" });
    const relayed = await fetch(`${harness.server.url}/metrics`, { headers: { "x-forwarded-for": "203.0.113.9" } });
    expect(relayed.status).toBe(403);
  });
});
