// Money and token counts as people read them: dollars to the cent, or to a hundredth of a cent below a dollar (a
// run's cost is often a fraction of a cent), and token counts grouped the browser's way.

/** "$0.0123" below a dollar, "$12.50" from one up; "$0.00" for nothing. */
export function usd(amount: number): string {
  if (amount === 0) return "$0.00";
  if (amount > 0 && amount < 0.00005) return "<$0.0001";
  if (Math.abs(amount) < 1) return `$${amount.toFixed(4)}`;
  return `$${amount.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

const count = new Intl.NumberFormat();

/** "1,234" (in the browser's own grouping). */
export const tokens = (value: number): string => count.format(value);

/** How much of a monthly budget is spent, in words: "40 % of the $5.00 monthly budget" (`whose` "the" or "its"). */
export function budgetShare(spent: number, budget: number, whose: "the" | "its"): string {
  if (budget === 0) return `${whose} monthly budget of $0.00`;
  return `${Math.floor((spent / budget) * 100)} % of ${whose} ${usd(budget)} monthly budget`;
}

/** A budget as typed: "" is no limit; else dollars, at least 0. The message names the field in plain words. */
export function parseBudget(value: string, label: string): { amount: number | null } | { error: string } {
  const trimmed = value.trim().replace(/^\$/, "").replaceAll(",", "");
  if (trimmed === "") return { amount: null };
  if (!/^\d+(\.\d+)?$/.test(trimmed)) {
    return /^-/.test(trimmed)
      ? { error: `${label} cannot be negative` }
      : { error: `${label} must be an amount in US dollars, like 25 or 12.50 (empty for no limit)` };
  }
  const amount = Number(trimmed);
  if (amount > 1_000_000_000) return { error: `${label} must be at most $1,000,000,000` };
  return { amount };
}
