// Schedules read by croner in the trigger's zone: daylight-saving changes neither skip nor double a fire.
import { describe, expect, it } from "vitest";
import { latestFireTime, nextFireTime } from "../../src/autopilots/cron.ts";

const fireTimes = (spec: { cron: string; timezone: string }, from: string, count: number) => {
  const times: string[] = [];
  let at = new Date(from);
  for (let i = 0; i < count; i++) {
    at = nextFireTime(spec, at) as Date;
    times.push(at.toISOString());
  }
  return times;
};

describe("schedules across daylight-saving changes", () => {
  const nightly = { cron: "30 2 * * *", timezone: "Europe/Berlin" };

  it("a time that does not exist on the spring-forward night fires once, at the first moment after the gap", () => {
    expect(fireTimes(nightly, "2026-03-27T12:00:00Z", 4)).toEqual([
      "2026-03-28T01:30:00.000Z",
      "2026-03-29T01:00:00.000Z",
      "2026-03-30T00:30:00.000Z",
      "2026-03-31T00:30:00.000Z",
    ]);
  });

  it("a time that happens twice on the fall-back night fires once", () => {
    expect(fireTimes(nightly, "2026-10-23T12:00:00Z", 4)).toEqual([
      "2026-10-24T00:30:00.000Z",
      "2026-10-25T00:30:00.000Z",
      "2026-10-26T01:30:00.000Z",
      "2026-10-27T01:30:00.000Z",
    ]);
  });

  it("weekdays at 09:00 in New York stay 09:00 local across the change", () => {
    const times = fireTimes({ cron: "0 9 * * 1-5", timezone: "America/New_York" }, "2026-03-06T00:00:00Z", 3);
    expect(times).toEqual(["2026-03-06T14:00:00.000Z", "2026-03-09T13:00:00.000Z", "2026-03-10T13:00:00.000Z"]);
  });

  it("after downtime only the latest missed fire time is due", () => {
    const everyTwoSeconds = { cron: "*/2 * * * * *", timezone: "UTC" };
    const latest = latestFireTime(
      everyTwoSeconds,
      new Date("2026-01-01T00:00:00.500Z"),
      new Date("2026-01-01T00:00:09.100Z"),
    );
    expect(latest?.toISOString()).toBe("2026-01-01T00:00:08.000Z");
    expect(
      latestFireTime(everyTwoSeconds, new Date("2026-01-01T00:00:08.000Z"), new Date("2026-01-01T00:00:09.900Z")),
    ).toBe(undefined);
  });

  it("a pass at a fire time's very millisecond fires it (and the next pass does not again)", () => {
    const everyTwoSeconds = { cron: "*/2 * * * * *", timezone: "UTC" };
    const at = new Date("2026-01-01T00:00:10.000Z");
    expect(latestFireTime(everyTwoSeconds, new Date("2026-01-01T00:00:08.000Z"), at)?.toISOString()).toBe(
      at.toISOString(),
    );
    expect(latestFireTime(everyTwoSeconds, at, new Date("2026-01-01T00:00:10.400Z"))).toBe(undefined);
  });
});
