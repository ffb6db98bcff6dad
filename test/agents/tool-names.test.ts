import { describe, expect, it } from "vitest";
import { askToolNames } from "../../src/agents/tools.ts";
import type { Agent } from "../../src/platform/agents/service.ts";

const agent = (id: string, name: string) => ({ id, name }) as Agent;

describe("ask_<agent> tool names", () => {
  it("keeps every agent reachable when names repeat, oldest first keeping the plain name", () => {
    const names = askToolNames([
      agent("11111111-aaaa-4aaa-8aaa-000000000001", "Support Bot"),
      agent("22222222-bbbb-4bbb-8bbb-000000000002", "support bot!"),
      agent("33333333-cccc-4ccc-8ccc-000000000003", "Researcher"),
    ]);
    expect([...names.values()]).toEqual(["ask_support_bot", "ask_support_bot_22222222", "ask_researcher"]);
  });

  it("stays within the 64 characters and the alphabet model providers accept", () => {
    const long = "Ünïcödé agent with a very very very very very very long name indeed, really";
    const names = askToolNames([agent("a".repeat(36), long), agent("b".repeat(36), long)]);
    for (const name of names.values()) {
      expect(name.length).toBeLessThanOrEqual(64);
      expect(name).toMatch(/^[a-z0-9_]+$/);
    }
    expect(new Set(names.values()).size).toBe(2);
  });
});
