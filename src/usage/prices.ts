// The price table: USD per million tokens for each model, built in for the current OpenAI and Anthropic models,
// overridden and extended by the MODEL_PRICES file, and per agent by `runtime_config.price`.
import { readFileSync } from "node:fs";
import { z } from "zod";

export const modelPriceSchema = z.object({
  input: z.number().min(0),
  output: z.number().min(0),
  /** Cached input read back (OpenAI's cached tokens, Anthropic's cache reads); the input price when not given. */
  cached_input: z.number().min(0).optional(),
  /** Input written to the cache (Anthropic); the input price when not given. */
  cache_write: z.number().min(0).optional(),
});
export type ModelPrice = z.infer<typeof modelPriceSchema>;

const priceFileSchema = z.record(z.string().min(1), modelPriceSchema);

const anthropic = (input: number, output: number): ModelPrice => ({
  input,
  output,
  cached_input: input / 10,
  cache_write: input * 1.25,
});

/** List prices, USD per million tokens; keys are model names without the provider, matched by longest prefix. */
export const BUILT_IN_PRICES: Readonly<Record<string, ModelPrice>> = {
  "gpt-5": { input: 1.25, output: 10, cached_input: 0.125 },
  "gpt-5-mini": { input: 0.25, output: 2, cached_input: 0.025 },
  "gpt-5-nano": { input: 0.05, output: 0.4, cached_input: 0.005 },
  "gpt-4.1": { input: 2, output: 8, cached_input: 0.5 },
  "gpt-4.1-mini": { input: 0.4, output: 1.6, cached_input: 0.1 },
  "gpt-4.1-nano": { input: 0.1, output: 0.4, cached_input: 0.025 },
  "gpt-4o": { input: 2.5, output: 10, cached_input: 1.25 },
  "gpt-4o-mini": { input: 0.15, output: 0.6, cached_input: 0.075 },
  o1: { input: 15, output: 60, cached_input: 7.5 },
  o3: { input: 2, output: 8, cached_input: 0.5 },
  "o3-mini": { input: 1.1, output: 4.4, cached_input: 0.55 },
  "o4-mini": { input: 1.1, output: 4.4, cached_input: 0.275 },
  "claude-opus-4-5": anthropic(5, 25),
  "claude-opus-4-1": anthropic(15, 75),
  "claude-opus-4": anthropic(15, 75),
  "claude-sonnet-4-5": anthropic(3, 15),
  "claude-sonnet-4": anthropic(3, 15),
  "claude-3-7-sonnet": anthropic(3, 15),
  "claude-haiku-4-5": anthropic(1, 5),
  "claude-3-5-haiku": anthropic(0.8, 4),
};

export interface TokenCounts {
  /** Uncached input. */
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

export const NO_TOKENS: Readonly<TokenCounts> = {
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
};

/** What `counts` cost at `price`, in USD. */
export function costOf(counts: TokenCounts, price: ModelPrice): number {
  const perMillion =
    counts.inputTokens * price.input +
    counts.outputTokens * price.output +
    counts.cacheReadTokens * (price.cached_input ?? price.input) +
    counts.cacheWriteTokens * (price.cache_write ?? price.input);
  return perMillion / 1_000_000;
}

export class PriceTable {
  private readonly names: string[];

  constructor(private readonly prices: Readonly<Record<string, ModelPrice>>) {
    // Longest first, so `gpt-4o-mini-2024-07-18` finds `gpt-4o-mini` before `gpt-4o`.
    this.names = Object.keys(prices).sort((a, b) => b.length - a.length);
  }

  /** The built-in prices, with the entries of the MODEL_PRICES file (if any) over them. */
  static load(file: string | undefined): PriceTable {
    if (!file) return new PriceTable(BUILT_IN_PRICES);
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(file, "utf8"));
    } catch (error) {
      throw new Error(`MODEL_PRICES ${file}: ${error instanceof Error ? error.message : String(error)}`);
    }
    const result = priceFileSchema.safeParse(parsed);
    if (!result.success) {
      const issue = result.error.issues[0];
      throw new Error(`MODEL_PRICES ${file}: ${issue?.path.join(".") || "(top)"}: ${issue?.message}`);
    }
    return new PriceTable({ ...BUILT_IN_PRICES, ...result.data });
  }

  /**
   * The price of `model` (`provider/name` or a bare name): the exact id, else the name, else the longest known name
   * it starts with (dated versions such as `claude-sonnet-4-5-20250929`). Undefined when unknown.
   */
  priceOf(model: string): ModelPrice | undefined {
    const exact = this.prices[model];
    if (exact) return exact;
    const name = model.slice(model.indexOf("/") + 1);
    if (this.prices[name]) return this.prices[name];
    const prefix = this.names.find((known) => name.startsWith(`${known}-`));
    return prefix === undefined ? undefined : this.prices[prefix];
  }
}

/** An agent's own price (`runtime_config.price`), when it sets a valid one. */
export function agentPrice(runtimeConfig: unknown): ModelPrice | undefined {
  const price = (runtimeConfig as { price?: unknown } | null)?.price;
  if (price === undefined || price === null) return undefined;
  const result = modelPriceSchema.safeParse(price);
  return result.success ? result.data : undefined;
}
