// A monthly budget, set by an admin: dollars, or empty for no limit; checked in plain words before it is sent, and
// the server's 422 shown next to the field the same way.
import { useState } from "react";
import { ErrorLine, fieldError, formError, InputField } from "../components.tsx";
import { type Check, text, useForm } from "../forms.ts";
import { parseBudget } from "./money.ts";

const LABEL = "Monthly budget (USD)";

const budgetCheck: Check = (value, label) => {
  const parsed = parseBudget(value, label);
  return "error" in parsed ? parsed.error : undefined;
};

export function BudgetForm(props: {
  /** The budget now, null for no limit. */
  budget: number | null;
  /** Sends the new budget (null: no limit); a refusal is shown under the field. */
  save: (amount: number | null) => Promise<unknown>;
}) {
  const [saved, setSaved] = useState(false);
  const form = useForm({
    check: (values) => [
      { field: "monthly_budget_usd", label: "Monthly budget", value: text(values, "budget"), checks: [budgetCheck] },
    ],
    send: async (values) => {
      setSaved(false);
      const parsed = parseBudget(text(values, "budget"), "Monthly budget");
      if ("amount" in parsed) await props.save(parsed.amount);
      setSaved(true);
    },
  });
  return (
    <>
      <form {...form.props} className="inline-form budget-form">
        <InputField
          label={LABEL}
          name="budget"
          inputMode="decimal"
          defaultValue={props.budget === null ? "" : String(props.budget)}
          key={props.budget ?? "none"}
          hint="Empty for no limit"
          error={fieldError(form.error, "monthly_budget_usd")}
          onChange={() => setSaved(false)}
        />
        <button type="submit" disabled={form.busy}>
          Save budget
        </button>
        {saved && !form.error && (
          <span className="muted" role="status">
            Saved
          </span>
        )}
      </form>
      <ErrorLine error={formError(form.error, ["monthly_budget_usd"])} />
    </>
  );
}
