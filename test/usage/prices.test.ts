// The price table: built-in prices by longest name prefix, MODEL_PRICES over them, bad files named clearly.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { costOf, PriceTable } from "../../src/usage/prices.ts";

describe("price table", () => {
  it("finds dated model versions by their longest known name", () => {
    const table = PriceTable.load(undefined);
    expect(table.priceOf("openai/gpt-4o-mini-2024-07-18")?.input).toBe(0.15);
    expect(table.priceOf("openai/gpt-4o-2024-08-06")?.input).toBe(2.5);
    expect(table.priceOf("anthropic/claude-sonnet-4-5-20250929")).toMatchObject({ input: 3, output: 15 });
    expect(table.priceOf("ollama/llama3")).toBeUndefined();
  });

  it("MODEL_PRICES overrides and extends, by full id or bare name", () => {
    const dir = mkdtempSync(join(tmpdir(), "prices-"));
    const file = join(dir, "prices.json");
    writeFileSync(
      file,
      JSON.stringify({ "ollama/llama3": { input: 0, output: 0 }, "gpt-4o": { input: 1, output: 2 } }),
    );
    const table = PriceTable.load(file);
    expect(table.priceOf("ollama/llama3")).toEqual({ input: 0, output: 0 });
    expect(table.priceOf("openai/gpt-4o")).toEqual({ input: 1, output: 2 });
    expect(table.priceOf("openai/gpt-4o-mini")?.input).toBe(0.15);

    writeFileSync(file, JSON.stringify({ "gpt-4o": { input: "cheap" } }));
    expect(() => PriceTable.load(file)).toThrow(/MODEL_PRICES .*gpt-4o\.input/);
  });

  it("prices cache reads and writes apart (Anthropic)", () => {
    const price = PriceTable.load(undefined).priceOf("anthropic/claude-sonnet-4-5")!;
    const cost = costOf({ inputTokens: 1e6, outputTokens: 1e6, cacheReadTokens: 1e6, cacheWriteTokens: 1e6 }, price);
    expect(cost).toBeCloseTo(3 + 15 + 0.3 + 3.75, 9);
  });
});
