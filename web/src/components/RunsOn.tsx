// "Runs on" in the agent form: this server (no runtime_config.runtime) or runners' runtimes, as an ordered list of
// choices by kind and tags (runtime_config.runtime.select): tasks go to the first choice with a free online runtime,
// then spill over to the next.
import { useId } from "react";
import { RUNTIME_KINDS, type RuntimeConfig, type RuntimeSelector, runtimeKindTitle } from "../api-types.ts";
import { Field, Options } from "../components.tsx";
import type { Check, FieldCheck } from "../forms.ts";

export interface Choice {
  key: number;
  kind: RuntimeSelector["kind"] | "";
  tags: string;
  /** A choice of one runtime by id (made through the API): kept as it is, shown by name elsewhere. */
  runtimeId: string | undefined;
}

export interface RunsOnValue {
  on: "server" | "runtimes";
  choices: Choice[];
}

let nextKey = 0;
const blank = (): Choice => ({ key: nextKey++, kind: "", tags: "", runtimeId: undefined });

export function runsOnOf(config: RuntimeConfig | undefined): RunsOnValue {
  const select = config?.runtime?.select;
  if (!select?.length) return { on: "server", choices: [blank()] };
  return {
    on: "runtimes",
    choices: select.map((selector) => ({
      key: nextKey++,
      kind: selector.kind ?? "",
      tags: selector.tags?.join(", ") ?? "",
      runtimeId: selector.runtime_id,
    })),
  };
}

const tagList = (tags: string): string[] =>
  tags
    .split(/[,\s]+/)
    .map((tag) => tag.trim())
    .filter(Boolean);

const tagWords: Check = (value, label) =>
  tagList(value).every((tag) => /^[A-Za-z0-9_.:-]{1,50}$/.test(tag))
    ? undefined
    : `${label} are words of letters, digits and _ . : - (at most 50 characters each), separated by commas`;

/** The checks of each choice's tags, named `runs_on_<index>` for their messages. */
export function runsOnChecks(value: RunsOnValue): FieldCheck[] {
  if (value.on === "server") return [];
  return value.choices.map((choice, index) => ({
    field: `runs_on_${index}`,
    label: "Tags",
    value: choice.tags,
    checks: [tagWords],
  }));
}

/** runtime_config with "Runs on" applied: everything else in it untouched. */
export function withRunsOn(config: Record<string, unknown>, value: RunsOnValue): Record<string, unknown> {
  const { runtime: _, ...rest } = config;
  if (value.on === "server") return rest;
  const select = value.choices.map((choice) => {
    const tags = tagList(choice.tags);
    return {
      ...(choice.kind && { kind: choice.kind }),
      ...(tags.length > 0 && { tags }),
      ...(choice.runtimeId && { runtime_id: choice.runtimeId }),
    };
  });
  return { ...rest, runtime: { select } };
}

function choiceText(selector: RuntimeSelector): string {
  const kind = selector.kind ? runtimeKindTitle(selector.kind) : "any runtime";
  const tags = selector.tags?.length ? ` tagged ${selector.tags.join(", ")}` : "";
  const one = selector.runtime_id ? " (one chosen runtime)" : "";
  return `${kind}${tags}${one}`;
}

/** "This server", or the choices in order: "Claude Code tagged gpu, then any runtime". */
export function runsOnText(config: RuntimeConfig | undefined): string {
  const select = config?.runtime?.select;
  if (!select?.length) return "This server";
  return select.map(choiceText).join(", then ");
}

export function RunsOn(props: {
  value: RunsOnValue;
  onChange: (value: RunsOnValue) => void;
  errors: (field: string) => string | undefined;
}) {
  const { value, onChange } = props;
  const name = useId();
  const hintId = useId();
  const setChoices = (choices: Choice[]) => onChange({ ...value, choices });
  const change = (index: number, patch: Partial<Choice>) =>
    setChoices(value.choices.map((choice, at) => (at === index ? { ...choice, ...patch } : choice)));
  const moveUp = (index: number) => {
    const choices = [...value.choices];
    [choices[index - 1], choices[index]] = [choices[index]!, choices[index - 1]!];
    setChoices(choices);
  };
  return (
    <fieldset className="runs-on" aria-describedby={hintId}>
      <legend>Runs on</legend>
      <label className="check">
        <input
          type="radio"
          name={name}
          checked={value.on === "server"}
          onChange={() => onChange({ ...value, on: "server" })}
        />{" "}
        This server
      </label>
      <label className="check">
        <input
          type="radio"
          name={name}
          checked={value.on === "runtimes"}
          onChange={() => onChange({ ...value, on: "runtimes" })}
        />{" "}
        Runtimes on runners
      </label>
      <span className="hint" id={hintId}>
        {value.on === "server"
          ? "The agent's model runs inside this server."
          : "Tasks go to the first choice with a free online runtime, then to the next. A choice matches runtimes of its kind having all its tags."}
      </span>
      {value.on === "runtimes" && (
        <>
          <ol aria-label="Runtime choices">
            {value.choices.map((choice, index) => (
              <li key={choice.key}>
                <fieldset>
                  <legend className="visually-hidden">Choice {index + 1}</legend>
                  <Field label="Kind">
                    {(control) => (
                      <select
                        {...control}
                        value={choice.kind}
                        onChange={(event) => change(index, { kind: event.target.value as Choice["kind"] })}
                      >
                        <option value="">Any kind</option>
                        <Options of={RUNTIME_KINDS} />
                      </select>
                    )}
                  </Field>
                  <Field label="Tags" hint="Comma-separated, e.g. gpu, linux" error={props.errors(`runs_on_${index}`)}>
                    {(control) => (
                      <input
                        {...control}
                        value={choice.tags}
                        onChange={(event) => change(index, { tags: event.target.value })}
                      />
                    )}
                  </Field>
                  {index > 0 && (
                    <button type="button" className="small" onClick={() => moveUp(index)}>
                      Move up
                    </button>
                  )}
                  {value.choices.length > 1 && (
                    <button
                      type="button"
                      className="ghost small"
                      onClick={() => setChoices(value.choices.filter((_, at) => at !== index))}
                    >
                      Remove
                    </button>
                  )}
                </fieldset>
              </li>
            ))}
          </ol>
          <button type="button" className="small" onClick={() => setChoices([...value.choices, blank()])}>
            Add a fallback choice
          </button>
        </>
      )}
    </fieldset>
  );
}
